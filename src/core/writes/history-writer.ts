/**
 * Writing the version history (layout and reading: history.ts). A write, under the library
 * gate: pending record → archived bytes → live file (temp, fsync, rename) → index line →
 * pending removed. A crash at any step is repaired by the next writer: if the live file holds
 * the pending bytes the record is completed, otherwise the orphan archive is dropped. Before
 * writing, bytes that another tool put in the live file (its hash differs from the newest
 * version) are archived first as op `external`. Old versions beyond the keep count are pruned.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  appendWholeLine,
  fsyncDir,
  isTempOf,
  REAL_FILES,
  removeQuietly,
  sweepAtomicTemps,
  writeDurable,
  type LibraryFiles,
} from '../fs/atomic.js';
import { steadyNow } from './clock.js';
import { BourdonError, describeError, errnoOf } from '../errors.js';
import type { GateHandle } from '../fs/gate.js';
import { ArchiveDamaged, baseName, decodeArchive, packedName, writeArchive, type ArchiveListing } from './archive.js';
import {
  archiveFile,
  historyDir,
  listArchives,
  INDEX_FILE,
  isMissing,
  PENDING_FILE,
  readHistory,
  readIndex,
  readLive,
  readPending,
  unreadable,
} from './history.js';
import { refuseLink } from '../fs/real-folder.js';
import type { LibraryPaths } from '../store/library.js';
import { CHANGE_STAMP_FILE } from '../store/freshness.js';
import { makeRecord, sha256, type RowCounts, type VersionRecord } from './version-record.js';

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
    if (errnoOf(error) !== 'EEXIST') throw error;
  }
  refuseLink(paths.history);
  if ((fs.statSync(paths.history).mode & 0o077) !== 0) fs.chmodSync(paths.history, 0o700);
  refuseLink(dir);
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if (errnoOf(error) !== 'EEXIST') throw error;
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

function appendIndex(dir: string, record: VersionRecord, writer: LibraryFiles): void {
  appendWholeLine(path.join(dir, INDEX_FILE), JSON.stringify(record), writer); // writers hold the gate
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
      archived = decodeArchive(archiveFile(dir, pending.version), writer);
    } catch (error) {
      if (!isMissing(error) && !(error instanceof ArchiveDamaged)) throw unreadable(agentId, error);
      archived = null;
    }
    const landed = live !== null && sha256(live) === pending.sha256;
    if (landed && archived !== null && sha256(archived) === pending.sha256) appendIndex(dir, pending, writer);
    else if (landed) {
      const listing = listArchives(dir, agentId, writer);
      writeArchive(dir, pending.version, live, { writer, mode: liveMode(livePath), listing });
      fsyncDir(dir);
      appendIndex(dir, pending, writer);
    } else {
      removeQuietly(path.join(dir, packedName(pending.version)));
      removeQuietly(archiveFile(dir, pending.version));
    }
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
  listing: ArchiveListing,
): void {
  writeDurable(path.join(dir, PENDING_FILE), JSON.stringify(record), { fsync: false, syncDir: false, writer });
  writeArchive(dir, record.version, data, { writer, mode, listing });
  if (live) {
    live.gate.assertHeld();
    writeDurable(live.path, data, { writer });
    live.landed();
  }
  appendIndex(dir, record, writer);
  fsyncDir(dir);
  removeQuietly(path.join(dir, PENDING_FILE));
}

let stampCounter = 0;

/**
 * Replaces the library's change stamp, so every long-lived reader (any process) sees this write
 * at its next request without statting every manifest (store/freshness.ts). Not fsynced: it is
 * a hint, needed only while the readers run. Best effort: should it fail, readers still learn
 * of the write from the `agents/` folder's stat, OS events or their fallback sweep.
 */
function bumpChangeStamp(paths: LibraryPaths): void {
  try {
    sweepAtomicTemps(paths.root, (name) => isTempOf(name, CHANGE_STAMP_FILE));
    stampCounter += 1;
    REAL_FILES.replaceFile(paths.stamp, `${process.pid} ${process.hrtime.bigint()} ${stampCounter}\n`, {
      fsync: false,
    });
  } catch {
    // see above
  }
}

interface WriteVersionRequest {
  paths: LibraryPaths;
  agentId: string;
  livePath: string;
  data: Buffer;
  op: string;
  actor: string | null;
  now: Date;
  keep: number;
  gate: GateHandle;
  counts?: RowCounts;
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
    sweepAtomicTemps(dir, (name) =>
      /^(?:v\d+\.l5\.yaml(?:\.gz)?|base-\d+\.l5\.yaml\.gz|index\.jsonl|pending\.json)\.\d+(?:\.tmp)?$/.test(name),
    );
    recoverPending(dir, request.agentId, request.livePath, writer);
    const state = readHistory(request.paths, request.agentId, writer);
    if (state.damaged) rewriteIndex(dir, state.records, writer);
    const records = [...state.records];
    let next = state.nextVersion;
    const live = readLive(request.livePath);
    const listing = listArchives(dir, request.agentId, writer);
    const latest = records[records.length - 1];
    const now = steadyNow(request.now, [latest?.ts]);
    if (live && (!latest || sha256(live) !== latest.sha256)) {
      const external = makeRecord(next, live, 'external', null, now);
      recordVersion(dir, external, live, null, writer, mode, listing);
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
      listing,
    );
    records.push(record);
    prune(dir, records, request.keep, writer, listing);
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
      'unavailable',
    );
  } finally {
    if (landed) bumpChangeStamp(request.paths);
  }
}

/**
 * Keeps the newest `keep` versions; the current one (the newest) is never pruned. A base goes
 * once no kept version can be a delta against it: every kept version is at or past a newer base.
 */
function prune(
  dir: string,
  records: VersionRecord[],
  keep: number,
  writer: LibraryFiles,
  listing: ArchiveListing,
): void {
  const excess = records.length - Math.max(1, keep);
  if (excess <= 0) return;
  const removed = records.splice(0, excess);
  // Archives first: a reader in between sees index lines without bytes, which it skips.
  for (const record of removed) {
    removeQuietly(path.join(dir, packedName(record.version)));
    removeQuietly(archiveFile(dir, record.version));
  }
  rewriteIndex(dir, records, writer);
  // At least one version is kept (the newest).
  const oldestKept = records[0]!.version;
  const bases = [...listing.bases.keys()].sort((a, b) => a - b);
  for (const [i, base] of bases.entries()) {
    const next = bases[i + 1];
    if (next === undefined || next > oldestKept) break;
    removeQuietly(path.join(dir, baseName(base)));
  }
}
