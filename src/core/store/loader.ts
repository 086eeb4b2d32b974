/**
 * The manifests of a library's `agents/` folder, listed with their stats and loaded into
 * outcomes: from the CLI's parsed cache while a file is unchanged (parsed-cache.ts: the rows the
 * model read, so a warm read runs no model), else read and parsed, and the cache entry written
 * afresh.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BourdonError, describeError, readFailureCode, errnoOf } from '../errors.js';
import { isObject, type RawObject } from './manifest.js';
import {
  fileStamp,
  ManifestError,
  MANIFEST_SUFFIX,
  parseDocument,
  readManifestFile,
  readRecord,
  warnLeftOut,
  type AgentRecord,
  type FileStamp,
  type LeftOut,
} from './manifest-file.js';
import { contentHash, type CacheMeta, type ParsedCache, type StoredRows } from './parsed-cache.js';
import type { Outcome } from './snapshot.js';
import type { Warn } from './warn.js';

export class ManifestLoader {
  /** Set when this process parsed a manifest: the cache may hold entries of removed files. */
  private parsedAny = false;

  constructor(
    readonly agentsDir: string,
    /** The parsed cache, or null (a server, BOURDON_NO_CACHE). */
    readonly disk: ParsedCache | null,
    private readonly warn: Warn,
    /** Raw documents of the loaded records, only when a store keeps them (StoreOptions.keepDocuments). */
    readonly documents: WeakMap<AgentRecord, RawObject> | null,
  ) {}

  /** The manifest files of `agents/` with their stamps, sorted by name. */
  list(): [string, FileStamp][] {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(this.agentsDir, { withFileTypes: true });
    } catch (error) {
      if (errnoOf(error) === 'ENOENT') return [];
      throw new BourdonError(`cannot read ${this.agentsDir}: ${describeError(error)}`, readFailureCode(error));
    }
    const out: [string, FileStamp][] = [];
    for (const entry of entries) {
      if (!entry.name.endsWith(MANIFEST_SUFFIX)) continue;
      const stamp = fileStamp(path.join(this.agentsDir, entry.name));
      if (stamp) out.push([entry.name, stamp]); // else removed between listing and stat
    }
    out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return out;
  }

  /** A file that is not a manifest, warned about once per load. */
  broken(file: string, error: string): Outcome {
    const full = path.join(this.agentsDir, file);
    this.warn(`skipping ${full}: ${error.split('\n')[0]}`);
    return { ok: false, broken: { id: file.slice(0, -MANIFEST_SUFFIX.length), file, path: full, error } };
  }

  /**
   * A manifest's outcome from its parsed-cache entry (`meta`, when the caller read it already),
   * or null on a miss: the rows the model read when the entry was written, with the warning that
   * reading gave said again, else the cached document read through the model. `rewrite` writes
   * the entry afresh (a one-shot read found a part missing).
   */
  fromCache(file: string, stamp: FileStamp, rewrite = false, meta = this.disk?.meta(file, stamp)): Outcome | null {
    if (!this.disk || !meta) return null;
    if (meta.error !== null) return this.broken(file, meta.error);
    const full = path.join(this.agentsDir, file);
    const stored = rewrite || meta.id === null ? null : this.disk.rows(meta);
    // A store that keeps documents (doctor) wants the document as well: from doc.json.
    const doc = stored && !this.documents ? undefined : this.disk.doc(meta);
    let record: AgentRecord;
    let leftOut: LeftOut | null;
    if (stored && meta.id !== null) {
      const { leftOut: said, ...rows } = stored;
      record = { id: meta.id, file, path: full, ...rows };
      leftOut = said;
    } else {
      if (doc === undefined) return null;
      try {
        ({ record, leftOut } = readRecord(doc, file, full));
      } catch {
        return null;
      }
    }
    if (this.documents) {
      if (!isObject(doc)) return null;
      this.documents.set(record, doc);
    }
    if (leftOut) warnLeftOut(this.warn, full, leftOut);
    if (rewrite) this.disk.write(file, stamp, meta.sha, { id: record.id, doc, ...entryRows(record, leftOut) });
    return { ok: true, record };
  }

  /** Parses a manifest from disk (and records it in the parsed cache, when there is one). */
  load(file: string, stamp: FileStamp): Outcome {
    const full = path.join(this.agentsDir, file);
    let sha: string | null = null;
    try {
      const bytes = readManifestFile(full);
      if (this.disk) {
        sha = contentHash(bytes);
        this.parsedAny = true;
      }
      const doc = parseDocument(bytes);
      const { record, leftOut } = readRecord(doc, file, full);
      if (leftOut) warnLeftOut(this.warn, full, leftOut);
      // readRecord has checked that the document is a mapping.
      this.documents?.set(record, doc as RawObject);
      this.disk?.write(file, stamp, sha, { id: record.id, doc, ...entryRows(record, leftOut) });
      return { ok: true, record };
    } catch (error) {
      const reason = error instanceof ManifestError ? error.message : describeError(error);
      this.disk?.write(file, stamp, sha, { error: reason });
      return this.broken(file, reason);
    }
  }

  /** The cache entry of `file` as it is now, or null (no cache, a miss). */
  cached(file: string, stamp: FileStamp): CacheMeta | null {
    return this.disk?.meta(file, stamp) ?? null;
  }

  /** After a pass over `files` (every manifest now): drops the entries of removed ones, if any may exist. */
  pruneCache(files: readonly [string, FileStamp][]): void {
    if (!this.parsedAny) return;
    this.disk?.prune(files.map(([file]) => file));
    this.parsedAny = false;
  }
}

/** The rows a cache entry keeps besides the document: the record's, and what reading it left out. */
export function entryRows(
  record: AgentRecord,
  leftOut: LeftOut | null,
): Pick<AgentRecord, 'entities' | 'sessions'> & { rows: StoredRows } {
  const { agent, last_updated, capabilities, entities, sessions, notes } = record;
  return { entities, sessions, rows: { agent, last_updated, capabilities, entities, sessions, notes, leftOut } };
}
