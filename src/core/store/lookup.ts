/**
 * The parsed cache's library-wide name lookup, so a one-shot `find` or `query` reads O(1) cache
 * files whatever the library's size: this lookup's header, one of its name buckets, then the
 * lookup bucket of each agent the name finds (O(answer)), instead of an entry per agent. Every
 * manifest's stat is still compared with the header (one readdir and one lstat each, nothing
 * read): that is how an edit by another tool is seen, which bumps no change stamp and which a
 * one-shot process has no watcher for.
 *
 * Two files in the cache folder: `lookup.json`, the header (format, the agents folder, a token,
 * each manifest's file name, stat stamp, content hash while racy, id or error, and its entry's
 * token and bucket offsets, which bind the lookup to that very entry; then where each name
 * bucket starts in lookup.jsonl), and `lookup.jsonl`, the name buckets (one JSON line each:
 * folded key → indexes into the header's files, and the token). The header is written last, by
 * rename; a line of another write carries another token; anything untrusted, corrupt, stale or
 * mismatched is a miss, answered from the per-manifest entries. A file changed or added since
 * the lookup was written (an edit, a commit) is read from its own entry beside it; once more
 * than a few are (MIN_STALE, STALE_SHARE), the read that finds it so writes it afresh.
 */
import fs from 'node:fs';
import path from 'node:path';
import { crypto, nameHash } from './hashing.js';
import { foldKey, isObject, type Entity } from './manifest.js';
import type { FileStamp } from './manifest-file.js';
import { readJson, readJsonRange, trustedPath } from './cache-files.js';
import { BUCKETS, isOffsetTable, LOOKUP_FILES, settled, type CacheMeta, type ParsedCache } from './parsed-cache.js';

const [HEADER, BUCKET_FILE] = LOOKUP_FILES as [string, string];
/** 3: the entries' rows read under their manifest's visibility_policy (parsed-cache.ts format 9). */
const LOOKUP_FORMAT = 3;
/** Name buckets: about this many keys each, a power of two between the bounds. */
const KEYS_PER_BUCKET = 256;
const MIN_BUCKETS = 16;
const MAX_BUCKETS = 4096;
/**
 * Stale files a lookup still serves the rest of the library beside (each read from its own
 * entry: two small files), at least MIN_STALE and one in STALE_SHARE of the library; beyond that
 * the read that finds it so writes it afresh. A commit or an edit so costs the next read one
 * entry, not a rewrite of the whole lookup.
 */
const MIN_STALE = 8;
const STALE_SHARE = 16;

/** One manifest as the lookup recorded it: what its entry's meta.json held when the lookup was written. */
export type LookupFile = Pick<CacheMeta, 'file' | 'stamp' | 'sha' | 'id' | 'error' | 'token' | 'entityOffsets'>;

export interface LookupHeader {
  format: number;
  agents: string;
  token: string;
  /** Sorted by file name, as a listing of the library is. */
  files: LookupFile[];
  /** Where each name bucket's line starts in lookup.jsonl, and where the last ends. */
  offsets: number[];
}

/** A header with which files of the library it still describes (NameLookup.usable). */
export interface LookupState {
  header: LookupHeader;
  /** File name → its index in header.files, for the files the header still describes. */
  current: ReadonlyMap<string, number>;
  /** The files it does not describe (changed or added since), with their stamps now. */
  stale: readonly [string, FileStamp][];
}

/** What the header holds per file, as a JSON array: [file, stamp, sha, id, error, token, entityOffsets]. */
type FileRow = [string, string, string | null, string | null, string | null, string, number[]];

const isText = (value: unknown): value is string => typeof value === 'string';
const isTextOrNull = (value: unknown): value is string | null => value === null || typeof value === 'string';

