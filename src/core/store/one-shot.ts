/**
 * What one read of a one-shot process (the CLI) loads of the library: the parts of each agent
 * its view names, from the parsed cache (parsed-cache.ts) instead of whole documents, and for a
 * name lookup or a list of agents, from the library-wide lookup (lookup.ts) when it is current,
 * so the files read do not grow with the library.
 */
import path from 'node:path';
import type { ManifestLoader } from './loader.js';
import { foldKey } from './manifest.js';
import type { AgentRecord, FileStamp } from './manifest-file.js';
import { entityKeys, lookupFileOf, NameLookup, type LookupFile } from './lookup.js';
import { trustedPath, type CacheMeta, type ParsedCache } from './parsed-cache.js';
import { assembleSnapshot, type LibrarySnapshot, type Outcome } from './snapshot.js';
import { L6Store, type StoreOptions } from './library.js';

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
    this.partial ??= this.partialSnapshot() ?? super.snapshot();
    return this.partial;
  }

  private partialSnapshot(): LibrarySnapshot | null {
    const disk = this.loader.disk;
    if (!disk) return null;
    const files = this.loader.list();
    const key = typeof this.view === 'object' && 'entity' in this.view ? foldKey(this.view.entity) : null;
    const usesLookup = this.view === 'ids' || key !== null;
    const lookup = usesLookup ? new NameLookup(disk) : null;
    const outcomes = (lookup && fromLookup(lookup, disk, this.loader, files, key)) ?? this.fromEntries(files, lookup);
    this.pulled.refresh();
    return assembleSnapshot(outcomes, this.pulled.records(), 0, this.warn);
  }

  /**
   * Each agent's view from its own cache entry; agents whose entry or part is missing are read
   * whole (and their entry written afresh). With a lookup, writes it afresh from the entries.
   */
  private fromEntries(files: readonly [string, FileStamp][], lookup: NameLookup | null): Outcome[] {
    const disk = this.loader.disk!;
    const view = this.view;
    const rowsOf = (meta: CacheMeta): Rows | null => {
      if (view === 'ids') return {};
      if ('sessionsSince' in view) {
        const sessions = disk.sessions(meta, view.sessionsSince);
        return sessions && { sessions };
      }
      const entities = disk.entities(meta, foldKey(view.entity));
      return entities && { entities };
    };
    const outcomes: Outcome[] = [];
    /** Per file, its entry now and the agent's full record when it was read whole here. */
    const entries: { meta: CacheMeta | null; record: AgentRecord | null }[] = [];
    for (const [file, stamp] of files) {
      const meta = disk.meta(file, stamp);
      if (meta?.error != null) {
        outcomes.push(this.loader.broken(file, meta.error));
        entries.push({ meta, record: null });
        continue;
      }
      const found = meta && meta.id !== null ? rowsOf(meta) : null;
      if (meta && meta.id !== null && found) {
        outcomes.push({ ok: true, record: partialRecord(meta.id, file, path.join(this.paths.agents, file), found) });
        entries.push({ meta, record: null });
        continue;
      }
      // No usable entry: read the manifest (from the cached document when only a part is
      // missing) and write its entry afresh.
      const outcome = (meta && this.loader.fromCache(file, stamp, true, meta)) ?? this.loader.load(file, stamp);
      outcomes.push(outcome);
      entries.push({ meta: disk.meta(file, stamp), record: outcome.ok ? outcome.record : null });
    }
    this.loader.pruneCache(files);
    if (lookup) rebuildLookup(lookup, disk, entries);
    return outcomes;
  }
}

function partialRecord(id: string, file: string, full: string, found: Rows): AgentRecord {
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

/**
 * The view from the library-wide lookup, when it is current and every part it names is there;
 * else null (the entries answer). `key`: the folded name looked up, or null for ids only.
 */
function fromLookup(
  lookup: NameLookup,
  disk: ParsedCache,
  loader: ManifestLoader,
  files: readonly [string, FileStamp][],
  key: string | null,
): Outcome[] | null {
  const header = lookup.current(files);
  if (!header) return null;
  const found = new Map<number, Rows>();
  if (key !== null) {
    const holders = lookup.holders(header, key);
    if (!holders) return null;
    for (const at of holders) {
      const file = header.files[at]!;
      // The entry's folder too: in one others may write to, files could be renamed in from another entry.
      const entities = trustedPath(disk.entryDir(file.file)) ? disk.entities(file, key) : null;
      if (!entities) return null;
      found.set(at, { entities });
    }
  }
  return header.files.map((file, at) =>
    file.error !== null
      ? loader.broken(file.file, file.error)
      : {
          ok: true,
          record: partialRecord(file.id!, file.file, path.join(loader.agentsDir, file.file), found.get(at) ?? {}),
        },
  );
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
