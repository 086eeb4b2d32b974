/**
 * The CLI's parsed-library cache: one entry per manifest, so one changed manifest costs one
 * parse, and small per-agent parts that one-shot commands answer from without reading whole
 * documents: lookup indexes (folded entity name or alias → that agent's entities) for
 * `bourdon find` and `query`, and the agent's normalised sessions for `bourdon recent`.
 *
 * An entry is a folder named after a hash of the manifest's file name, holding `meta.json`
 * (the file's stat when parsed, its agent id or its error, and a token), `doc.json` (the
 * parsed document), `rows.json` (every row of the agent's record as the L5 model read them, in
 * file order, and what the reading left out: a full read builds the record from it without the
 * model), `entities.jsonl` (the lookup buckets, one JSON line each, which a lookup
 * reads alone by the byte offsets in meta.json), and the sessions newest first in parts named by
 * their newest month (`sessions-2026-11.json`: one part for each of the three newest months,
 * one for every older month, then `sessions-undated.json`), so `bourdon recent` reads only the
 * parts its window reaches. Every part carries the meta's token, and meta.json is written last,
 * so a torn or half-rewritten entry never matches. An entry is used only while the manifest's
 * stat (kind, size, mtime, ctime, inode) is unchanged; when the manifest changed within
 * RACY_WINDOW_MS of the entry being written (a clock tick could hide a second edit), the entry
 * also holds the content's SHA-256 and is checked against the bytes on disk, until a check made
 * once the change is RACY_WINDOW_MS old settles it. Anything missing, corrupt or different is a
 * miss: the manifest is parsed again.
 *
 * It lives in the owner-only config dir: it holds what the manifests hold, private rows too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { readJson, readJsonRange, trustedPath } from './cache-files.js';
import { crypto, nameHash, sha256Hex } from './hashing.js';
import type { AgentRecord, FileStamp, LeftOut } from './manifest-file.js';
import { foldKey, isObject, newestFirst, type Entity, type Session } from './manifest.js';

/**
 * 3: parse errors are kept as short, line-free reasons (earlier entries could hold the parser's code frame).
 * 4: folder and bucket names from a 64-bit FNV-1a (no crypto module at start-up); sessions.json.
 * 5: sessions in parts by month, newest first (meta.months).
 * 6: the lookup buckets in one file, entities.jsonl, read by offset (meta.entityOffsets).
 * 7: folder and bucket names from SHA-256 (hashing.ts nameHash).
 * 8: the record's rows as the model read them, and what it left out, in rows.json (meta.rows).
 * 9: each row's level read under its manifest's visibility_policy (D19).
 * 10: a session recorded with an empty date is no longer a value left out (model.ts isRecordedUndated).
 * 11: values as Python's str() prints them (`True`, `2.0`, every digit), false type and summary left out.
 */
const CACHE_FORMAT = 11;
/** Lookup buckets per agent: a `find` reads one small bucket per agent. */
export const BUCKETS = 16;
/** Edits this close to the entry's writing are verified by content, not by stat alone. */
const RACY_WINDOW_MS = 2000;
/** The library-wide lookup's files in the cache folder (lookup.ts); entry folders are hex names. */
export const LOOKUP_FILES: readonly string[] = ['lookup.json', 'lookup.jsonl'];

/** The entry's meta.json as written; anything else on disk (corrupt, older or foreign) is a miss. */
export interface CacheMeta {
  format: number;
  agents: string;
  file: string;
  /** kind:size:mtime:ctime:inode of the manifest when the entry was written. */
  stamp: string;
  /** SHA-256 of the content, recorded only when the stamp alone could miss an edit. */
  sha: string | null;
  token: string;
  id: string | null;
  error: string | null;
  /** Whether doc.json holds the document (JSON cannot carry YAML's .inf and .nan). */
  doc: boolean;
  /** Whether rows.json holds the record's rows (its capabilities are raw values, JSON-safe or not). */
  rows: boolean;
  /** Each sessions part's newest month, newest first (`2026-11`); `undated` last when any row has no day. */
  months: string[];
  /** Where each lookup bucket's line starts in entities.jsonl, and where the last ends (BUCKETS + 1 offsets). */
  entityOffsets: number[];
}

