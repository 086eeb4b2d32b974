/**
 * The agent library on disk (spec §2) and its in-memory snapshot. Readers never lock: each
 * request asks for a snapshot, which costs a directory listing and one stat per manifest;
 * only files whose stat changed are parsed again, so edits by other processes show up on
 * the next request without a restart, and an unchanged library costs no parsing at all.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BourdonError, describeError } from '../errors.js';
import { isServedAgentId, isValidAgentId } from './ids.js';
import {
  asText,
  isObject,
  normaliseEntity,
  normaliseNote,
  normaliseSession,
  rawRows,
  type AgentInfo,
  type Entity,
  type Note,
  type RawObject,
  type Session,
} from './manifest.js';
import { parseYaml } from './yaml.js';

export const MANIFEST_SUFFIX = '.l5.yaml';
/** Larger files are refused unread: no real manifest comes near this (1,000 entities ≈ 0.3 MB). */
export const MAX_MANIFEST_BYTES = 8 * 1024 * 1024;

export interface AgentRecord {
  id: string;
  file: string;
  path: string;
  doc: RawObject;
  agent: AgentInfo;
  last_updated: string | null;
  capabilities: unknown[];
  entities: Entity[];
  sessions: Session[];
  notes: Note[];
}

export interface BrokenRecord {
  /** The file name's stem: broken manifests are still named in exports. */
  id: string;
  file: string;
  path: string;
  error: string;
}

export interface LibrarySnapshot {
  /** Increases whenever any manifest changed; derived indexes are cached per snapshot. */
  readonly generation: number;
  /** Readable manifests, sorted by agent id. */
  readonly agents: readonly AgentRecord[];
  readonly broken: readonly BrokenRecord[];
  readonly byId: ReadonlyMap<string, AgentRecord>;
}

export interface LibraryPaths {
  root: string;
  agents: string;
  staging: string;
  history: string;
  lock: string;
}

export function libraryPaths(root: string): LibraryPaths {
  const resolved = path.resolve(root);
  return {
    root: resolved,
    agents: path.join(resolved, 'agents'),
    staging: path.join(resolved, 'staging'),
    history: path.join(resolved, 'history'),
    lock: path.join(resolved, '.bourdon.lock'),
  };
}

interface CachedFile {
  key: string;
  outcome: { ok: true; record: AgentRecord } | { ok: false; broken: BrokenRecord };
}

/** On-disk form of the parsed-library cache: per file, its stat key and parsed document. */
interface PersistedCache {
  format: 1;
  agents: string;
  files: Record<string, { key: string; doc?: unknown; error?: string }>;
}

const CACHE_FORMAT = 1;

/** Where warnings go (stderr by default); one type for the whole core. */
export type { Warn } from './dates.js';
import type { Warn } from './dates.js';

export const stderrWarn: Warn = (message) => {
  process.stderr.write(`bourdon: warning: ${message}\n`);
};

/** Builds a record from manifest text; throws a one-line reason when it is not a manifest. */
export function parseManifest(text: string, file: string, filePath: string): AgentRecord {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (error) {
    throw new ManifestError((error as Error).message || String(error));
  }
  return recordFromDoc(doc, file, filePath);
}

/** Builds a record from a parsed document; throws a one-line reason when it is not a manifest. */
export function recordFromDoc(doc: unknown, file: string, filePath: string): AgentRecord {
  if (!isObject(doc)) throw new ManifestError('manifest is not a YAML mapping');
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
  const present = <T>(rows: (T | null)[]) => rows.filter((row): row is T => row !== null);
  return {
    id,
    file,
    path: filePath,
    doc,
    agent: {
      type: asText(agentBlock.type),
      instance: asText(agentBlock.instance),
      role_narrative: asText(agentBlock.role_narrative),
    },
    last_updated: asText(doc.last_updated),
    capabilities: Array.isArray(doc.capabilities) ? doc.capabilities : [],
    entities: present(rawRows(doc, 'known_entities').map(normaliseEntity)),
    sessions: present(rawRows(doc, 'recent_sessions').map(normaliseSession)),
    notes: present(rawRows(doc, 'notes').map(normaliseNote)),
  };
}

