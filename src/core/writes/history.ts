/**
 * Version history (spec §8): every write this project makes to `agents/<id>.l5.yaml` is
 * archived under `history/<id>/` and recorded in an index, so no write ever loses data.
 *
 *   history/<id>/v000001.l5.yaml   the exact bytes of version 1 (…v000002, …)
 *   history/<id>/index.jsonl       one record per version: {version, ts, op, actor, sha256,
 *                                  bytes, entities, sessions, notes}
 *   history/<id>/pending.json      the record of a write in flight (crash recovery)
 *
 * A write, under the library gate: pending record → archived bytes → live file (temp, fsync,
 * rename) → index line → pending removed. A crash at any step is repaired by the next writer:
 * if the live file holds the pending bytes the record is completed, otherwise the orphan
 * archive is dropped. Before writing, bytes that another tool put in the live file (its hash
 * differs from the newest version) are archived first as op `external`.
 *
 * The index is a convenience: a torn or corrupt index is rebuilt from the archived files (a
 * version with no readable record comes back as op `recovered`). Readers never lock; they
 * ignore the archive of a write still in flight.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  fsyncDir,
  isTempOf,
  REAL_FILES,
  removeQuietly,
  sweepAtomicTemps,
  writeDurable,
  type LibraryFiles,
} from './atomic.js';
import { steadyNow } from './clock.js';
import { BourdonError, describeError } from '../errors.js';
import type { GateHandle } from './gate.js';
import type { LibraryPaths } from '../store/library.js';
import { sha256Hex } from '../store/hashing.js';
import { isObject } from '../store/manifest.js';
import { parseYaml } from '../store/yaml.js';

export const INDEX_FILE = 'index.jsonl';
export const PENDING_FILE = 'pending.json';
export const DEFAULT_HISTORY_KEEP = 100;
const ARCHIVE_PATTERN = /^v(\d+)\.l5\.yaml$/;

export interface VersionRecord {
  version: number;
  ts: string;
  op: string;
  actor: string | null;
  sha256: string;
  bytes: number;
  entities: number | null;
  sessions: number | null;
  notes: number | null;
}

export interface HistoryState {
  dir: string;
  /** Versions whose bytes are archived, oldest first. */
  records: VersionRecord[];
  /** The number the next version gets (numbers are never reused, even after pruning). */
  nextVersion: number;
  /** The index disagrees with the archive (torn line, missing record, pruned leftovers). */
  damaged: boolean;
}

/** How many versions to keep per agent: BOURDON_HISTORY_KEEP (≥ 1), default 100. */
export function historyKeep(env: Record<string, string | undefined>, warn?: (message: string) => void): number {
  const raw = env.BOURDON_HISTORY_KEEP;
  if (raw === undefined || raw.trim() === '') return DEFAULT_HISTORY_KEEP;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    warn?.(`ignoring BOURDON_HISTORY_KEEP=${JSON.stringify(raw)}: expected a whole number of at least 1`);
    return DEFAULT_HISTORY_KEEP;
  }
  return value;
}

export function sha256(data: Buffer): string {
  return sha256Hex(data);
}

export function historyDir(paths: LibraryPaths, agentId: string): string {
  return path.join(paths.history, agentId);
}

export function archiveFile(dir: string, version: number): string {
  return path.join(dir, `v${String(version).padStart(6, '0')}.l5.yaml`);
}

/** A history file or folder that exists but cannot be read: the operation fails, nothing changes. */
export class HistoryUnreadable extends BourdonError {}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

/** Only ENOENT means "absent"; any other error (EIO, EMFILE, EACCES) stops the operation. */
function unreadable(agentId: string, error: unknown): HistoryUnreadable {
  return new HistoryUnreadable(
    `cannot read the history of agent '${agentId}' (${describeError(error)}); nothing was changed`,
  );
}

