/**
 * What this machine publishes: each local manifest rebuilt from its rows at or below the
 * chosen level, every text redacted as the read surfaces redact it (spec §7), with a closed
 * set of fields. Nothing is copied through: an unknown field, a row above the level or a
 * manifest that does not parse never reaches the published tree. Pure, except for reading
 * agents/ (never the rest of the library: history, staging and pulled manifests stay home).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describeError, errnoOf } from '../core/errors.js';
import { isValidAgentId } from '../core/store/ids.js';
import { MANIFEST_SUFFIX, MAX_MANIFEST_BYTES } from '../core/store/library.js';
import { asText, isObject, rawRows, type RawObject } from '../core/store/manifest.js';
import { MAX_PUBLICATION_BYTES } from '../core/store/pulled.js';
import { laterServedOver } from '../core/store/snapshot.js';
import { parseYamlMapping } from '../core/store/yaml.js';
import { canSee, policyOf, rowLevel, type AccessLevel, type VisibilityPolicy } from '../core/trust/access.js';
import { redactText } from '../core/trust/redaction.js';
import { blobId } from './git.js';

/**
 * Longest published text. The read surfaces cap what they show at 180 characters; a published
 * manifest is read again by queries on other machines, so it keeps more, redacted the same way.
 */
const PUBLISHED_TEXT_CAP = 2_000;

export interface PublishedAgent {
  id: string;
  /** The local file it was built from. */
  file: string;
  bytes: Buffer;
  /** git's blob id of `bytes`, to compare with the remote without reading it. */
  blob: string;
  counts: { entities: number; sessions: number; notes: number };
}

export interface Publication {
  agents: PublishedAgent[];
  /** Local manifests left out, with why (never copied). */
  skipped: { file: string; reason: string }[];
  /**
   * Agents left out because no row of theirs is at or below the level: published, each would
   * show as an empty agent on the other machines (docs/sync.md).
   */
  empty: string[];
  /**
   * Agents left out because the publication would pass what one machine may publish
   * (MAX_PUBLICATION_BYTES, in all): the agents are taken in id order while they fit.
   */
  over_cap: string[];
}

/**
 * What a rendering depends on besides the file and the level: 2, rows read under their
 * manifest's visibility_policy (D19). A cache of another format renders every file afresh.
 */
const RENDER_FORMAT = 2;

/** The cache of rendered manifests kept between pushes: file → its stat key and what it gave. */
export interface RenderCache {
  format?: number;
  level: AccessLevel;
  files: Record<string, { key: string; id: string; blob: string; counts: PublishedAgent['counts'] }>;
}

const text = (value: unknown): string | undefined => {
  const raw = asText(value);
  return raw === null ? undefined : redactText(raw, PUBLISHED_TEXT_CAP);
};

const textList = (value: unknown): string[] => {
  const items = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  return items
    .map((item) => asText(item))
    .filter((item): item is string => item !== null)
    .map((item) => redactText(item, PUBLISHED_TEXT_CAP));
};

/** Keeps the named fields of a row, each as redacted text or a redacted text list; drops the rest. */
function pick(row: RawObject, scalars: readonly string[], lists: readonly string[]): RawObject {
  const out: RawObject = {};
  for (const key of scalars) {
    const value = text(row[key]);
    if (value !== undefined) out[key] = value;
  }
  for (const key of lists) if (row[key] !== undefined && row[key] !== null) out[key] = textList(row[key]);
  return out;
}

/**
 * The rows of one list at or below `level`, each labelled with the level it is read at: its own
 * label under the manifest's visibility_policy (D19), so the published copy, which carries no
 * policy, is read at that level on every other machine.
 */
