/**
 * Version history (spec §8): every write this project makes to `agents/<id>.l5.yaml` is
 * archived under `history/<id>/` and recorded in an index, so no write ever loses data.
 *
 *   history/<id>/v000001.l5.yaml.gz   version 1, packed (archive.ts: gzip of the whole file or of
 *                                     a delta against a base-NNNNNN.l5.yaml.gz beside it)
 *   history/<id>/v000001.l5.yaml      version 1 as earlier releases kept it (still read)
 *   history/<id>/index.jsonl          one record per version (version-record.ts)
 *   history/<id>/pending.json      the record of a write in flight (crash recovery)
 *
 * This file is the layout and the reading side: the versions of an agent, reconciled from the
 * index and the archived files, and the bytes of one version. `history-writer.ts` writes new
 * versions, recovers writes a crash left in flight and prunes.
 *
 * The index is a convenience: a torn or corrupt index is rebuilt from the archived files (a
 * version with no readable record comes back as op `recovered`). Readers never lock; they
 * ignore the archive of a write still in flight.
 */
import fs from 'node:fs';
import path from 'node:path';
import { REAL_FILES, type LibraryFiles } from '../fs/atomic.js';
import { refuseLink } from '../fs/real-folder.js';
import { BourdonError, describeError, readFailureCode, errnoOf } from '../errors.js';
import type { LibraryPaths } from '../store/library.js';
import { makeRecord, parseVersionRecord, sha256, type VersionRecord } from './version-record.js';
import { ArchiveDamaged, decodeArchive, listArchiveNames, packedName, type ArchiveListing } from './archive.js';

export const INDEX_FILE = 'index.jsonl';
export const PENDING_FILE = 'pending.json';
const DEFAULT_HISTORY_KEEP = 100;

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

export function historyDir(paths: LibraryPaths, agentId: string): string {
  return path.join(paths.history, agentId);
}

/** The file holding a version's archive: the packed one, else one an earlier release wrote whole. */
export function archiveFile(dir: string, version: number): string {
  const packed = path.join(dir, packedName(version));
  const plain = path.join(dir, `v${String(version).padStart(6, '0')}.l5.yaml`);
  return fs.existsSync(plain) && !fs.existsSync(packed) ? plain : packed;
}

/** The bytes a version's archive keeps, whichever way it is stored (tests and tools). */
export function readArchivedBytes(dir: string, version: number, files: LibraryFiles = REAL_FILES): Buffer {
  return decodeArchive(archiveFile(dir, version), files);
}

/** A history file or folder that exists but cannot be read: the operation fails, nothing changes. */
class HistoryUnreadable extends BourdonError {}

export function isMissing(error: unknown): boolean {
  return errnoOf(error) === 'ENOENT';
}

/** Only ENOENT means "absent"; any other error (EIO, EMFILE, EACCES) stops the operation. */
export function unreadable(agentId: string, error: unknown): HistoryUnreadable {
  return new HistoryUnreadable(
    `cannot read the history of agent '${agentId}' (${describeError(error)}); nothing was changed`,
    readFailureCode(error),
  );
}

export function readPending(dir: string, agentId: string, files: LibraryFiles): VersionRecord | null {
  let text: string;
  try {
    text = files.readFile(path.join(dir, PENDING_FILE)).toString('utf8');
  } catch (error) {
    if (isMissing(error)) return null;
    throw unreadable(agentId, error);
  }
  try {
    return parseVersionRecord(JSON.parse(text));
  } catch {
    return null; // garbage left by a crash: treated as no pending write
  }
}

interface IndexRead {
  records: Map<number, VersionRecord>;
  bad: number;
}

export function readIndex(dir: string, agentId: string, files: LibraryFiles): IndexRead {
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
    let record: VersionRecord | null;
    try {
      record = parseVersionRecord(JSON.parse(line));
    } catch {
      record = null;
    }
    if (!record) {
      bad += 1;
      continue;
    }
    if (records.has(record.version)) bad += 1;
    records.set(record.version, record);
  }
  return { records, bad };
}

/** The archive and base files of an agent's history folder. */
export function listArchives(dir: string, agentId: string, files: LibraryFiles): ArchiveListing {
  let names: string[];
  try {
    names = files.readDir(dir);
  } catch (error) {
    if (isMissing(error)) return { versions: new Map(), bases: new Map() };
    throw unreadable(agentId, error);
  }
  return listArchiveNames(dir, names);
}

/** A record rebuilt from an archived file whose index line is missing or unreadable. */
function recoveredRecord(version: number, file: string, agentId: string, files: LibraryFiles): VersionRecord | null {
  try {
    const data = decodeArchive(file, files);
    const stat = fs.statSync(file);
    return makeRecord(version, data, 'recovered', null, new Date(stat.mtimeMs));
  } catch (error) {
    if (isMissing(error)) return null; // pruned meanwhile
    if (error instanceof ArchiveDamaged) return null; // garbled: as good as gone
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
  const archives = listArchives(dir, agentId, files).versions;
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
    data = decodeArchive(archiveFile(state.dir, version), files);
  } catch (error) {
    if (isMissing(error)) return null;
    if (error instanceof ArchiveDamaged)
      throw new BourdonError(`archived version ${version} is damaged (${error.message})`, 'source_unreadable');
    throw new BourdonError(`cannot read archived version ${version} (${describeError(error)})`, 'source_unreadable');
  }
  if (sha256(data) !== record.sha256) {
    throw new BourdonError(
      `archived version ${version} is damaged (its hash does not match the index)`,
      'source_unreadable',
    );
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
  if (stat.isSymbolicLink())
    throw new BourdonError(`refusing to write through the symbolic link ${livePath}`, 'invalid_input');
  if (!stat.isFile()) throw new BourdonError(`${livePath} is not a regular file`, 'invalid_input');
  return fs.readFileSync(livePath);
}

/** The version the live file currently holds: the newest one, when the bytes still match. */
export function currentVersion(state: HistoryState, live: Buffer | null): number | null {
  const latest = state.records[state.records.length - 1];
  if (!latest || !live) return null;
  return sha256(live) === latest.sha256 ? latest.version : null;
}

/** The newest recorded stamp of an agent's history, or null. Pure read. */
export function latestStamp(paths: LibraryPaths, agentId: string, files: LibraryFiles = REAL_FILES): string | null {
  const records = readHistory(paths, agentId, files).records;
  return records.at(-1)?.ts ?? null;
}