/** Refuses a history folder that is a symbolic link (it would put archives outside the library). */
function refuseLink(dir: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(dir);
  } catch (error) {
    if (isMissing(error)) return;
    throw error;
  }
  if (stat.isSymbolicLink()) throw new BourdonError(`refusing to write through the symbolic link ${dir}`);
  if (!stat.isDirectory()) throw new BourdonError(`${dir} is not a folder`);
}

/**
 * Creates (or checks) `history/` and `history/<id>/`: never symbolic links, and `history/` is
 * 0700 (archives hold private rows), tightened when an earlier version left it open.
 */
function prepareHistoryDir(paths: LibraryPaths, agentId: string): string {
  const dir = historyDir(paths, agentId);
  refuseLink(paths.history);
  try {
    fs.mkdirSync(paths.history, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  refuseLink(paths.history);
  if ((fs.statSync(paths.history).mode & 0o077) !== 0) fs.chmodSync(paths.history, 0o700);
  refuseLink(dir);
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  refuseLink(dir);
  return dir;
}

/** The mode of the live file (archives of its bytes get the same); undefined when there is none. */
function liveMode(livePath: string): number | undefined {
  try {
    return fs.lstatSync(livePath).mode & 0o777;
  } catch {
    return undefined;
  }
}

/** Row counts of a manifest's bytes; null counts when the bytes are not a manifest. */
export function countRows(data: Buffer): Pick<VersionRecord, 'entities' | 'sessions' | 'notes'> {
  try {
    const doc = parseYaml(data.toString('utf8'));
    if (!isObject(doc)) return { entities: null, sessions: null, notes: null };
    const count = (key: string) => (Array.isArray(doc[key]) ? (doc[key] as unknown[]).length : 0);
    return { entities: count('known_entities'), sessions: count('recent_sessions'), notes: count('notes') };
  } catch {
    return { entities: null, sessions: null, notes: null };
  }
}

export function makeRecord(
  version: number,
  data: Buffer,
  op: string,
  actor: string | null,
  now: Date,
  counts?: Pick<VersionRecord, 'entities' | 'sessions' | 'notes'>,
): VersionRecord {
  return {
    version,
    ts: now.toISOString(),
    op,
    actor,
    sha256: sha256(data),
    bytes: data.length,
    ...(counts ?? countRows(data)),
  };
}

function isVersionRecord(value: unknown): value is VersionRecord {
  if (!isObject(value)) return false;
  return (
    Number.isSafeInteger(value.version) &&
    (value.version as number) >= 1 &&
    typeof value.ts === 'string' &&
    typeof value.op === 'string' &&
    (value.actor === null || typeof value.actor === 'string') &&
    typeof value.sha256 === 'string' &&
    /^[0-9a-f]{64}$/.test(value.sha256) &&
    Number.isSafeInteger(value.bytes)
  );
}

function normaliseRecord(value: VersionRecord): VersionRecord {
  const count = (n: unknown) => (Number.isSafeInteger(n) ? (n as number) : null);
  return {
    version: value.version,
    ts: value.ts,
    op: value.op,
    actor: value.actor ?? null,
    sha256: value.sha256,
    bytes: value.bytes,
    entities: count(value.entities),
    sessions: count(value.sessions),
    notes: count(value.notes),
  };
}

function readPending(dir: string, agentId: string, files: LibraryFiles): VersionRecord | null {
  let text: string;
  try {
    text = files.readFile(path.join(dir, PENDING_FILE)).toString('utf8');
  } catch (error) {
    if (isMissing(error)) return null;
    throw unreadable(agentId, error);
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    return isVersionRecord(parsed) ? normaliseRecord(parsed) : null;
  } catch {
    return null; // garbage left by a crash: treated as no pending write
  }
}

interface IndexRead {
  records: Map<number, VersionRecord>;
  bad: number;
}

function readIndex(dir: string, agentId: string, files: LibraryFiles): IndexRead {
  const records = new Map<number, VersionRecord>();
  let bad = 0;
  let text: string;
  try {
    text = files.readFile(path.join(dir, INDEX_FILE)).toString('utf8');
  } catch (error) {
    if (isMissing(error)) return { records, bad };
    throw unreadable(agentId, error);
  }
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      bad += 1;
      continue;
    }
    if (!isVersionRecord(parsed)) {
      bad += 1;
      continue;
    }
    if (records.has(parsed.version)) bad += 1;
    records.set(parsed.version, normaliseRecord(parsed));
  }
  return { records, bad };
}

