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
import { isObject, type RawObject } from './manifest.js';
import type { Warn } from './warn.js';

export const PULLED_DIR = 'pulled';
export const PULLED_MARK = 'publication.json';
const SUFFIX = '.l5.yaml';
/** Same limit as a local manifest (library.ts MAX_MANIFEST_BYTES). */
const MAX_BYTES = 8 * 1024 * 1024;
/**
 * The most one machine may publish: the sum of its published manifests' sizes. A push leaves
 * out the agents past it, a pull refuses a machine folder over it (docs/sync.md).
 */
export const MAX_PUBLICATION_BYTES = 32 * 1024 * 1024;
/**
 * The most a library keeps of other machines' manifests in all: a pull refuses the machines
 * past it, and the store serves no more than this of `pulled/` (docs/sync.md).
 */
export const MAX_PULLED_BYTES = 64 * 1024 * 1024;

/** What a pulled record carries besides its rows: who published it, and at which level. */
export interface PulledOrigin {
  machine: string;
  /** The agent id on its own machine. */
  agent: string;
  access_level: AccessLevel;
}

/** The id a pulled agent is served under. */
export function pulledAgentId(machine: string, agent: string): string {
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

export interface RowsWithVisibility {
  entities: { visibility: AccessLevel }[];
  sessions: { visibility: AccessLevel; date: string }[];
  notes: { visibility: AccessLevel; date: string }[];
}

/**
 * Drops a pulled record's sessions and notes dated after `latest` (latestForeignDay), as a
 * peer's are: another machine's clock, or its hand, cannot pin a row above every real one.
 */
export function dropFutureRows(record: RowsWithVisibility, latest: string): void {
  const dated = (row: { date: string }) => !(row.date.slice(0, 10) > latest);
  record.sessions = record.sessions.filter(dated);
  record.notes = record.notes.filter(dated);
}

/**
 * Caps a pulled record at its published level: rows keep the labels they were published with,
 * and a row labelled above the level its machine published at (which an honest push never
 * writes) is not served at all.
 */
export function capRecordRows(record: RowsWithVisibility, level: AccessLevel): void {
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
 * pull writes (bad names, links, no mark, too large, past MAX_PULLED_BYTES in all) are skipped
 * with a warning.
 */
export function listPulledFiles(
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
  let total = 0;
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
      // What a pull keeps in all is what is served: files placed past it by other means are not.
      if (total + stat.size > MAX_PULLED_BYTES) {
        warn(`skipping ${full}: pulled manifests past ${MAX_PULLED_BYTES / (1024 * 1024)} MiB in all are not served`);
        continue;
      }
      total += stat.size;
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
