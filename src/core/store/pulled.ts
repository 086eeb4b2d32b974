/**
 * Manifests other machines published through a sync remote, as this library serves them.
 * `bourdon sync pull` writes them under `<library>/pulled/<machine>/` — `agents/<id>.l5.yaml`
 * as published, and `publication.json`, the mark naming the machine and the level it
 * published at. The store serves each as the agent `sync:<machine>:<id>` (the machine's
 * provenance, as a peer's agents are `peer:<peer>:<agent>`), capped at the published level:
 * rows keep their own labels, and a row labelled above the level its machine published at is
 * not served. A folder without a valid mark is not served (fail closed).
 */
import fs from 'node:fs';
import path from 'node:path';
import { canSee, isAccessLevel, policyOf, rowLevel, type AccessLevel } from './visibility.js';
import { isValidAgentId } from './ids.js';
import { latestForeignDay } from './dates.js';
import { isObject, type RawObject } from './manifest.js';
import type { Warn } from './warn.js';

export const PULLED_DIR = 'pulled';
export const PULLED_MARK = 'publication.json';
const SUFFIX = '.l5.yaml';
/** Same limit as a local manifest (library.ts MAX_MANIFEST_BYTES). */
const MAX_BYTES = 8 * 1024 * 1024;

/** What a pulled record carries besides its rows: who published it, and at which level. */
export interface PulledOrigin {
  machine: string;
  /** The agent id on its own machine. */
  agent: string;
  access_level: AccessLevel;
}

/** The id a pulled agent is served under. */
function pulledAgentId(machine: string, agent: string): string {
  return `sync:${machine}:${agent}`;
}

export interface PulledMark {
  machine: string;
  access_level: AccessLevel;
}

/** A machine folder's mark, or null when missing or invalid. */
function readPulledMark(machineDir: string, machine: string): PulledMark | null {
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(path.join(machineDir, PULLED_MARK), 'utf8'));
    if (!isObject(parsed) || parsed.machine !== machine || !isAccessLevel(parsed.access_level)) return null;
    return { machine, access_level: parsed.access_level };
  } catch {
    return null;
  }
}

interface RowsWithVisibility {
  entities: { visibility: AccessLevel }[];
  sessions: { visibility: AccessLevel; date: string }[];
  notes: { visibility: AccessLevel; date: string }[];
}

/**
 * Drops a pulled record's sessions and notes dated after `latest` (latestForeignDay), as a
 * peer's are: another machine's clock, or its hand, cannot pin a row above every real one.
 */
function dropFutureRows(record: RowsWithVisibility, latest: string): void {
  const dated = (row: { date: string }) => !(row.date.slice(0, 10) > latest);
  record.sessions = record.sessions.filter(dated);
  record.notes = record.notes.filter(dated);
}

/**
 * Caps a pulled record at its published level: rows keep the labels they were published with,
 * and a row labelled above the level its machine published at (which an honest push never
 * writes) is not served at all.
 */
function capRecordRows(record: RowsWithVisibility, level: AccessLevel): void {
  const allowed = (row: { visibility: AccessLevel }) => canSee(level, row.visibility);
  record.entities = record.entities.filter(allowed);
  record.sessions = record.sessions.filter(allowed);
  record.notes = record.notes.filter(allowed);
}

/** The same cap on a raw document (the manifest resource filters raw rows by their labels). */
export function capDocument(doc: RawObject, level: AccessLevel): RawObject {
  const out: RawObject = { ...doc };
  const policy = policyOf(doc);
  for (const field of ['known_entities', 'recent_sessions', 'notes']) {
    const rows = doc[field];
    if (Array.isArray(rows)) out[field] = rows.filter((row) => !isObject(row) || canSee(level, rowLevel(row, policy)));
  }
  return out;
}

export interface PulledFile {
  machine: string;
  level: AccessLevel;
  /** The file name in the machine's agents folder. */
  file: string;
  path: string;
  /** Changes whenever the file or its mark changes. */
  key: string;
}