function listArchives(dir: string, agentId: string, files: LibraryFiles): Map<number, string> {
  const out = new Map<number, string>();
  let names: string[];
  try {
    names = files.readDir(dir);
  } catch (error) {
    if (isMissing(error)) return out;
    throw unreadable(agentId, error);
  }
  for (const name of names) {
    const match = ARCHIVE_PATTERN.exec(name);
    if (match) out.set(Number(match[1]), path.join(dir, name));
  }
  return out;
}

/** A record rebuilt from an archived file whose index line is missing or unreadable. */
function recoveredRecord(version: number, file: string, agentId: string, files: LibraryFiles): VersionRecord | null {
  try {
    const data = files.readFile(file);
    const stat = fs.statSync(file);
    return makeRecord(version, data, 'recovered', null, new Date(stat.mtimeMs));
  } catch (error) {
    if (isMissing(error)) return null; // pruned meanwhile
    throw unreadable(agentId, error);
  }
}

/**
 * The versions of one agent, reconciled from the index and the archived files. Pure read:
 * never locks, never writes. An archive that belongs to a write in flight is left out.
 */
export function readHistory(paths: LibraryPaths, agentId: string, files: LibraryFiles = REAL_FILES): HistoryState {
  const dir = historyDir(paths, agentId);
  refuseLink(paths.history);
  refuseLink(dir);
  const archives = listArchives(dir, agentId, files);
  const pending = readPending(dir, agentId, files);
  const index = readIndex(dir, agentId, files);
  let damaged = index.bad > 0;
  let highest = 0;
  for (const version of archives.keys()) highest = Math.max(highest, version);
  for (const version of index.records.keys()) highest = Math.max(highest, version);
  if (pending) highest = Math.max(highest, pending.version);
  const records: VersionRecord[] = [];
  for (const version of [...archives.keys()].sort((a, b) => a - b)) {
    const indexed = index.records.get(version);
    if (indexed) {
      records.push(indexed);
      continue;
    }
    if (pending && pending.version === version) continue; // in flight
    const recovered = recoveredRecord(version, archives.get(version)!, agentId, files);
    if (recovered) {
      records.push(recovered);
      damaged = true;
    }
  }
  for (const version of index.records.keys()) if (!archives.has(version)) damaged = true;
  return { dir, records, nextVersion: highest + 1, damaged };
}

/** The archived bytes of a version, checked against its recorded hash; null when absent. */
export function readArchive(state: HistoryState, version: number, files: LibraryFiles = REAL_FILES): Buffer | null {
  const record = state.records.find((candidate) => candidate.version === version);
  if (!record) return null;
  let data: Buffer;
  try {
    data = files.readFile(archiveFile(state.dir, version));
  } catch (error) {
    if (isMissing(error)) return null;
    throw new BourdonError(`cannot read archived version ${version} (${describeError(error)})`);
  }
  if (sha256(data) !== record.sha256) {
    throw new BourdonError(`archived version ${version} is damaged (its hash does not match the index)`);
  }
  return data;
}

/** The live file's bytes, or null when there is none. Links are never followed. */
export function readLive(livePath: string): Buffer | null {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(livePath);
  } catch {
    return null;
  }
  if (stat.isSymbolicLink()) throw new BourdonError(`refusing to write through the symbolic link ${livePath}`);
  if (!stat.isFile()) throw new BourdonError(`${livePath} is not a regular file`);
  return fs.readFileSync(livePath);
}