function asLookupFile(row: unknown): LookupFile | null {
  if (!Array.isArray(row) || row.length !== 7) return null;
  const [file, stamp, sha, id, error, token, entityOffsets] = row as unknown[];
  if (!isText(file) || !isText(stamp) || !isTextOrNull(sha) || !isTextOrNull(id) || !isTextOrNull(error)) return null;
  if ((id === null) === (error === null) || !isText(token)) return null;
  if (!isOffsetTable(entityOffsets, id === null ? 0 : BUCKETS + 1)) return null;
  return { file, stamp, sha, id, error, token, entityOffsets };
}

function asHeader(data: unknown, agents: string): LookupHeader | null {
  if (!isObject(data) || data.format !== LOOKUP_FORMAT || data.agents !== agents || !isText(data.token)) return null;
  if (!Array.isArray(data.files) || !Array.isArray(data.offsets)) return null;
  const files: LookupFile[] = [];
  for (const row of data.files) {
    const file = asLookupFile(row);
    if (!file || (files.length > 0 && files.at(-1)!.file >= file.file)) return null;
    files.push(file);
  }
  const buckets = data.offsets.length - 1;
  if (buckets < MIN_BUCKETS || buckets > MAX_BUCKETS || !isOffsetTable(data.offsets, buckets + 1)) return null;
  return { format: LOOKUP_FORMAT, agents, token: data.token, files, offsets: data.offsets };
}

const rowOf = (f: LookupFile): FileRow => [f.file, f.stamp, f.sha, f.id, f.error, f.token, f.entityOffsets];

function bucketIndex(key: string, buckets: number): number {
  return Number.parseInt(nameHash(key).slice(-8), 16) % buckets;
}

/** The keys an agent's entities answer to (as the entry's lookup buckets hold them). */
export function entityKeys(entities: readonly Entity[]): Set<string> {
  const keys = new Set<string>();
  for (const entity of entities) {
    for (const text of [entity.name, ...entity.aliases]) {
      const key = foldKey(text);
      if (key) keys.add(key);
    }
  }
  return keys;
}

export function lookupFileOf(meta: CacheMeta): LookupFile {
  const { file, stamp, sha, id, error, token, entityOffsets } = meta;
  return { file, stamp, sha, id, error, token, entityOffsets };
}

export class NameLookup {
  constructor(private readonly cache: ParsedCache) {}

  private get headerPath(): string {
    return path.join(this.cache.dir, HEADER);
  }

  private get bucketPath(): string {
    return path.join(this.cache.dir, BUCKET_FILE);
  }

  /** The header as written, when trusted and well-formed; not compared with the library. */
  private header(): LookupHeader | null {
    if (!trustedPath(this.cache.dir)) return null;
    return asHeader(readJson(this.headerPath), this.cache.agentsDir);
  }

  /**
   * The header, and which of `files` (every manifest now, sorted, with its stamp) it still
   * describes: a file whose stamp it recorded (and, for an entry recorded in the racy window,
   * whose content still hashes as recorded) is current; the others — changed, added — are stale
   * and read from their own entries. Null when there is no usable header, or when more than
   * the limit (MIN_STALE, STALE_SHARE) are stale (the caller writes it afresh). Entries checked by content are
   * settled (their hash dropped, the header written back) once their change is old enough.
   */
  usable(files: readonly (readonly [string, FileStamp])[]): LookupState | null {
    const header = this.header();
    if (!header) return null;
    const recorded = new Map(header.files.map((file, at) => [file.file, at]));
    const current = new Map<string, number>();
    const stale: [string, FileStamp][] = [];
    const limit = Math.max(MIN_STALE, Math.floor(files.length / STALE_SHARE));
    let settledAny = false;
    for (const [file, stamp] of files) {
      const at = recorded.get(file);
      const entry = at === undefined ? undefined : header.files[at]!;
      let fresh = entry !== undefined && entry.stamp === stamp.key;
      if (fresh && entry!.sha !== null) {
        fresh = this.cache.contentIs(file, stamp, entry!.sha);
        if (fresh && settled(stamp)) {
          header.files[at!] = { ...entry!, sha: null };
          settledAny = true;
        }
      }
      if (fresh) current.set(file, at!);
      else if (stale.push([file, stamp]) > limit) return null;
    }
    if (settledAny) this.writeHeader(header);
    return { header, current, stale };
  }

