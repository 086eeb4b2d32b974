/**
 * One manifest file as the store reads it: its bytes (links, other kinds of file and oversized
 * files refused unread), its YAML document, and the normalised record queries use, or a
 * one-line reason it is not a manifest.
 */
import fs from 'node:fs';
import { isServedAgentId, isValidAgentId } from './ids.js';
import { interner, isObject, type Intern, type RawObject } from './manifest.js';
import { readManifest, type Misfit } from './lenient-reader.js';
import { defineKey, type ManifestRows } from './model.js';
import type { Warn } from './warn.js';
import { BourdonError, errnoOf } from '../errors.js';
import { capDocument, type PulledOrigin } from './pulled.js';
import { parseYaml, yamlErrorReason } from './yaml.js';

export const MANIFEST_SUFFIX = '.l5.yaml';
const NOT_A_MAPPING = 'manifest is not a YAML mapping';
/** Larger files are refused unread: no real manifest comes near this (1,000 entities ≈ 0.3 MB). */
export const MAX_MANIFEST_BYTES = 8 * 1024 * 1024;

/** A manifest's rows (model.ts) and where they were read. */
export interface AgentRecord extends ManifestRows {
  id: string;
  file: string;
  path: string;
  /** Set on a manifest another machine published (pulled through sync: store/pulled.ts). */
  origin?: PulledOrigin;
}

/**
 * A record whose rows come from the parsed cache's small parts (entities, sessions) rather than
 * the whole document: what a partial view of the library serves. Rows not read are empty.
 */
export function partialRecord(
  id: string,
  file: string,
  full: string,
  found: Partial<Pick<AgentRecord, 'entities' | 'sessions'>>,
): AgentRecord {
  return {
    id,
    file,
    path: full,
    agent: { type: null, instance: null, role_narrative: null },
    last_updated: null,
    capabilities: [],
    entities: [],
    sessions: [],
    notes: [],
    ...found,
  };
}

export interface BrokenRecord {
  /** The file name's stem: broken manifests are still named in exports. */
  id: string;
  file: string;
  path: string;
  error: string;
}

/**
 * Builds a record from manifest text or bytes (UTF-8); throws a one-line reason when it is not
 * a manifest. Values that do not fit the model are left out, and `warn` told once (recordFromDoc).
 */
export function parseManifest(text: string | Buffer, file: string, filePath: string, warn?: Warn): AgentRecord {
  return recordFromDoc(parseDocument(text), file, filePath, warn);
}

export function parseDocument(text: string | Buffer): unknown {
  try {
    return parseYaml(text);
  } catch (error) {
    throw new ManifestError(yamlErrorReason(error));
  }
}

/** A manifest file's bytes; refuses links, other kinds of file and oversized files unread. */
export function readManifestFile(full: string): Buffer {
  const stat = fs.lstatSync(full);
  if (stat.isSymbolicLink()) throw new ManifestError('symbolic links are not read as manifests');
  if (!stat.isFile()) throw new ManifestError('not a regular file');
  if (stat.size > MAX_MANIFEST_BYTES)
    throw new ManifestError(`file is ${stat.size} bytes; the limit is ${MAX_MANIFEST_BYTES}`);
  return fs.readFileSync(full);
}

/**
 * What reading a manifest through the model left out, as its one warning says it: how many
 * values, and the first one's field and reason. The parsed cache keeps it with the rows, so a
 * warm read says the same warning without reading the document through the model again.
 */
export interface LeftOut {
  count: number;
  first: Pick<Misfit, 'field' | 'reason'>;
}

/**
 * Builds a record from a parsed document, its rows read through the L5 model (lenient-reader.ts); throws
 * a one-line reason when it is not a manifest. A value that does not fit is left out (a list
 * item, a field, or the row that needs it) and the rest read: `warn` is told once per document,
 * naming the file, how many values were left out and the first one's field.
 */
export function recordFromDoc(doc: unknown, file: string, filePath: string, warn?: Warn): AgentRecord {
  const { record, leftOut } = readRecord(doc, file, filePath);
  if (leftOut && warn) warnLeftOut(warn, filePath, leftOut);
  return record;
}

