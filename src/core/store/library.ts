/**
 * The agent library on disk (spec §2) and its in-memory snapshot. Readers never lock. A
 * snapshot is cheap when nothing changed: a long-lived store (the server) asks freshness.ts
 * whether anything may have changed (the library's change stamp, the `agents/` folder's stat,
 * OS events), O(1) per request; other stores sweep every manifest's stat on every snapshot.
 * A sweep parses only files whose stat changed, so edits by other processes show up without a
 * restart, and an unchanged library costs no parsing at all.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BourdonError, describeError } from '../errors.js';
import { changeStampPath, LibraryFreshness, type FreshnessOptions } from './freshness.js';
import { foldKey, isObject, type RawObject } from './manifest.js';
import {
  fileStamp,
  ManifestError,
  MANIFEST_SUFFIX,
  parseDocument,
  parseManifest,
  readManifestFile,
  recordFromDoc,
  rereadDocument,
  type AgentRecord,
  type BrokenRecord,
} from './manifest-file.js';
import { contentHash, ParsedCache, type CacheMeta, type FileStamp } from './parsed-cache.js';
import { PulledManifests } from './pulled.js';

export {
  MANIFEST_SUFFIX,
  MAX_MANIFEST_BYTES,
  parseManifest,
  type AgentRecord,
  type BrokenRecord,
} from './manifest-file.js';

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
  /** The change stamp writers replace after every write (freshness.ts). */
  stamp: string;
}

export function libraryPaths(root: string): LibraryPaths {
  const resolved = path.resolve(root);
  return {
    root: resolved,
    agents: path.join(resolved, 'agents'),
    staging: path.join(resolved, 'staging'),
    history: path.join(resolved, 'history'),
    lock: path.join(resolved, '.bourdon.lock'),
    stamp: changeStampPath(resolved),
  };
}

interface CachedFile {
  key: string;
  outcome: Outcome;
}

type Outcome = { ok: true; record: AgentRecord } | { ok: false; broken: BrokenRecord };

export { stderrWarn, type Warn } from './warn.js';
import { stderrWarn, type Warn } from './warn.js';

export interface StoreOptions {
  warn?: Warn;
  /** The CLI's parsed-library cache (parsed-cache.ts); none when absent. */
  cachePath?: string | null;
  /**
   * Keep each record's raw document in memory, for a short-lived reader of every document
   * (doctor), which would otherwise parse each manifest twice. A server does not.
   */
  keepDocuments?: boolean;
  /**
   * Learn of changes from the change stamp, the folder's stat and OS events instead of a stat
   * of every manifest per snapshot (a server; freshness.ts). Absent: every snapshot sweeps.
   */
  freshness?: FreshnessOptions;
}

export class L6Store {
  readonly paths: LibraryPaths;
  private readonly warn: Warn;
  private readonly cache = new Map<string, CachedFile>();
  private current: LibrarySnapshot | null = null;
  private generation = 0;
  private readonly writing = new Set<string>(); // files held by holdWhileWriting

  /**
   * The parsed-library cache for short-lived processes (the CLI): per manifest, its parsed
   * document and lookup indexes, used only while the file is unchanged (parsed-cache.ts).
   */
  private readonly disk: ParsedCache | null;
  /** Set when this process parsed a manifest: the cache may hold entries of removed files. */
  private parsedAny = false;
  /** Raw documents of the loaded records, only when asked for (see StoreOptions.keepDocuments). */
  private readonly documents: WeakMap<AgentRecord, RawObject> | null;
  /** Other machines' manifests, pulled through sync, served beside the local ones. */
  private readonly pulled: PulledManifests<AgentRecord>;
  /** The change signals, for a long-lived store; null: every snapshot sweeps. */
  readonly freshness: LibraryFreshness | null;

  constructor(root: string, options: StoreOptions = {}) {
    this.paths = libraryPaths(root);
    this.warn = options.warn ?? stderrWarn;
    this.disk = options.cachePath ? new ParsedCache(options.cachePath, this.paths.agents) : null;
    this.documents = options.keepDocuments ? new WeakMap() : null;
    this.pulled = new PulledManifests(this.paths.root, parseManifest, this.warn);
    this.freshness = options.freshness
      ? new LibraryFreshness(this.paths.agents, this.paths.stamp, options.freshness)
      : null;
  }

  /** Stops watching the library (a server shutting down; tests). */
  close(): void {
    this.freshness?.close();
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
    if (this.current && this.freshness && !this.freshness.mayHaveChanged()) return this.current;
    // Taken before the listing: a change made while this sweep runs is seen by the next one.
    this.freshness?.swept();
    const files = this.listManifestFiles();
    let changed = this.current === null || files.length !== this.cache.size;
    const seen = new Set<string>();
    for (const [file, stamp] of files) {
      seen.add(file);
      const cached = this.cache.get(file);
      if (cached && (cached.key === stamp.key || this.writing.has(file))) continue;
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
    if (this.pulled.refresh()) changed = true;
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
    this.pulled.refresh();
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
    return rereadDocument(record);
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

  /** Snapshots keep `file`'s last record while this process's writer replaces it, until the release. */
  holdWhileWriting(file: string): () => void {
    this.writing.add(file);
    // Then the next snapshot looks at the file again (unless the writer adopted it: written()).
    return () => this.writing.delete(file) && this.freshness?.markDirty();
  }

  /**
   * Forgets what was parsed for one manifest file (or all), so the next snapshot reads it
   * again even when a rewrite kept its size, mtime and inode number. Writers call this.
   */
  invalidate(file?: string): void {
    if (file === undefined) this.cache.clear();
    else this.cache.delete(file);
    this.freshness?.markDirty();
  }

  /**
   * A writer replaced `file` with `data`, whose parsed document it holds (it proved the bytes
   * read back as that document). The new record takes the old one's place without a parse, here
   * and in the parsed cache at `cachePath` (the CLI's, when one is in use or given), so neither
   * this process nor the next one-shot read parses the manifest again. Only when the file on disk
   * is exactly `data`, checked between two stats: anything else (an edit by another tool in
   * between, an unreadable file) is left to the next load.
   */
  written(file: string, data: Buffer, doc: RawObject, cachePath: string | null): void {
    this.invalidate(file);
    const full = path.join(this.paths.agents, file);
    let record: AgentRecord;
    let stamp: FileStamp | null;
    try {
      stamp = fileStamp(full);
      if (stamp?.kind !== 'file' || !readManifestFile(full).equals(data)) return;
      record = recordFromDoc(doc, file, full);
      if (fileStamp(full)?.key !== stamp.key) return;
    } catch {
      return; // the next snapshot parses the file
    }
    this.documents?.set(record, doc);
    this.cache.set(file, { key: stamp.key, outcome: { ok: true, record } });
    this.current = null; // the next snapshot is assembled with the new record
    const disk = this.disk ?? (cachePath ? new ParsedCache(cachePath, this.paths.agents) : null);
    // The stamp is seconds old at most, so the entry carries the content hash and is checked by it.
    disk?.write(file, stamp, contentHash(data), {
      id: record.id,
      doc,
      entities: record.entities,
      sessions: record.sessions,
    });
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
      const stamp = fileStamp(path.join(this.paths.agents, entry.name));
      if (stamp) out.push([entry.name, stamp]); // else removed between listing and stat
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
    // Pulled agents after the local ones: a local manifest is never shadowed by a pulled one.
    for (const record of this.pulled.records()) {
      if (byId.has(record.id))
        this.warn(`skipping ${record.path}: a local manifest declares ${JSON.stringify(record.id)}`);
      else byId.set(record.id, record);
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