  /** The indexes (into header.files) of the manifests with an entity answering to `key`; null on a miss. */
  holders(header: LookupHeader, key: string): number[] | null {
    const bucket = bucketIndex(key, header.offsets.length - 1);
    const data = readJsonRange(this.bucketPath, header.offsets[bucket]!, header.offsets[bucket + 1]!);
    if (!isObject(data) || data.token !== header.token || !isObject(data.keys)) return null;
    const found = Object.hasOwn(data.keys, key) ? data.keys[key] : [];
    const valid =
      Array.isArray(found) &&
      found.every((at) => Number.isSafeInteger(at) && at >= 0 && at < header.files.length && header.files[at]!.id);
    return valid ? (found as number[]) : null;
  }

  /** The whole lookup as written (each file with the keys it answers to), to refresh it; null on a miss. */
  read(): { file: LookupFile; keys: string[] }[] | null {
    const header = this.header();
    if (!header) return null;
    const text = readJsonRange(this.bucketPath, 0, header.offsets.at(-1)!, true);
    if (typeof text !== 'string') return null;
    const out = header.files.map((file) => ({ file, keys: [] as string[] }));
    try {
      for (const line of text.split('\n')) {
        if (!line) continue;
        const data: unknown = JSON.parse(line);
        if (!isObject(data) || data.token !== header.token || !isObject(data.keys)) return null;
        for (const [key, holders] of Object.entries(data.keys)) {
          if (!Array.isArray(holders)) return null;
          for (const at of holders) {
            if (!Number.isSafeInteger(at) || !out[at]) return null;
            out[at].keys.push(key);
          }
        }
      }
    } catch {
      return null;
    }
    return out;
  }

  /**
   * Writes the lookup of these manifests (each with every key its entities answer to): the name
   * buckets, then the header. Best effort, like every cache write.
   */
  write(entries: readonly { file: LookupFile; keys: Iterable<string> }[]): void {
    const sorted = [...entries].sort((a, b) => (a.file.file < b.file.file ? -1 : a.file.file > b.file.file ? 1 : 0));
    const holders = new Map<string, number[]>();
    sorted.forEach(({ keys }, at) => {
      for (const key of keys) {
        const list = holders.get(key);
        if (list) list.push(at);
        else holders.set(key, [at]);
      }
    });
    let count = MIN_BUCKETS;
    while (count < MAX_BUCKETS && count * KEYS_PER_BUCKET < holders.size) count *= 2;
    // Null-prototype maps: a name like "__proto__" is a key like any other.
    const buckets = Array.from({ length: count }, () => Object.create(null) as Record<string, number[]>);
    for (const [key, list] of holders) buckets[bucketIndex(key, count)]![key] = list;
    const token = crypto().randomBytes(8).toString('hex');
    const lines = buckets.map((keys) => Buffer.from(JSON.stringify({ token, keys }) + '\n'));
    let offset = 0;
    const offsets = [0, ...lines.map((line) => (offset += line.length))];
    try {
      fs.mkdirSync(this.cache.dir, { recursive: true, mode: 0o700 });
      // Whole, by rename (two readers refreshing at once must not interleave their lines); a
      // reader that meets it with another write's header gets a token mismatch, a miss.
      const temp = `${this.bucketPath}.${process.pid}.tmp`;
      fs.writeFileSync(temp, Buffer.concat(lines), { mode: 0o600 });
      fs.renameSync(temp, this.bucketPath);
      this.writeHeader({
        format: LOOKUP_FORMAT,
        agents: this.cache.agentsDir,
        token,
        files: sorted.map(({ file }) => file),
        offsets,
      });
    } catch {
      // read-only home, full disk: the per-manifest entries answer
    }
  }

  private writeHeader(header: LookupHeader): void {
    try {
      this.cache.replaceFile(this.cache.dir, HEADER, { ...header, files: header.files.map(rowOf) });
    } catch {
      // best effort
    }
  }
}