const isText = (value: unknown): value is string => typeof value === 'string';
/** A sessions part's name: its newest month, or `undated` for rows whose date names no day. */
const SESSION_PART = /^(?:\d{4}-\d{2}|undated)$/;
const UNDATED = 'undated';
const isTextOrNull = (value: unknown): value is string | null => value === null || typeof value === 'string';
/** `length` byte offsets, each a whole number no smaller than the one before. */
export function isOffsetTable(value: unknown, length: number): value is number[] {
  return (
    Array.isArray(value) &&
    value.length === length &&
    value.every((offset, i) => Number.isSafeInteger(offset) && offset >= (i === 0 ? 0 : (value[i - 1] as number)))
  );
}

/**
 * meta.json's content as a CacheMeta, or null. Checked by hand rather than with zod: every
 * CLI query reads this module, and loading zod costs more than the lookup (bench/README.md).
 */
function asCacheMeta(data: unknown): CacheMeta | null {
  if (!isObject(data)) return null;
  const { format, agents, file, stamp, sha, token, id, error, doc, rows, months, entityOffsets } = data;
  if (typeof format !== 'number' || !isText(agents) || !isText(file) || !isText(stamp) || !isTextOrNull(sha))
    return null;
  if (!isText(token) || !isTextOrNull(id) || !isTextOrNull(error) || typeof doc !== 'boolean') return null;
  if (typeof rows !== 'boolean') return null;
  if (!Array.isArray(months) || !months.every((month) => isText(month) && SESSION_PART.test(month))) return null;
  if (!isOffsetTable(entityOffsets, id === null ? 0 : BUCKETS + 1)) return null;
  return { format, agents, file, stamp, sha, token, id, error, doc, rows, months, entityOffsets };
}

/**
 * What rows.json holds: a record's rows as the L5 model read them (every row, in file order) and
 * what the reading left out, so a warm full read neither runs the model nor loses its warning.
 */
export type StoredRows = Pick<
  AgentRecord,
  'agent' | 'last_updated' | 'capabilities' | 'entities' | 'sessions' | 'notes'
> & { leftOut: LeftOut | null };

/**
 * rows.json's content as StoredRows, or null. Checked to the shape of each part, not each row:
 * the file is this user's own (cache-files.ts) and carries the entry's token, as the lookup
 * buckets and sessions parts are.
 */
function asStoredRows(data: unknown, token: string): StoredRows | null {
  if (!isObject(data) || data.token !== token) return null;
  const { agent, last_updated, capabilities, entities, sessions, notes, leftOut } = data;
  if (!isObject(agent) || !isTextOrNull(last_updated)) return null;
  const { type, instance, role_narrative } = agent;
  if (!isTextOrNull(type) || !isTextOrNull(instance) || !isTextOrNull(role_narrative)) return null;
  if (!Array.isArray(capabilities) || !Array.isArray(entities) || !Array.isArray(sessions) || !Array.isArray(notes))
    return null;
  if (leftOut !== null && !isLeftOut(leftOut)) return null;
  return {
    agent: { type, instance, role_narrative },
    last_updated,
    capabilities,
    entities,
    sessions,
    notes,
    leftOut,
  };
}

function isLeftOut(value: unknown): value is LeftOut {
  return (
    isObject(value) &&
    Number.isSafeInteger(value.count) &&
    isObject(value.first) &&
    isText(value.first.field) &&
    isText(value.first.reason)
  );
}

/** Whether a manifest's last change is old enough that a later edit cannot share its stamp. */
export function settled(stamp: FileStamp): boolean {
  return stamp.changedMs < Date.now() - RACY_WINDOW_MS;
}

export function contentHash(text: string | Buffer): string {
  return sha256Hex(text);
}

function bucketOf(key: string): number {
  return Number.parseInt(nameHash(key).slice(-2), 16) % BUCKETS;
}

export class ParsedCache {
  constructor(
    readonly dir: string,
    readonly agentsDir: string,
  ) {}