function rows(
  doc: RawObject,
  field: string,
  level: AccessLevel,
  policy: VisibilityPolicy | null,
  build: (row: RawObject) => RawObject,
): RawObject[] {
  const out: RawObject[] = [];
  for (const row of rawRows(doc, field)) {
    if (!isObject(row)) continue;
    const visibility = rowLevel(row, policy);
    if (!canSee(level, visibility)) continue;
    out.push({ ...build(row), visibility });
  }
  return out;
}

/** A manifest as published at `level`: the L5 fields only, rows at or below the level, texts redacted. */
export function publishedDocument(doc: RawObject, id: string, level: AccessLevel): RawObject {
  const agent = isObject(doc.agent) ? doc.agent : {};
  const policy = policyOf(doc);
  return {
    spec_version: text(doc.spec_version) ?? '0.1',
    agent: { id, ...pick(agent, ['type', 'instance', 'role_narrative'], []) },
    ...(text(doc.last_updated) !== undefined ? { last_updated: text(doc.last_updated) } : {}),
    capabilities: textList(doc.capabilities),
    known_entities: rows(doc, 'known_entities', level, policy, (row) =>
      pick(row, ['name', 'type', 'summary', 'last_touched', 'valid_from', 'valid_to'], ['aliases', 'tags']),
    ),
    recent_sessions: rows(doc, 'recent_sessions', level, policy, (row) =>
      pick(row, ['date', 'cwd'], ['project_focus', 'key_actions', 'files_touched']),
    ),
    notes: rows(doc, 'notes', level, policy, (row) => pick(row, ['date', 'title', 'text'], ['tags', 'project_focus'])),
  };
}

/**
 * A YAML double-quoted scalar: JSON's string syntax (valid YAML), plus escapes for what PyYAML
 * refuses or folds in a stream (DEL, C1 controls, line and paragraph separators, BOM).
 */
