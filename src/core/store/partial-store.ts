/**
 * What one read of a one-shot process (the CLI) loads of the library: the parts of each agent
 * its view names, from the parsed cache (parsed-cache.ts) instead of whole documents, and for a
 * name lookup or a list of agents, from the library-wide lookup (lookup.ts) and the entries of
 * the few manifests changed since it was written, so the files read do not grow with the library.
 */
import path from 'node:path';
import { foldKey } from './manifest.js';
import { partialRecord, type AgentRecord, type FileStamp } from './manifest-file.js';
import { entityKeys, lookupFileOf, NameLookup, type LookupFile } from './lookup.js';
import { trustedPath } from './cache-files.js';
import type { CacheMeta, ParsedCache } from './parsed-cache.js';
import { assembleSnapshot, type LibrarySnapshot, type Outcome } from './snapshot.js';
import { LibraryStore, type StoreOptions } from './library.js';

/**
 * What a one-shot command reads of each agent: the entities one name finds (`find`, `query`),
 * the sessions newest first back to a day (`recent`: its window's first day, or null for all
 * of them; older sessions may be left out, undated ones are unless null), or only which agents
 * there are (`agents --json`).
 */
export type LibraryView = { entity: string } | { sessionsSince: string | null } | 'ids';

type Rows = Partial<Pick<AgentRecord, 'entities' | 'sessions'>>;

/**
 * A store for one read in a one-shot process: its snapshot is the view's partial one when a
 * parsed cache is available, else the full one. What the view does not name is left empty, so
 * only the operations the view is made for may read this snapshot.
 */
export class PartialLibraryStore extends LibraryStore {
  private partial: LibrarySnapshot | null = null;

  constructor(
    root: string,
    private readonly view: LibraryView,
    options: StoreOptions = {},
  ) {
    super(root, options);
  }

  override snapshot(): LibrarySnapshot {
    this.partial ??= this.partialSnapshot() ?? super.snapshot();
    return this.partial;
  }

  private partialSnapshot(): LibrarySnapshot | null {
    const disk = this.loader.disk;
    if (!disk) return null;
    const files = this.loader.list();
    const view = this.view;
    const key = typeof view === 'object' && 'entity' in view ? foldKey(view.entity) : null;
    const rowsIn = (cache: ParsedCache, meta: CacheMeta): Rows | null => {
      if (view === 'ids') return {};
      if ('sessionsSince' in view) {
        const sessions = cache.sessions(meta, view.sessionsSince);
        return sessions && { sessions };
      }
      const entities = cache.entities(meta, key!);
      return entities && { entities };
    };
    const rowsOf = (meta: CacheMeta): Rows | null => rowsIn(disk, meta);
    const lookup = view === 'ids' || key !== null ? new NameLookup(disk) : null;
    const outcomes = (lookup && this.fromLookup(lookup, files, key, rowsOf)) ?? this.fromEntries(files, lookup, rowsOf);
    return assembleSnapshot(outcomes, this.pulled.partial(rowsIn), 0, this.warn);
  }

  /**
   * One agent's view from its own cache entry, or, when the entry or the part is missing, from
   * the manifest read whole (the entry written afresh); with the entry as it is now, and the
   * agent's full record when it was read whole.
   */
  private fromEntry(
    file: string,
    stamp: FileStamp,
    rowsOf: (meta: CacheMeta) => Rows | null,
  ): { outcome: Outcome; meta: CacheMeta | null; record: AgentRecord | null } {
    const disk = this.loader.disk!;
    const meta = disk.meta(file, stamp);
    if (meta?.error != null) return { outcome: this.loader.broken(file, meta.error), meta, record: null };
    const found = meta && meta.id !== null ? rowsOf(meta) : null;
    if (meta && meta.id !== null && found) {
      const record = partialRecord(meta.id, file, path.join(this.paths.agents, file), found);
      return { outcome: { ok: true, record }, meta, record: null };
    }
    // From the cached document when only a part is missing.
    const outcome = (meta && this.loader.fromCache(file, stamp, true, meta)) ?? this.loader.load(file, stamp);
    return { outcome, meta: disk.meta(file, stamp), record: outcome.ok ? outcome.record : null };
  }

  /** Each agent's view from its own entry; with a lookup, writes the lookup afresh from them. */
  private fromEntries(
    files: readonly [string, FileStamp][],
    lookup: NameLookup | null,
    rowsOf: (meta: CacheMeta) => Rows | null,
  ): Outcome[] {
    const read = files.map(([file, stamp]) => this.fromEntry(file, stamp, rowsOf));
    this.loader.pruneCache(files);
    if (lookup) rebuildLookup(lookup, this.loader.disk!, read);
    return read.map(({ outcome }) => outcome);
  }

  /**
   * The view from the library-wide lookup and, for the files it no longer describes (a few
   * changed or added since it was written), their own entries; null when there is no usable
   * lookup or a part it names is missing (the entries answer). `key`: the folded name looked
   * up, or null for ids only.
   */
  private fromLookup(
    lookup: NameLookup,
    files: readonly [string, FileStamp][],
    key: string | null,
    rowsOf: (meta: CacheMeta) => Rows | null,
  ): Outcome[] | null {
    const disk = this.loader.disk!;
    const state = lookup.usable(files);
    if (!state) return null;
    const { header, current } = state;
    const found = new Map<number, Rows>();
    if (key !== null) {
      const holders = lookup.holders(header, key);
      if (!holders) return null;
      for (const at of holders) {
        const entry = header.files[at]!;
        if (current.get(entry.file) !== at) continue; // changed or removed since: read below, or gone
        // The entry's folder too: in one others may write to, files could be renamed in from another entry.
        const entities = trustedPath(disk.entryDir(entry.file)) ? disk.entities(entry, key) : null;
        if (!entities) return null;
        found.set(at, { entities });
      }
    }
    const outcomes = files.map(([file, stamp]): Outcome => {
      const at = current.get(file);
      if (at === undefined) return this.fromEntry(file, stamp, rowsOf).outcome;
      const entry = header.files[at]!;
      if (entry.error !== null) return this.loader.broken(file, entry.error);
      const full = path.join(this.paths.agents, file);
      return { ok: true, record: partialRecord(entry.id!, file, full, found.get(at) ?? {}) };
    });
    this.loader.pruneCache(files);
    return outcomes;
  }
}

/**
 * Writes the lookup afresh from every manifest's entry as a one-shot read left it. The keys of
 * an entry the old lookup recorded (same token) come from it; of an agent read whole here, from
 * its record; else from the entry's buckets. Nothing is written when an entry is missing.
 */
function rebuildLookup(
  lookup: NameLookup,
  disk: ParsedCache,
  entries: readonly { meta: CacheMeta | null; record: AgentRecord | null }[],
): void {
  if (entries.some(({ meta }) => meta === null)) return;
  const previous = new Map<string, string[]>();
  for (const { file, keys } of lookup.read() ?? []) previous.set(`${file.file}\0${file.token}`, keys);
  const out: { file: LookupFile; keys: Iterable<string> }[] = [];
  for (const { meta, record } of entries) {
    const keys =
      meta!.id === null
        ? []
        : (previous.get(`${meta!.file}\0${meta!.token}`) ?? (record ? entityKeys(record.entities) : disk.keys(meta!)));
    if (!keys) return;
    out.push({ file: lookupFileOf(meta!), keys });
  }
  lookup.write(out);
}