  /** A manifest's entry folder. */
  entryDir(file: string): string {
    return path.join(this.dir, nameHash(file));
  }

  /** The entry of a manifest, when it describes the file as it is on disk now; else null. */
  meta(file: string, stamp: FileStamp): CacheMeta | null {
    // The folders too: in one others may write to, files could be renamed in from another entry.
    if (!trustedPath(this.dir) || !trustedPath(this.entryDir(file))) return null;
    const meta = asCacheMeta(readJson(path.join(this.entryDir(file), 'meta.json')));
    if (!meta) return null;
    if (meta.format !== CACHE_FORMAT || meta.agents !== this.agentsDir || meta.file !== file) return null;
    if (meta.stamp !== stamp.key) return null;
    if (meta.id === null && meta.error === null) return null;
    if (meta.sha !== null) {
      if (!this.contentIs(file, stamp, meta.sha)) return null;
      // Verified, and the last change is now well in the past: a later edit can no longer share
      // this stamp (writing moves ctime, which no one can set back), so the entry is settled
      // and stops costing a read and a hash of the whole manifest on every later query.
      if (settled(stamp)) return this.settle(meta);
    }
    return meta;
  }

  /** Whether a manifest's bytes on disk hash to `sha` (an entry written in the racy window). */
  contentIs(file: string, stamp: FileStamp, sha: string): boolean {
    if (stamp.kind !== 'file') return false;
    try {
      return contentHash(fs.readFileSync(path.join(this.agentsDir, file))) === sha;
    } catch {
      return false;
    }
  }

  /** The entry without its content hash, written back in place (best effort). */
  private settle(meta: CacheMeta): CacheMeta {
    const settled = { ...meta, sha: null };
    try {
      this.replaceFile(this.entryDir(meta.file), 'meta.json', settled);
    } catch {
      // read-only home: the entry stays verified by content, which is only slower
    }
    return settled;
  }

  /** The parsed document of a valid entry, or undefined. */
  doc(meta: CacheMeta): unknown {
    if (!meta.doc) return undefined;
    const data = readJson(path.join(this.entryDir(meta.file), 'doc.json'));
    if (!isObject(data) || data.token !== meta.token || !('doc' in data)) return undefined;
    return data.doc;
  }

  /** The record's rows and what their reading left out, from rows.json; null on a miss. */
  rows(meta: CacheMeta): StoredRows | null {
    if (!meta.rows) return null;
    return asStoredRows(readJson(path.join(this.entryDir(meta.file), 'rows.json')), meta.token);
  }

  /**
   * The agent's entities answering to a folded key, from its lookup bucket; null on a miss. The
   * entry's parts as its meta.json names them, or as the library-wide lookup recorded them.
   */
  entities(meta: Pick<CacheMeta, 'file' | 'token' | 'entityOffsets'>, key: string): Entity[] | null {
    const bucket = bucketOf(key);
    const data = readJsonRange(
      path.join(this.entryDir(meta.file), 'entities.jsonl'),
      meta.entityOffsets[bucket]!,
      meta.entityOffsets[bucket + 1]!,
    );
    if (!isObject(data) || data.token !== meta.token || !isObject(data.keys)) return null;
    const rows = Object.hasOwn(data.keys, key) ? data.keys[key] : [];
    return Array.isArray(rows) ? (rows as Entity[]) : null;
  }