function quoted(text: string): string {
  return JSON.stringify(text).replace(
    /[\u007f-\u009f\u2028\u2029\ufeff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function yamlValue(value: unknown, indent: string): string {
  if (typeof value === 'string') return ` ${quoted(value)}`;
  if (Array.isArray(value)) {
    if (value.length === 0) return ' []';
    if (value.every((item) => typeof item === 'string'))
      return ` [${value.map((item) => quoted(item as string)).join(', ')}]`;
    return value.map((item) => `\n${indent}- ${yamlMapping(item as RawObject, `${indent}  `).trimStart()}`).join('');
  }
  return `\n${yamlMapping(value as RawObject, `${indent}  `)}`;
}

function yamlMapping(doc: RawObject, indent: string): string {
  return Object.entries(doc)
    .map(([key, value]) => `${indent}${key}:${yamlValue(value, indent)}`)
    .join('\n');
}

/**
 * A published document as YAML. Its values are only text, lists of text and rows of them, under
 * fixed plain keys, so every scalar is written double-quoted: read back as the same strings by
 * this project's reader and by PyYAML (the tests check both). Several times faster than the
 * general serialiser (`stringifyYaml`) on a large manifest, where a push spent most of its time.
 */
export function publishedYaml(doc: RawObject): string {
  return `${yamlMapping(doc, '')}\n`;
}

/**
 * The id a manifest is published under: its declared `agent.id`, else its file name's stem (as
 * the store reads it); only a strict id, since it names a file on the remote.
 */
function publishedId(doc: RawObject, file: string): string {
  const declared = isObject(doc.agent) ? doc.agent.id : undefined;
  const id =
    declared === undefined || declared === null || declared === '' ? file.slice(0, -MANIFEST_SUFFIX.length) : declared;
  if (!isValidAgentId(id))
    throw new Error(
      `agent id ${JSON.stringify(id)} is not a strict id (^[a-z0-9][a-z0-9_-]*$): it cannot name a published file`,
    );
  return id;
}

/** The stat key that tells an unchanged file (as the store's own: size, times, inode). */
function statKey(stat: fs.Stats): string {
  return `${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.ino}`;
}

/**
 * Every local manifest as published at `level`. `reuse(id, blob)` gives back the bytes of an
 * earlier rendering (from the working area) when it still has them, so that an unchanged file
 * is not parsed again.
 */
export function buildPublication(
  agentsDir: string,
  level: AccessLevel,
  cache: RenderCache | null,
  reuse: (id: string, blob: string) => Buffer | null,
): { publication: Publication; cache: RenderCache } {
  const skipped: Publication['skipped'] = [];
  const byId = new Map<string, PublishedAgent>();
  const nextCache: RenderCache = { format: RENDER_FORMAT, level, files: {} };
  let names: string[];
  try {
    names = fs.readdirSync(agentsDir).filter((name) => name.endsWith(MANIFEST_SUFFIX));
  } catch (error) {
    if (errnoOf(error) !== 'ENOENT') throw error;
    names = [];
  }
  // Sorted load order, so that two files declaring one id resolve as the store resolves them.
  for (const file of names.sort()) {
    const full = path.join(agentsDir, file);
    try {
      const stat = fs.lstatSync(full);
      if (stat.isSymbolicLink()) throw new Error('symbolic links are not read as manifests');
      if (!stat.isFile()) throw new Error('not a regular file');
      if (stat.size > MAX_MANIFEST_BYTES)
        throw new Error(`file is ${stat.size} bytes; the limit is ${MAX_MANIFEST_BYTES}`);
      const key = statKey(stat);
      const known = cache?.format === RENDER_FORMAT && cache.level === level ? cache.files[file] : undefined;
      const kept = known && known.key === key ? reuse(known.id, known.blob) : null;
      let agent: PublishedAgent;
      if (known && kept) {
        agent = { id: known.id, file, bytes: kept, blob: known.blob, counts: known.counts };
      } else {
        const source = fs.readFileSync(full);
        const doc = parseYamlMapping(source);
        if (!doc) throw new Error('manifest is not a YAML mapping');
        const id = publishedId(doc, file);
        const published = publishedDocument(doc, id, level);
        const bytes = Buffer.from(publishedYaml(published), 'utf8');
        if (bytes.length > MAX_MANIFEST_BYTES)
          throw new Error(`the published manifest would be ${bytes.length} bytes; the limit is ${MAX_MANIFEST_BYTES}`);
        const counts = {
          entities: (published.known_entities as unknown[]).length,
          sessions: (published.recent_sessions as unknown[]).length,
          notes: (published.notes as unknown[]).length,
        };
        agent = { id, file, bytes, blob: blobId(bytes), counts };
      }
      nextCache.files[file] = { key, id: agent.id, blob: agent.blob, counts: agent.counts };
      const earlier = byId.get(agent.id);
      if (earlier && !laterServedOver(agent.id, earlier.file)) {
        skipped.push({ file, reason: `duplicate agent id ${JSON.stringify(agent.id)} (also in ${earlier.file})` });
        continue;
      }
      if (earlier)
        skipped.push({
          file: earlier.file,
          reason: `duplicate agent id ${JSON.stringify(agent.id)} (also in ${file})`,
        });
      byId.set(agent.id, agent);
    } catch (error) {
      skipped.push({ file, reason: describeError(error).split('\n')[0]! });
    }
  }
  const all = [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const hasRows = (agent: PublishedAgent) => agent.counts.entities + agent.counts.sessions + agent.counts.notes > 0;
  const agents: PublishedAgent[] = [];
  const overCap: string[] = [];
  let total = 0;
  for (const agent of all.filter(hasRows)) {
    if (total + agent.bytes.length > MAX_PUBLICATION_BYTES) {
      overCap.push(agent.id);
      continue;
    }
    total += agent.bytes.length;
    agents.push(agent);
  }
  return {
    publication: {
      agents,
      skipped,
      empty: all.filter((agent) => !hasRows(agent)).map((agent) => agent.id),
      over_cap: overCap,
    },
    cache: nextCache,
  };
}