/** The version the live file currently holds: the newest one, when the bytes still match. */
export function currentVersion(state: HistoryState, live: Buffer | null): number | null {
  const latest = state.records[state.records.length - 1];
  if (!latest || !live) return null;
  return sha256(live) === latest.sha256 ? latest.version : null;
}

/** Whether a file ends without a newline (a line torn by a crash). */
function endsTorn(file: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
  try {
    const size = fs.fstatSync(fd).size;
    if (size === 0) return false;
    const last = Buffer.alloc(1);
    fs.readSync(fd, last, 0, 1, size - 1);
    return last[0] !== 0x0a;
  } finally {
    fs.closeSync(fd);
  }
}

function appendIndex(dir: string, record: VersionRecord, writer: LibraryFiles): void {
  const file = path.join(dir, INDEX_FILE);
  // A line torn by a crash has no newline: start on a fresh line so this record stays whole.
  // (Writers hold the gate, so nobody appends between this check and the write.)
  const prefix = endsTorn(file) ? '\n' : '';
  writer.appendFile(file, prefix + JSON.stringify(record) + '\n');
}

function rewriteIndex(dir: string, records: readonly VersionRecord[], writer: LibraryFiles): void {
  writeDurable(path.join(dir, INDEX_FILE), records.map((record) => JSON.stringify(record) + '\n').join(''), { writer });
}

/** Completes or discards a write a crashed writer left in flight. Under the gate only. */
function recoverPending(dir: string, agentId: string, livePath: string, writer: LibraryFiles): void {
  const pending = readPending(dir, agentId, writer);
  if (!pending) {
    removeQuietly(path.join(dir, PENDING_FILE)); // garbage leftovers, if any
    return;
  }
  const indexed = readIndex(dir, agentId, writer).records.get(pending.version);
  if (!indexed) {
    const live = readLive(livePath);
    let archived: Buffer | null;
    try {
      archived = writer.readFile(archiveFile(dir, pending.version));
    } catch (error) {
      if (!isMissing(error)) throw unreadable(agentId, error);
      archived = null;
    }
    const landed = live !== null && sha256(live) === pending.sha256;
    if (landed && archived !== null && sha256(archived) === pending.sha256) appendIndex(dir, pending, writer);
    else if (landed) {
      writeDurable(archiveFile(dir, pending.version), live, { writer, mode: liveMode(livePath) });
      appendIndex(dir, pending, writer);
    } else removeQuietly(archiveFile(dir, pending.version));
  }
  removeQuietly(path.join(dir, PENDING_FILE));
}

/**
 * Records one version: pending → archive → (live) → index → pending removed. The pending
 * record only has to survive the process (a crash of the machine is covered by the archive and
 * live fsyncs and the rebuild of records from archives), so it is not fsynced. `landed` is
 * called once the live file holds the new bytes: from then on the write has happened.
 */
function recordVersion(
  dir: string,
  record: VersionRecord,
  data: Buffer,
  live: { path: string; gate: GateHandle; landed: () => void } | null,
  writer: LibraryFiles,
  mode: number | undefined,
): void {
  writeDurable(path.join(dir, PENDING_FILE), JSON.stringify(record), { fsync: false, syncDir: false, writer });
  writeDurable(archiveFile(dir, record.version), data, { syncDir: false, writer, mode });
  if (live) {
    live.gate.assertHeld();
    writeDurable(live.path, data, { writer });
    live.landed();
  }
  appendIndex(dir, record, writer);
  fsyncDir(dir);
  removeQuietly(path.join(dir, PENDING_FILE));
}

/** The newest recorded stamp of an agent's history, or null. Pure read. */
export function latestStamp(paths: LibraryPaths, agentId: string, files: LibraryFiles = REAL_FILES): string | null {
  const records = readHistory(paths, agentId, files).records;
  return records.length ? records[records.length - 1].ts : null;
}