  /**
   * Writes one manifest's entry: document, lookup buckets, then meta, and gives back the meta
   * written. Best effort: a cache that cannot be written only costs the next process a parse
   * (null).
   */
  write(
    file: string,
    stamp: FileStamp,
    sha: string | null,
    outcome:
      | { id: string; doc: unknown; entities: readonly Entity[]; sessions: readonly Session[]; rows?: StoredRows }
      | { error: string },
  ): CacheMeta | null {
    const writtenAt = Date.now();
    const token = crypto().randomBytes(8).toString('hex');
    const racy = stamp.changedMs >= writtenAt - RACY_WINDOW_MS;
    if (racy && sha === null) return null; // cannot vouch for this content later
    const meta: CacheMeta = {
      format: CACHE_FORMAT,
      agents: this.agentsDir,
      file,
      stamp: stamp.key,
      sha: racy ? sha : null,
      token,
      id: 'id' in outcome ? outcome.id : null,
      error: 'error' in outcome ? outcome.error : null,
      doc: false,
      rows: false,
      months: [],
      entityOffsets: [],
    };
    const dir = this.entryDir(file);
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      if ('id' in outcome) {
        if (jsonSafe(outcome.doc)) {
          this.writeFile(dir, 'doc.json', { token, doc: outcome.doc });
          meta.doc = true;
        }
        if (outcome.rows && jsonSafe(outcome.rows.capabilities)) {
          this.writeFile(dir, 'rows.json', { token, ...outcome.rows });
          meta.rows = true;
        }
        // Null-prototype maps: a name like "__proto__" is a key like any other.
        const buckets = Array.from({ length: BUCKETS }, () => Object.create(null) as Record<string, Entity[]>);
        for (const entity of outcome.entities) {
          const keys = new Set([foldKey(entity.name), ...entity.aliases.map(foldKey)]);
          for (const key of keys) {
            if (!key) continue;
            const bucket = buckets[bucketOf(key)]!;
            (Object.hasOwn(bucket, key) ? bucket[key]! : (bucket[key] = [])).push(entity);
          }
        }
        // One line per bucket; meta.json records where each starts, so a lookup reads its own.
        const lines = buckets.map((keys) => Buffer.from(JSON.stringify({ token, keys }) + '\n'));
        let offset = 0;
        meta.entityOffsets = [0, ...lines.map((line) => (offset += line.length))];
        fs.writeFileSync(path.join(dir, 'entities.jsonl'), Buffer.concat(lines), { mode: 0o600 });
        // Normalised sessions (text only, so always JSON-safe), newest first, in parts by month:
        // what `bourdon recent` reads, as far back as its window goes.
        for (const [month, sessions] of sessionParts(outcome.sessions)) {
          this.writeFile(dir, `sessions-${month}.json`, { token, sessions });
          meta.months.push(month);
        }
      }
      this.replaceFile(dir, 'meta.json', meta);
      // Parts this entry no longer has (a month whose sessions are gone, an older format's
      // files) carry another token and would never be read: remove them rather than keep them.
      const current = new Set([
        'meta.json',
        ...(meta.doc ? ['doc.json'] : []),
        ...(meta.rows ? ['rows.json'] : []),
        ...(meta.entityOffsets.length ? ['entities.jsonl'] : []),
        ...meta.months.map((month) => `sessions-${month}.json`),
      ]);
      for (const name of fs.readdirSync(dir)) {
        if (!current.has(name) && !name.endsWith('.tmp')) fs.rmSync(path.join(dir, name), { force: true });
      }
      return meta;
    } catch {
      return null; // read-only home, full disk: the cache is an optimisation only
    }
  }

  /** Every folded key the agent's entities answer to, from all its lookup buckets; null on a miss. */
  keys(meta: Pick<CacheMeta, 'file' | 'token' | 'entityOffsets'>): string[] | null {
    const offsets = meta.entityOffsets;
    if (offsets.length === 0) return [];
    const file = path.join(this.entryDir(meta.file), 'entities.jsonl');
    const data = readJsonRange(file, 0, offsets.at(-1)!, true);
    if (typeof data !== 'string') return null;
    const keys: string[] = [];
    for (const line of data.split('\n')) {
      if (!line) continue;
      let bucket: unknown;
      try {
        bucket = JSON.parse(line);
      } catch {
        return null;
      }
      if (!isObject(bucket) || bucket.token !== meta.token || !isObject(bucket.keys)) return null;
      keys.push(...Object.keys(bucket.keys));
    }
    return keys;
  }

  /**
   * The agent's normalised sessions newest first, as written with the entry: those of the months
   * from `since`'s on (undated rows only when there is no `since`, as no window holds them);
   * null on a miss.
   */
  sessions(meta: CacheMeta, since: string | null): Session[] | null {
    const parts: Session[][] = [];
    for (const month of meta.months) {
      if (since !== null && (month === UNDATED || month < since.slice(0, 7))) break;
      const data = readJson(path.join(this.entryDir(meta.file), `sessions-${month}.json`));
      if (!isObject(data) || data.token !== meta.token || !Array.isArray(data.sessions)) return null;
      parts.push(data.sessions as Session[]);
    }
    // concat, not push(...part): a part can hold more rows than a call may take arguments.
    return ([] as Session[]).concat(...parts);
  }

  /** Removes the entries of manifests no longer in the library (deleted or renamed). */
  prune(files: readonly string[]): void {
    // The lookup's files stay; a temp file a killed writer left does not (nor, rarely, one a
    // running writer is about to rename: its write is then lost, as a cache write may be).
    const keep = new Set([...files.map((file) => path.basename(this.entryDir(file))), ...LOOKUP_FILES]);
    try {
      for (const name of fs.readdirSync(this.dir)) {
        if (!keep.has(name)) fs.rmSync(path.join(this.dir, name), { recursive: true, force: true });
      }
    } catch {
      // best effort, like every cache write
    }
  }

  /**
   * Writes a part in place. A reader that meets it half-written gets JSON that does not parse,
   * and one that meets another write's part gets another token: a miss either way, so the
   * parts need no temp file and rename (a rename is most of a part's cost on a journalled disk).
   */
  private writeFile(dir: string, name: string, data: unknown): void {
    fs.writeFileSync(path.join(dir, name), JSON.stringify(data), { mode: 0o600 });
  }

  /** Replaces a file whole (temp file, then rename): meta.json is what makes the parts current. */
  replaceFile(dir: string, name: string, data: unknown): void {
    const target = path.join(dir, name);
    const temp = `${target}.${process.pid}.tmp`;
    fs.writeFileSync(temp, JSON.stringify(data), { mode: 0o600 });
    fs.renameSync(temp, target);
  }
}

