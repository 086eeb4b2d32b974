/**
 * The pulled manifests as a store serves them (pulled.ts says what a pull writes and how a
 * pulled record is capped): each machine's `agents/` read through a ManifestLoader of its own,
 * with the CLI's parsed cache when there is one — entries in a folder beside the library's
 * cache, one per machine (`<cache>-pulled/<machine>/`) — so a warm one-shot read of a library
 * with pulled agents parses no pulled YAML and runs no model, as for local manifests.
 */
import fs from 'node:fs';
import path from 'node:path';
import { latestForeignDay } from './dates.js';
import { isValidAgentId } from './ids.js';
import { ManifestLoader } from './loader.js';
import { fileStamp, partialRecord, type AgentRecord } from './manifest-file.js';
import { ParsedCache, type CacheMeta } from './parsed-cache.js';
import {
  capRecordRows,
  dropFutureRows,
  listPulledFiles,
  pulledAgentId,
  type PulledFile,
  type PulledMark,
} from './pulled.js';
import type { Warn } from './warn.js';

const SUFFIX = '.l5.yaml';

/**
 * The pulled records of a library, parsed once per file version (and, with a parsed cache, once
 * across processes). Each record is renamed to its provenance id and capped at its level.
 */
export class PulledManifests {
  private readonly cache = new Map<string, { key: string; record: AgentRecord | null }>();
  private current: AgentRecord[] = [];
  /** Each warning once per store: a server refreshes on every request. */
  private readonly warned = new Set<string>();
  private readonly warn: Warn;
  private readonly marks = new Map<string, { key: string; mark: PulledMark | null }>();
  private readonly loaders = new Map<string, ManifestLoader>();

  constructor(
    private readonly root: string,
    warn: Warn,
    /** Where the parsed cache keeps pulled manifests' entries (`<cache>-pulled`), or null. */
    private readonly cacheRoot: string | null = null,
  ) {
    this.warn = (message) => {
      if (this.warned.has(message)) return;
      this.warned.add(message);
      warn(message);
    };
  }

  /** Re-reads what changed; true when the set of records changed. */
  refresh(): boolean {
    const files = listPulledFiles(this.root, this.warn, this.marks);
    // Part of every record's key: what "after tomorrow" drops changes with the day.
    const latest = latestForeignDay(new Date());
    let changed = files.length !== this.cache.size;
    const seen = new Set<string>();
    for (const pulled of files) {
      seen.add(pulled.path);
      const key = `${pulled.key}:${latest}`;
      const cached = this.cache.get(pulled.path);
      if (cached && cached.key === key) continue;
      changed = true;
      this.cache.set(pulled.path, { key, record: this.load(pulled, latest) });
    }
    for (const file of [...this.cache.keys()])
      if (!seen.has(file)) {
        this.cache.delete(file);
        changed = true;
      }
    if (changed) {
      this.current = [...this.cache.values()].flatMap((entry) => (entry.record ? [entry.record] : []));
      this.pruneCaches(files);
    }
    return changed;
  }

  records(): readonly AgentRecord[] {
    return this.current;
  }

  /**
   * The pulled records for one read of a one-shot process, each with only the rows `rowsOf`
   * takes from its parsed-cache entry (the entities one name finds, the sessions of a window):
   * a warm `find` reads one small bucket per pulled agent, whatever their size. A file without a
   * usable entry is read whole (and its entry written).
   */
  partial(rowsOf: (disk: ParsedCache, meta: CacheMeta) => Partial<Pick<AgentRecord, 'entities' | 'sessions'>> | null) {
    const files = listPulledFiles(this.root, this.warn, this.marks);
    const latest = latestForeignDay(new Date());
    const out: AgentRecord[] = [];
    for (const pulled of files) {
      const agent = pulled.file.slice(0, -SUFFIX.length);
      const stamp = fileStamp(pulled.path);
      if (!stamp) continue;
      const disk = this.loaderFor(pulled.machine, path.dirname(pulled.path)).disk;
      const meta = disk?.meta(pulled.file, stamp);
      const found = disk && meta && meta.id === agent && meta.error === null ? rowsOf(disk, meta) : null;
      if (!found) {
        const record = this.load(pulled, latest);
        if (record) out.push(record);
        continue;
      }
      const record = partialRecord(agent, pulled.file, pulled.path, found);
      out.push(this.served(record, pulled, agent, latest));
    }
    return out;
  }

  private loaderFor(machine: string, agentsDir: string): ManifestLoader {
    let loader = this.loaders.get(machine);
    if (!loader) {
      const disk = this.cacheRoot ? new ParsedCache(path.join(this.cacheRoot, machine), agentsDir) : null;
      loader = new ManifestLoader(agentsDir, disk, this.warn, null);
      this.loaders.set(machine, loader);
    }
    return loader;
  }

  private load(pulled: PulledFile, latest: string): AgentRecord | null {
    const agent = pulled.file.slice(0, -SUFFIX.length);
    const stamp = fileStamp(pulled.path);
    if (!stamp) return null;
    const loader = this.loaderFor(pulled.machine, path.dirname(pulled.path));
    const outcome = loader.fromCache(pulled.file, stamp) ?? loader.load(pulled.file, stamp);
    if (!outcome.ok) return null; // the loader said why
    const record = outcome.record;
    if (record.id !== agent) {
      this.warn(`skipping ${pulled.path}: it declares agent id ${JSON.stringify(record.id)}, not ${agent}`);
      return null;
    }
    return this.served(record, pulled, agent, latest);
  }

  /** A pulled record as served: capped at its machine's level, no row after `latest`, under its provenance id. */
  private served(record: AgentRecord, pulled: PulledFile, agent: string, latest: string): AgentRecord {
    capRecordRows(record, pulled.level);
    dropFutureRows(record, latest);
    record.id = pulledAgentId(pulled.machine, agent);
    record.origin = { machine: pulled.machine, agent, access_level: pulled.level };
    return record;
  }

  /** Drops the cache entries of pulled files gone, and the folders of machines no longer pulled. */
  private pruneCaches(files: readonly PulledFile[]): void {
    if (!this.cacheRoot) return;
    const byMachine = new Map<string, string[]>();
    for (const pulled of files) {
      const list = byMachine.get(pulled.machine) ?? [];
      list.push(pulled.file);
      byMachine.set(pulled.machine, list);
    }
    for (const [machine, loader] of this.loaders) loader.disk?.prune(byMachine.get(machine) ?? []);
    let names: string[];
    try {
      names = fs.readdirSync(this.cacheRoot);
    } catch {
      return;
    }
    for (const name of names)
      if (!byMachine.has(name) || !isValidAgentId(name))
        fs.rmSync(path.join(this.cacheRoot, name), { recursive: true, force: true });
  }
}
