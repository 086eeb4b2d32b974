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
  foldKey,
  interner,
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
import { contentHash, ParsedCache, type CacheMeta, type FileStamp } from './parsed-cache.js';
import { parseYaml, yamlErrorReason } from './yaml.js';

export const MANIFEST_SUFFIX = '.l5.yaml';
/** Larger files are refused unread: no real manifest comes near this (1,000 entities ≈ 0.3 MB). */
export const MAX_MANIFEST_BYTES = 8 * 1024 * 1024;

export interface AgentRecord {
  id: string;
  file: string;
  path: string;
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
  outcome: Outcome;
}

type Outcome = { ok: true; record: AgentRecord } | { ok: false; broken: BrokenRecord };

export { stderrWarn, type Warn } from './warn.js';
import { stderrWarn, type Warn } from './warn.js';

/**
 * Builds a record from manifest text or bytes (UTF-8); throws a one-line reason when it is not
 * a manifest.
 */
export function parseManifest(text: string | Buffer, file: string, filePath: string): AgentRecord {
  return recordFromDoc(parseDocument(text), file, filePath);
}

function parseDocument(text: string | Buffer): unknown {
  try {
    return parseYaml(text);
  } catch (error) {
    throw new ManifestError(yamlErrorReason(error));
  }
}

/** A manifest file's bytes; refuses links, other kinds of file and oversized files unread. */
function readManifestFile(full: string): Buffer {
  const stat = fs.lstatSync(full);
  if (stat.isSymbolicLink()) throw new ManifestError('symbolic links are not read as manifests');
  if (!stat.isFile()) throw new ManifestError('not a regular file');
  if (stat.size > MAX_MANIFEST_BYTES)
    throw new ManifestError(`file is ${stat.size} bytes; the limit is ${MAX_MANIFEST_BYTES}`);
  return fs.readFileSync(full);
}