/** The newest months that get a sessions part each; older months share one part. */
const MONTHS_APART = 3;

/**
 * Sessions newest first (the order every recency view uses, file order among equals) in parts:
 * one for each of the MONTHS_APART newest months, one for every older month, each named by its
 * newest month, and last the rows that name no day. A month is the first seven characters of
 * the row's day. Few files (every part is a write when the
 * manifest changes) and a window of the usual weeks reads the newest parts only.
 */
function sessionParts(sessions: readonly Session[]): [string, Session[]][] {
  const parts: [string, Session[]][] = [];
  let monthsSeen = 0;
  let lastMonth: string | null = null;
  const sorted = [...sessions].sort(newestFirst);
  // A row's part is named by the newest month of it and every row after it: rows sort by the
  // date as written, and a basic-format date (`20261204`) sorts above the dashed dates of its
  // year, so its month can be older than a later row's; reading stops at the first part older
  // than the window, which must then hold nothing newer.
  const months: string[] = new Array(sorted.length);
  let newest = '';
  for (let index = sorted.length - 1; index >= 0; index -= 1) {
    const day = sorted[index]!.day;
    if (day !== null && day.slice(0, 7) > newest) newest = day.slice(0, 7);
    months[index] = day === null ? UNDATED : newest;
  }
  for (const [index, session] of sorted.entries()) {
    const month = months[index]!;
    if (month !== lastMonth) {
      monthsSeen += 1;
      lastMonth = month;
      const older = month !== UNDATED && monthsSeen > MONTHS_APART + 1;
      if (!older) parts.push([month, []]);
    }
    parts.at(-1)![1].push(session);
  }
  return parts;
}

/**
 * Whether JSON round-trips a parsed document exactly: text, true/false, null, integers and the
 * lists and mappings of them. A float (PyFloat, `2.0` would come back as `2`), an integer past
 * 2^53 (PyInt), bytes or a set do not.
 */
function jsonSafe(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (Array.isArray(value)) return value.every(jsonSafe);
  if (isObject(value)) return Object.values(value).every(jsonSafe);
  return false;
}