/** As recordFromDoc, with what was left out given back instead of said. */
export function readRecord(
  doc: unknown,
  file: string,
  filePath: string,
): { record: AgentRecord; leftOut: LeftOut | null } {
  if (!isObject(doc)) throw new ManifestError(NOT_A_MAPPING);
  // Every string the record keeps goes through `intern`, which detaches it from the manifest's text.
  const intern = interner();
  const id = intern(agentIdOf(doc, file));
  const { rows, misfits } = readManifest(doc, intern);
  const record: AgentRecord = {
    id,
    file,
    path: filePath,
    agent: rows.agent,
    last_updated: rows.last_updated,
    capabilities: detachAll(rows.capabilities, intern),
    entities: rows.entities,
    sessions: rows.sessions,
    notes: rows.notes,
  };
  const [first] = misfits;
  return {
    record,
    leftOut: first ? { count: misfits.length, first: { field: first.field, reason: first.reason } } : null,
  };
}

/** The one warning for a manifest whose reading left values out. */
export function warnLeftOut(warn: Warn, filePath: string, { count, first }: LeftOut): void {
  const values = count === 1 ? 'a value that does' : `${count} values that do`;
  warn(`reading ${filePath}: left out ${values} not fit the L5 model (${first.field}: ${first.reason})`);
}

/** A copy of a raw value whose strings are all interned (so detached from the manifest's text). */
function detachAll<T>(value: T, intern: Intern): T {
  if (typeof value === 'string') return intern(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => detachAll(item, intern)) as T;
  if (isObject(value)) {
    const out: RawObject = {};
    for (const [key, item] of Object.entries(value)) defineKey(out, key, detachAll(item, intern));
    return out as T;
  }
  return value;
}

/** The agent id a manifest declares, else its file name's stem; throws a one-line reason when invalid. */
function agentIdOf(doc: RawObject, file: string): string {
  const stem = file.slice(0, -MANIFEST_SUFFIX.length);
  const agentBlock = isObject(doc.agent) ? doc.agent : {};
  const declared = agentBlock.id;
  let id: string;
  if (declared === undefined || declared === null || declared === '') {
    id = stem;
    if (!isValidAgentId(id)) throw new ManifestError(`file name ${JSON.stringify(file)} is not a valid agent id`);
  } else if (isServedAgentId(declared)) {
    // Served as declared even when it fails the strict pattern (`Agent-B`), as the engine
    // serves it; it is a key only, never a path. Writes to it are refused (strict ids only).
    id = declared;
  } else {
    throw new ManifestError(
      `invalid agent.id ${JSON.stringify(declared)}: must be text without slashes, '..', control characters or surrounding spaces`,
    );
  }
  return id;
}

export class ManifestError extends Error {}

/** A manifest's stat as a snapshot and the parsed cache compare it. */
export interface FileStamp {
  /** kind:size:mtime:ctime:inode. */
  key: string;
  /** The later of mtime and ctime, in ms. */
  changedMs: number;
  kind: 'file' | 'link' | 'other';
}

/** A manifest file's stamp: what a snapshot compares to tell it changed; null when it is gone. */
export function fileStamp(full: string): FileStamp | null {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(full);
  } catch {
    return null;
  }
  // Links are not followed: a link could point anywhere on the machine.
  const kind = stat.isSymbolicLink() ? 'link' : stat.isFile() ? 'file' : 'other';
  return {
    key: `${kind}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.ino}`,
    changedMs: Math.max(stat.mtimeMs, stat.ctimeMs),
    kind,
  };
}

/**
 * A loaded agent's raw document read from its file again, with the checks a load makes; a
 * pulled manifest capped at its published level. Throws a one-line error, naming no path (the
 * manifest resource answers it to remote callers), when the file can no longer be read as that
 * agent's manifest.
 */
export function rereadDocument(record: AgentRecord): RawObject {
  try {
    const doc = parseDocument(readManifestFile(record.path));
    if (!isObject(doc)) throw new ManifestError(NOT_A_MAPPING);
    const id = agentIdOf(doc, record.file);
    const origin = record.origin;
    if (id !== (origin ? origin.agent : record.id))
      throw new ManifestError(`it now declares agent id ${JSON.stringify(id)}`);
    return origin ? capDocument(doc, origin.access_level) : doc;
  } catch (error) {
    const code = errnoOf(error);
    // The reason names no path: the manifest resource answers it to remote callers.
    const reason =
      error instanceof ManifestError
        ? error.message
        : code === 'ENOENT'
          ? 'the file was removed'
          : code === 'EACCES' || code === 'EPERM'
            ? 'permission denied'
            : 'it cannot be read';
    throw new BourdonError(`cannot read agents/${record.file} again: ${reason}`, 'unavailable');
  }
}