/** Builds a record from a parsed document; throws a one-line reason when it is not a manifest. */
function recordFromDoc(doc: unknown, file: string, filePath: string): AgentRecord {
  if (!isObject(doc)) throw new ManifestError('manifest is not a YAML mapping');
  const agentBlock = isObject(doc.agent) ? doc.agent : {};
  const present = <T>(rows: (T | null)[]) => rows.filter((row): row is T => row !== null);
  const intern = interner();
  return {
    id: agentIdOf(doc, file),
    file,
    path: filePath,
    agent: {
      type: asText(agentBlock.type),
      instance: asText(agentBlock.instance),
      role_narrative: asText(agentBlock.role_narrative),
    },
    last_updated: asText(doc.last_updated),
    capabilities: Array.isArray(doc.capabilities) ? doc.capabilities : [],
    entities: present(rawRows(doc, 'known_entities').map((row) => normaliseEntity(row, intern))),
    sessions: present(rawRows(doc, 'recent_sessions').map((row) => normaliseSession(row, intern))),
    notes: present(rawRows(doc, 'notes').map((row) => normaliseNote(row, intern))),
  };
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

class ManifestError extends Error {}

export interface StoreOptions {
  warn?: Warn;
  /** The CLI's parsed-library cache (parsed-cache.ts); none when absent. */
  cachePath?: string | null;
  /**
   * Keep each record's raw document in memory, for a short-lived reader of every document
   * (doctor), which would otherwise parse each manifest twice. A server does not.
   */
  keepDocuments?: boolean;
}

export class L6Store {
  readonly paths: LibraryPaths;
  private readonly warn: Warn;
  private readonly cache = new Map<string, CachedFile>();
  private current: LibrarySnapshot | null = null;
  private generation = 0;

  /**
   * The parsed-library cache for short-lived processes (the CLI): per manifest, its parsed
   * document and lookup indexes, used only while the file is unchanged (parsed-cache.ts).
   */
  private readonly disk: ParsedCache | null;
  /** Set when this process parsed a manifest: the cache may hold entries of removed files. */
  private parsedAny = false;
  /** Raw documents of the loaded records, only when asked for (see StoreOptions.keepDocuments). */
  private readonly documents: WeakMap<AgentRecord, RawObject> | null;

  constructor(root: string, options: StoreOptions = {}) {
    this.paths = libraryPaths(root);
    this.warn = options.warn ?? stderrWarn;
    this.disk = options.cachePath ? new ParsedCache(options.cachePath, this.paths.agents) : null;
    this.documents = options.keepDocuments ? new WeakMap() : null;
  }

  /** Fails with a clear one-line error when the library root is missing or not a folder. */
  assertExists(): void {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(this.paths.root);
    } catch {
      throw new BourdonError(
        `library not found: ${this.paths.root} (set --library or BOURDON_LIBRARY, or run \`bourdon init\`)`,
        'not_found',
      );
    }
    if (!stat.isDirectory()) throw new BourdonError(`library is not a folder: ${this.paths.root}`, 'invalid_input');
  }

  /** The library as it is on disk now. Cheap when nothing changed. */
  snapshot(): LibrarySnapshot {
    const files = this.listManifestFiles();
    let changed = this.current === null || files.length !== this.cache.size;
    const seen = new Set<string>();
    for (const [file, stamp] of files) {
      seen.add(file);
      const cached = this.cache.get(file);
      if (cached && cached.key === stamp.key) continue;
      changed = true;
      this.cache.set(file, { key: stamp.key, outcome: this.fromDisk(file, stamp) ?? this.load(file, stamp) });
    }
    for (const file of [...this.cache.keys()]) {
      if (!seen.has(file)) {
        this.cache.delete(file);
        changed = true;
      }
    }
    if (this.parsedAny) {
      this.disk?.prune(files.map(([file]) => file));
      this.parsedAny = false;
    }
    if (!changed && this.current) return this.current;
    const outcomes = [...this.cache.keys()].sort().map((file) => this.cache.get(file)!.outcome);
    this.generation += 1;
    this.current = this.assemble(outcomes, this.generation);
    return this.current;
  }

  /**
   * The library as one read of a one-shot process sees it (see LibraryView), from the parsed
   * cache's small per-agent parts instead of whole documents; what the view does not name is
   * left empty, so only the operations the view is made for may read this snapshot. Agents
   * whose part is missing are read whole (and their entry written afresh). Null without a
   * parsed cache.
   */
  partialSnapshot(view: LibraryView): LibrarySnapshot | null {
    if (!this.disk) return null;
    const disk = this.disk;
    const key = typeof view === 'object' && 'entity' in view ? foldKey(view.entity) : '';
    const rowsOf = (meta: CacheMeta): Partial<Pick<AgentRecord, 'entities' | 'sessions'>> | null => {
      if (view === 'ids') return {};
      if ('sessionsSince' in view) {
        const sessions = disk.sessions(meta, view.sessionsSince);
        return sessions && { sessions };
      }
      const entities = disk.entities(meta, key);
      return entities && { entities };
    };
    const outcomes: Outcome[] = [];
    const files = this.listManifestFiles();
    for (const [file, stamp] of files) {
      const meta = disk.meta(file, stamp);
      const full = path.join(this.paths.agents, file);
      if (meta?.error != null) {
        outcomes.push(this.brokenOutcome(file, meta.error));
        continue;
      }
      const rows = meta && meta.id !== null ? rowsOf(meta) : null;
      if (meta && meta.id !== null && rows) {
        outcomes.push({
          ok: true,
          record: {
            id: meta.id,
            file,
            path: full,
            agent: { type: null, instance: null, role_narrative: null },
            last_updated: null,
            capabilities: [],
            entities: [],
            sessions: [],
            notes: [],
            ...rows,
          },
        });
        continue;
      }
      // No usable entry: read the manifest (from the cached document when only a part is
      // missing) and write its entry afresh.
      const fromDoc = meta ? this.fromDisk(file, stamp, true) : null;
      outcomes.push(fromDoc ?? this.load(file, stamp));
    }
    if (this.parsedAny) {
      disk.prune(files.map(([file]) => file));
      this.parsedAny = false;
    }
    return this.assemble(outcomes, 0);
  }

  /**
   * A loaded agent's raw document, for the few readers that need more than the normalised rows
   * (the manifest resource, doctor). Snapshots do not hold raw documents, which would double a
   * server's memory: unless the store keeps them, the file is read and parsed again, with the
   * checks a load makes. That is the file as it is now, newer than the record if it changed
   * since. Throws a one-line error when the file can no longer be read as this agent's manifest.
   */
  document(record: AgentRecord): RawObject {
    const kept = this.documents?.get(record);
    if (kept) return kept;
    try {
      const doc = parseDocument(readManifestFile(record.path));
      if (!isObject(doc)) throw new ManifestError('manifest is not a YAML mapping');
      const id = agentIdOf(doc, record.file);
      if (id !== record.id) throw new ManifestError(`it now declares agent id ${JSON.stringify(id)}`);
      return doc;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
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

  /** partialSnapshot for one entity lookup (find_entity, query_agent_memory). */
  entityLookupSnapshot(name: string): LibrarySnapshot | null {
    return this.partialSnapshot({ entity: name });
  }

  private brokenOutcome(file: string, error: string): Outcome {
    const full = path.join(this.paths.agents, file);
    this.warn(`skipping ${full}: ${error.split('\n')[0]}`);
    return { ok: false, broken: { id: file.slice(0, -MANIFEST_SUFFIX.length), file, path: full, error } };
  }

  /** A manifest's outcome from the parsed cache, or null on a miss. */
  private fromDisk(file: string, stamp: FileStamp, rewrite = false): Outcome | null {
    const meta = this.disk?.meta(file, stamp);
    if (!this.disk || !meta) return null;
    if (meta.error !== null) return this.brokenOutcome(file, meta.error);
    const doc = this.disk.doc(meta);
    if (doc === undefined) return null;
    let record: AgentRecord;
    try {
      record = recordFromDoc(doc, file, path.join(this.paths.agents, file));
    } catch {
      return null;
    }
    if (isObject(doc)) this.documents?.set(record, doc);
    if (rewrite)
      this.disk.write(file, stamp, meta.sha, {
        id: record.id,
        doc,
        entities: record.entities,
        sessions: record.sessions,
      });
    return { ok: true, record };
  }

  /**
   * Forgets what was parsed for one manifest file (or all), so the next snapshot reads it
   * again even when a rewrite kept its size, mtime and inode number. Writers call this.
   */
  invalidate(file?: string): void {
    if (file === undefined) this.cache.clear();
    else this.cache.delete(file);
  }

  private listManifestFiles(): [string, FileStamp][] {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(this.paths.agents, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new BourdonError(`cannot read ${this.paths.agents}: ${describeError(error)}`);
    }
    const out: [string, FileStamp][] = [];
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
      out.push([
        entry.name,
        {
          key: `${kind}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.ino}`,
          changedMs: Math.max(stat.mtimeMs, stat.ctimeMs),
          kind,
        },
      ]);
    }
    out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return out;
  }

  /** Parses a manifest from disk (and records it in the parsed cache, when there is one). */
  private load(file: string, stamp: FileStamp): Outcome {
    const full = path.join(this.paths.agents, file);
    let sha: string | null = null;
    const broken = (error: string): Outcome => {
      this.disk?.write(file, stamp, sha, { error });
      return this.brokenOutcome(file, error);
    };
    try {
      const bytes = readManifestFile(full);
      if (this.disk) {
        sha = contentHash(bytes);
        this.parsedAny = true;
      }
      const doc = parseDocument(bytes);
      const record = recordFromDoc(doc, file, full);
      // recordFromDoc has checked that the document is a mapping.
      this.documents?.set(record, doc as RawObject);
      this.disk?.write(file, stamp, sha, {
        id: record.id,
        doc,
        entities: record.entities,
        sessions: record.sessions,
      });
      return { ok: true, record };
    } catch (error) {
      return broken(error instanceof ManifestError ? error.message : describeError(error));
    }
  }

  private assemble(records: readonly Outcome[], generation: number): LibrarySnapshot {
    const byId = new Map<string, AgentRecord>();
    const broken: BrokenRecord[] = [];
    // Two files declaring one id: the last file in sorted load order wins, as in the engine
    // (even when its last_updated is older); the other is skipped with a warning, and doctor
    // reports it.
    const fileOf = (outcome: Outcome) => (outcome.ok ? outcome.record.file : outcome.broken.file);
    const inLoadOrder = [...records].sort((a, b) => (fileOf(a) < fileOf(b) ? -1 : fileOf(a) > fileOf(b) ? 1 : 0));
    for (const outcome of inLoadOrder) {
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
    return { generation, agents, broken, byId };
  }
}

/**
 * What a one-shot command reads of each agent: the entities one name finds (`find`, `query`),
 * the sessions newest first back to a day (`recent`: its window's first day, or null for all
 * of them; older sessions may be left out, undated ones are unless null), or only which agents
 * there are (`agents --json`).
 */
export type LibraryView = { entity: string } | { sessionsSince: string | null } | 'ids';

/**
 * A store for one read in a one-shot process: its snapshot is the view's partial one when a
 * parsed cache is available, else the full one.
 */
export class PartialLibraryStore extends L6Store {
  private partial: LibrarySnapshot | null = null;

  constructor(
    root: string,
    private readonly view: LibraryView,
    options: StoreOptions = {},
  ) {
    super(root, options);
  }

  override snapshot(): LibrarySnapshot {
    this.partial ??= this.partialSnapshot(this.view) ?? super.snapshot();
    return this.partial;
  }
}