/**
 * Every pulled manifest file, with its machine's level. Folders and files that are not what a
 * pull writes (bad names, links, no mark, too large) are skipped with a warning.
 */
function listPulledFiles(
  root: string,
  warn: Warn,
  marks: Map<string, { key: string; mark: PulledMark | null }> = new Map(),
): PulledFile[] {
  const base = path.join(root, PULLED_DIR);
  let machines: fs.Dirent[];
  try {
    machines = fs.readdirSync(base, { withFileTypes: true });
  } catch {
    return [];
  }
  const out: PulledFile[] = [];
  for (const entry of machines.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (!entry.isDirectory() || !isValidAgentId(entry.name)) continue;
    const machineDir = path.join(base, entry.name);
    // The mark is read again only when its stat changed (a server lists this on every request).
    let markKey: string | null;
    try {
      const stat = fs.lstatSync(path.join(machineDir, PULLED_MARK));
      markKey = stat.isFile() ? `${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.ino}` : null;
    } catch {
      markKey = null;
    }
    let known = markKey === null ? undefined : marks.get(machineDir);
    if (markKey !== null && known?.key !== markKey) {
      known = { key: markKey, mark: readPulledMark(machineDir, entry.name) };
      marks.set(machineDir, known);
    }
    const mark = known?.mark ?? null;
    if (!mark) {
      warn(`skipping ${machineDir}: no valid ${PULLED_MARK} (run \`bourdon sync pull\` again)`);
      continue;
    }
    let files: string[];
    try {
      files = fs.readdirSync(path.join(machineDir, 'agents'));
    } catch {
      continue;
    }
    for (const file of files.sort()) {
      if (!file.endsWith(SUFFIX) || !isValidAgentId(file.slice(0, -SUFFIX.length))) continue;
      const full = path.join(machineDir, 'agents', file);
      let stat: fs.Stats;
      try {
        stat = fs.lstatSync(full);
      } catch {
        continue;
      }
      if (!stat.isFile() || stat.size > MAX_BYTES) {
        warn(`skipping ${full}: not a regular file within the size limit`);
        continue;
      }
      out.push({
        machine: entry.name,
        level: mark.access_level,
        file,
        path: full,
        key: `${mark.access_level}:${markKey}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.ino}`,
      });
    }
  }
  return out;
}

/**
 * The pulled records of a library, parsed once per file version. `parse` is the store's own
 * manifest reader (through the L5 model, which tells `warn` what it left out); the record it
 * gives is renamed to its provenance id and capped.
 */
export class PulledManifests<R extends RowsWithVisibility & { id: string; origin?: PulledOrigin }> {
  private readonly cache = new Map<string, { key: string; record: R | null }>();
  private current: R[] = [];
  /** Each warning once per store: a server refreshes on every request. */
  private readonly warned = new Set<string>();
  private readonly warn: Warn;
  private readonly marks = new Map<string, { key: string; mark: PulledMark | null }>();

  constructor(
    private readonly root: string,
    private readonly parse: (bytes: Buffer, file: string, full: string, warn: Warn) => R,
    warn: Warn,
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
    if (changed) this.current = [...this.cache.values()].flatMap((entry) => (entry.record ? [entry.record] : []));
    return changed;
  }

  records(): readonly R[] {
    return this.current;
  }

  private load(pulled: PulledFile, latest: string): R | null {
    const agent = pulled.file.slice(0, -SUFFIX.length);
    try {
      const record = this.parse(fs.readFileSync(pulled.path), pulled.file, pulled.path, this.warn);
      if (record.id !== agent) throw new Error(`it declares agent id ${JSON.stringify(record.id)}, not ${agent}`);
      capRecordRows(record, pulled.level);
      dropFutureRows(record, latest);
      record.id = pulledAgentId(pulled.machine, agent);
      record.origin = { machine: pulled.machine, agent, access_level: pulled.level };
      return record;
    } catch (error) {
      this.warn(`skipping ${pulled.path}: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`);
      return null;
    }
  }
}
