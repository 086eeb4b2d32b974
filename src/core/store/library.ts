/**
 * The agent library's store: the in-memory snapshot queries read, kept fresh. Readers never
 * lock. A snapshot is cheap when nothing changed: a long-lived store (the server) asks
 * freshness.ts whether anything may have changed (the library's change stamp, the `agents/`
 * folder's stat, OS events), O(1) per request; other stores sweep every manifest's stat on every
 * snapshot. A sweep parses only files whose stat changed, so edits by other processes show up
 * without a restart, and an unchanged library costs no parsing at all. Where the parts live is
 * paths.ts, how a file is loaded loader.ts, how outcomes make a snapshot snapshot.ts, and the
 * one-shot CLI's partial snapshots partial-store.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BourdonError } from '../errors.js';
import { LibraryFreshness, type FreshnessOptions } from './freshness.js';
import { entryRows, ManifestLoader } from './loader.js';
import { type RawObject } from './manifest.js';
import {
  fileStamp,
  readManifestFile,
  readRecord,
  rereadDocument,
  type AgentRecord,
  type FileStamp,
  type LeftOut,
} from './manifest-file.js';
import { contentHash, ParsedCache } from './parsed-cache.js';
import { libraryPaths, type LibraryPaths } from './paths.js';
import { PulledManifests } from './pulled-store.js';
import { assembleSnapshot, type LibrarySnapshot, type Outcome } from './snapshot.js';
import { stderrWarn, type Warn } from './warn.js';

// The store's public face: what callers of the store name along with it.
export {
  MANIFEST_SUFFIX,
  MAX_MANIFEST_BYTES,
  parseManifest,
  type AgentRecord,
  type BrokenRecord,
} from './manifest-file.js';
export { libraryPaths, type LibraryPaths } from './paths.js';
export type { LibrarySnapshot } from './snapshot.js';
export { stderrWarn, type Warn } from './warn.js';

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

interface CachedFile {
  key: string;
  outcome: Outcome;
}

export class LibraryStore {
  readonly paths: LibraryPaths;
  protected readonly warn: Warn;
  /** Reads manifests, through the parsed cache for short-lived processes (the CLI). */
  protected readonly loader: ManifestLoader;
  /** Other machines' manifests, pulled through sync, served beside the local ones. */
  protected readonly pulled: PulledManifests;
  /** The change signals, for a long-lived store; null: every snapshot sweeps. */
  readonly freshness: LibraryFreshness | null;
  private readonly cache = new Map<string, CachedFile>();
  private current: LibrarySnapshot | null = null;
  private generation = 0;
  private readonly writing = new Set<string>(); // files held by holdWhileWriting

  constructor(root: string, options: StoreOptions = {}) {
    this.paths = libraryPaths(root);
    this.warn = options.warn ?? stderrWarn;
    this.loader = new ManifestLoader(
      this.paths.agents,
      options.cachePath ? new ParsedCache(options.cachePath, this.paths.agents) : null,
      this.warn,
      options.keepDocuments ? new WeakMap() : null,
    );
    this.pulled = new PulledManifests(
      this.paths.root,
      this.warn,
      options.cachePath ? `${options.cachePath}-pulled` : null,
    );
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
    try {
      return this.sweep();
    } catch (error) {
      // A sweep that failed saw nothing: the next request must sweep again, not trust the
      // signals recorded above (a sweep that threw in the background would hide the change).
      this.freshness?.markDirty();
      throw error;
    }
  }

  private sweep(): LibrarySnapshot {
    const files = this.loader.list();
    let changed = this.current === null || files.length !== this.cache.size;
    const seen = new Set<string>();
    for (const [file, stamp] of files) {
      seen.add(file);
      const cached = this.cache.get(file);
      if (cached && (cached.key === stamp.key || this.writing.has(file))) continue;
      changed = true;
      const outcome = this.loader.fromCache(file, stamp) ?? this.loader.load(file, stamp);
      this.cache.set(file, { key: stamp.key, outcome });
    }
    for (const file of [...this.cache.keys()]) {
      if (!seen.has(file)) {
        this.cache.delete(file);
        changed = true;
      }
    }
    this.loader.pruneCache(files);
    if (this.pulled.refresh()) changed = true;
    if (!changed && this.current) return this.current;
    const outcomes = [...this.cache.values()].map((cached) => cached.outcome);
    this.generation += 1;
    this.current = assembleSnapshot(outcomes, this.pulled.records(), this.generation, this.warn);
    return this.current;
  }

  /**
   * A loaded agent's raw document, for the few readers that need more than the normalised rows
   * (the manifest resource, doctor). Snapshots do not hold raw documents, which would double a
   * server's memory: unless the store keeps them, the file is read and parsed again, with the
   * checks a load makes. That is the file as it is now, newer than the record if it changed
   * since. Throws a one-line error when the file can no longer be read as this agent's manifest.
   */
  document(record: AgentRecord): RawObject {
    const kept = this.loader.documents?.get(record);
    if (kept) return kept;
    return rereadDocument(record);
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
   * this process nor the next one-shot read parses the manifest again (that read finds the file
   * stale in the library-wide lookup and reads this entry beside it: lookup.ts).
   */
  written(file: string, data: Buffer, doc: RawObject, cachePath: string | null): void {
    // What the model left out is kept in the entry, for the one-shot reads that answer from it to say.
    const adopted = this.adoptChecked(file, data, (full) => readRecord(doc, file, full));
    if (!adopted) return;
    this.loader.documents?.set(adopted.record, doc);
    const disk = this.loader.disk ?? (cachePath ? new ParsedCache(cachePath, this.paths.agents) : null);
    // The stamp is seconds old at most, so the entry carries the content hash and is checked by it.
    // The library-wide lookup is left as it is: the next one-shot read finds this file stale and
    // reads this entry beside it (lookup.ts).
    disk?.write(file, adopted.stamp, contentHash(data), {
      id: adopted.record.id,
      doc,
      ...entryRows(adopted.record, adopted.leftOut),
    });
  }

  /**
   * As written(), for a writer that built the record itself (the write thread: the document
   * need not cross to this thread, nor be normalised on the event loop). Nothing is written to
   * the parsed cache here: a commit's thread wrote its entry itself, and a one-shot reader finds
   * any other entry stale by its stamp.
   */
  adopt(file: string, data: Buffer, record: AgentRecord): void {
    this.adoptChecked(file, data, () => ({ record, leftOut: null }));
  }

  /**
   * Puts the record `build` makes in `file`'s place, only when the file on disk is exactly
   * `data`, checked between two stats: anything else (an edit by another tool in between, an
   * unreadable file) is left to the next load.
   */
  private adoptChecked(
    file: string,
    data: Buffer,
    build: (full: string) => { record: AgentRecord; leftOut: LeftOut | null },
  ): { record: AgentRecord; leftOut: LeftOut | null; stamp: FileStamp } | null {
    this.invalidate(file);
    const full = path.join(this.paths.agents, file);
    let built: { record: AgentRecord; leftOut: LeftOut | null };
    let stamp: FileStamp | null;
    try {
      stamp = fileStamp(full);
      if (stamp?.kind !== 'file' || !readManifestFile(full).equals(data)) return null;
      built = build(full);
      if (fileStamp(full)?.key !== stamp.key) return null;
    } catch {
      return null; // the next snapshot parses the file
    }
    this.cache.set(file, { key: stamp.key, outcome: { ok: true, record: built.record } });
    this.current = null; // the next snapshot is assembled with the new record
    return { ...built, stamp };
  }
}