export interface WriteVersionRequest {
  paths: LibraryPaths;
  agentId: string;
  livePath: string;
  data: Buffer;
  op: string;
  actor: string | null;
  now: Date;
  keep: number;
  gate: GateHandle;
  counts?: Pick<VersionRecord, 'entities' | 'sessions' | 'notes'>;
  /** The file operations to use; the real ones by default. */
  writer?: LibraryFiles;
  /** Told when the write happened but its bookkeeping could not be finished. */
  warn?: (message: string) => void;
}

/**
 * Writes new bytes to an agent's live manifest as a new version. Must run under the library
 * gate. Returns the new version's record.
 *
 * A file system that refuses a write (full, read-only, failing) before the live file was
 * replaced fails the whole write with one clear BourdonError, the live file untouched and the
 * leftovers of the attempt removed. Once the live file holds the new bytes the write has
 * happened: a failure to finish the bookkeeping (the index line, pruning) is reported through
 * `warn`, and the next writer completes it from the pending record.
 */
export function writeVersion(request: WriteVersionRequest): VersionRecord {
  const writer = request.writer ?? REAL_FILES;
  const dir = historyDir(request.paths, request.agentId);
  let landed = false;
  let record: VersionRecord | null = null;
  try {
    prepareHistoryDir(request.paths, request.agentId);
    // Archives are as private as the live file: they take its mode (a new file: the default).
    const mode = liveMode(request.livePath);
    sweepAtomicTemps(path.dirname(request.livePath), (name) => isTempOf(name, path.basename(request.livePath), true));
    sweepAtomicTemps(dir, (name) => /^(?:v\d+\.l5\.yaml|index\.jsonl|pending\.json)\.\d+(?:\.tmp)?$/.test(name));
    recoverPending(dir, request.agentId, request.livePath, writer);
    const state = readHistory(request.paths, request.agentId, writer);
    if (state.damaged) rewriteIndex(dir, state.records, writer);
    const records = [...state.records];
    let next = state.nextVersion;
    const live = readLive(request.livePath);
    const latest = records[records.length - 1];
    const now = steadyNow(request.now, [latest?.ts]);
    if (live && (!latest || sha256(live) !== latest.sha256)) {
      const external = makeRecord(next, live, 'external', null, now);
      recordVersion(dir, external, live, null, writer, mode);
      records.push(external);
      next += 1;
    }
    record = makeRecord(next, request.data, request.op, request.actor, now, request.counts);
    recordVersion(
      dir,
      record,
      request.data,
      { path: request.livePath, gate: request.gate, landed: () => (landed = true) },
      writer,
      mode,
    );
    records.push(record);
    prune(dir, records, request.keep, writer);
    return record;
  } catch (error) {
    if (landed && record) {
      request.warn?.(
        `version ${record.version} of ${request.agentId} was written, but its history record could not be completed ` +
          `(${describeError(error)}); the next write completes it`,
      );
      return record;
    }
    // Our own refusals (a symbolic link, a lost lock) already say what happened; a lost lock
    // means another writer may be at work, so nothing is cleaned up then.
    if (error instanceof BourdonError) throw error;
    try {
      recoverPending(dir, request.agentId, request.livePath, writer); // drops this attempt's pending record and archive
    } catch {
      // the next writer does it
    }
    throw new BourdonError(
      `cannot write ${request.livePath}: ${describeError(error)}; nothing was written, the manifest is unchanged`,
    );
  }
}

/** Keeps the newest `keep` versions; the current one (the newest) is never pruned. */
function prune(dir: string, records: VersionRecord[], keep: number, writer: LibraryFiles): void {
  const excess = records.length - Math.max(1, keep);
  if (excess <= 0) return;
  const removed = records.splice(0, excess);
  // Archives first: a reader in between sees index lines without bytes, which it skips.
  for (const record of removed) removeQuietly(archiveFile(dir, record.version));
  rewriteIndex(dir, records, writer);
}