export class ManifestError extends Error {}

/** Whether JSON round-trips a parsed document exactly (YAML's .inf and .nan do not). */
function jsonSafe(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (Array.isArray(value)) return value.every(jsonSafe);
  if (isObject(value)) return Object.values(value).every(jsonSafe);
  return true;
}

export class L6Store {
  readonly paths: LibraryPaths;
  private readonly warn: Warn;
  private readonly cache = new Map<string, CachedFile>();
  private current: LibrarySnapshot | null = null;
  private generation = 0;

  /**
   * A parsed-library cache file for short-lived processes (the CLI): documents of files whose
   * stat is unchanged are read from it instead of re-parsing YAML. Entries are checked file by
   * file against size, mtime, ctime and inode, so the cache never serves stale data.
   */
  private readonly cachePath: string | null;
  private persisted: PersistedCache['files'] | null = null;

  constructor(root: string, options: { warn?: Warn; cachePath?: string | null } = {}) {
    this.paths = libraryPaths(root);
    this.warn = options.warn ?? stderrWarn;
    this.cachePath = options.cachePath ?? null;
  }

  /** Fails with a clear one-line error when the library root is missing or not a folder. */
  assertExists(): void {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(this.paths.root);
    } catch {
      throw new BourdonError(
        `library not found: ${this.paths.root} (set --library or BOURDON_LIBRARY, or run \`bourdon init\`)`,
      );
    }
    if (!stat.isDirectory()) throw new BourdonError(`library is not a folder: ${this.paths.root}`);
  }

  /** The library as it is on disk now. Cheap when nothing changed. */
  snapshot(): LibrarySnapshot {
    const files = this.listManifestFiles();
    let changed = this.current === null || files.length !== this.cache.size;
    let parsed = false;
    if (this.current === null) this.persisted = this.readPersisted();
    const seen = new Set<string>();
    for (const [file, key] of files) {
      seen.add(file);
      const cached = this.cache.get(file);
      if (cached && cached.key === key) continue;
      changed = true;
      const fromDisk = this.fromPersisted(file, key);
      if (fromDisk) {
        this.cache.set(file, { key, outcome: fromDisk });
        continue;
      }
      parsed = true;
      this.cache.set(file, { key, outcome: this.load(file) });
    }
    if (this.cachePath && (parsed || (this.persisted && Object.keys(this.persisted).length !== files.length))) {
      this.writePersisted();
    }
    this.persisted = null;
    for (const file of [...this.cache.keys()]) {
      if (!seen.has(file)) {
        this.cache.delete(file);
        changed = true;
      }
    }
    if (!changed && this.current) return this.current;
    this.current = this.assemble();
    return this.current;
  }

  private readPersisted(): PersistedCache['files'] | null {
    if (!this.cachePath) return null;
    try {
      const data = JSON.parse(fs.readFileSync(this.cachePath, 'utf8')) as PersistedCache;
      if (data.format !== CACHE_FORMAT || data.agents !== this.paths.agents || !isObject(data.files)) return null;
      return data.files;
    } catch {
      return null; // absent or unreadable: parse from the YAML as usual
    }
  }

  private fromPersisted(file: string, key: string): CachedFile['outcome'] | null {
    const entry = this.persisted?.[file];
    if (!entry || entry.key !== key) return null;
    const full = path.join(this.paths.agents, file);
    if (typeof entry.error === 'string') {
      this.warn(`skipping ${full}: ${entry.error.split('\n')[0]}`);
      return {
        ok: false,
        broken: { id: file.slice(0, -MANIFEST_SUFFIX.length), file, path: full, error: entry.error },
      };
    }
    try {
      return { ok: true, record: recordFromDoc(entry.doc, file, full) };
    } catch {
      return null;
    }
  }

  /** Best effort: a cache that cannot be written only costs the next process a parse. */
  private writePersisted(): void {
    if (!this.cachePath) return;
    const files: PersistedCache['files'] = {};
    for (const [file, cached] of this.cache) {
      if (!cached.outcome.ok) files[file] = { key: cached.key, error: cached.outcome.broken.error };
      else if (jsonSafe(cached.outcome.record.doc)) files[file] = { key: cached.key, doc: cached.outcome.record.doc };
      // else: a document JSON cannot carry exactly (.inf, .nan) is simply parsed again next time
    }
    try {
      fs.mkdirSync(path.dirname(this.cachePath), { recursive: true, mode: 0o700 });
      const temp = `${this.cachePath}.${process.pid}.tmp`;
      fs.writeFileSync(temp, JSON.stringify({ format: CACHE_FORMAT, agents: this.paths.agents, files }), {
        mode: 0o600,
      });
      fs.renameSync(temp, this.cachePath);
    } catch {
      // read-only home, full disk: the cache is an optimisation only
    }
  }

  /**
   * Forgets what was parsed for one manifest file (or all), so the next snapshot reads it
   * again even when a rewrite kept its size, mtime and inode number. Writers call this.
   */
  invalidate(file?: string): void {
    if (file === undefined) this.cache.clear();
    else this.cache.delete(file);
  }

  private listManifestFiles(): [string, string][] {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(this.paths.agents, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new BourdonError(`cannot read ${this.paths.agents}: ${describeError(error)}`);
    }
    const out: [string, string][] = [];
    for (const entry of entries) {
      if (!entry.name.endsWith(MANIFEST_SUFFIX)) continue;
      const full = path.join(this.paths.agents, entry.name);
      let stat: fs.Stats;
      try {
        stat = fs.lstatSync(full);
      } catch {
        continue; // removed between listing and stat
      }
      // Links are not followed: a link could point anywhere on the machine.
      const kind = stat.isSymbolicLink() ? 'link' : stat.isFile() ? 'file' : 'other';
      out.push([entry.name, `${kind}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.ino}`]);
    }
    out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return out;
  }

  private load(file: string): CachedFile['outcome'] {
    const full = path.join(this.paths.agents, file);
    const stem = file.slice(0, -MANIFEST_SUFFIX.length);
    const broken = (error: string): CachedFile['outcome'] => {
      this.warn(`skipping ${full}: ${error.split('\n')[0]}`);
      return { ok: false, broken: { id: stem, file, path: full, error } };
    };
    try {
      const stat = fs.lstatSync(full);
      if (stat.isSymbolicLink()) return broken('symbolic links are not read as manifests');
      if (!stat.isFile()) return broken('not a regular file');
      if (stat.size > MAX_MANIFEST_BYTES)
        return broken(`file is ${stat.size} bytes; the limit is ${MAX_MANIFEST_BYTES}`);
      const text = fs.readFileSync(full, 'utf8');
      return { ok: true, record: parseManifest(text, file, full) };
    } catch (error) {
      return broken(error instanceof ManifestError ? error.message : describeError(error));
    }
  }

  private assemble(): LibrarySnapshot {
    const byId = new Map<string, AgentRecord>();
    const broken: BrokenRecord[] = [];
    const files = [...this.cache.keys()].sort();
    // Two files declaring one id: the last file in sorted load order wins, as in the engine
    // (even when its last_updated is older); the other is skipped with a warning, and doctor
    // reports it.
    const records = files.map((file) => this.cache.get(file)!.outcome);
    for (const outcome of records) {
      if (!outcome.ok) {
        broken.push(outcome.broken);
        continue;
      }
      const record = outcome.record;
      const existing = byId.get(record.id);
      if (!existing) {
        byId.set(record.id, record);
        continue;
      }
      const [keep, drop] = [record, existing];
      byId.set(keep.id, keep);
      this.warn(`skipping ${drop.path}: duplicate agent id ${JSON.stringify(drop.id)} (also in ${keep.file})`);
    }
    const agents = [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    this.generation += 1;
    return { generation: this.generation, agents, broken, byId };
  }
}
