/**
 * A live commit's work under the library gate, from reading the live manifest to the durable
 * new version: parse, merge (manifest-build.ts), the no-change check, serialise and prove the
 * bytes read back (serialise.ts), and the version write (history-writer.ts: archive, live file,
 * index, fsyncs). Its input is plain data and it touches no snapshot, so a server runs it on its
 * write thread (write-thread.ts) while the event loop answers reads, and anything else runs it
 * in place; the steps, their order and their durability are the same either way.
 */
import { BourdonError, type ErrorCode } from '../errors.js';
import type { LibraryFiles } from '../fs/atomic.js';
import type { GateHandle } from '../fs/gate.js';
import type { LibraryPaths } from '../store/library.js';
import type { RawObject } from '../store/manifest.js';
import type { CommitArgs } from './commit-input.js';
import { steadyNow } from './clock.js';
import { currentVersion, latestStamp, readHistory, readLive } from './history.js';
import { writeVersion } from './history-writer.js';
import { buildManifest, CommitRefused, parseExisting, rowCount } from './manifest-build.js';
import { sameValue } from './merge.js';
import { serialiseManifest, SerialiseRefused } from './serialise.js';
import type { CommitSummary, WriteOrigin } from './commit-types.js';

/** What a commit does under the gate, as plain data: it crosses to the write thread. */
export interface CommitJob {
  paths: LibraryPaths;
  args: CommitArgs;
  origin: WriteOrigin;
  /** The commit's clock reading (stamped no earlier than the agent's last write). */
  now: Date;
  /** Its microseconds within the millisecond (store/dates.ts `microsecondsOf`): a Date crosses to the thread without them. */
  microseconds: number;
  /** History versions to keep. */
  keep: number;
  livePath: string;
  /** Another file the served snapshot says declares this id (the engine merges into it), or null. */
  otherPath: string | null;
}

/** A refusal (nothing written), a commit that changed nothing, or a new version and what it holds. */
export type CommitJobResult =
  | { kind: 'refused'; message: string; code: ErrorCode }
  | { kind: 'unchanged'; summary: CommitSummary }
  | { kind: 'written'; summary: CommitSummary; data: Buffer; manifest: RawObject };

/** Where the job's files and warnings go: the gate it runs under, the file seam, the warning sink. */
export interface CommitJobIo {
  gate: GateHandle;
  writer?: LibraryFiles;
  warn: (message: string) => void;
}

/**
 * The last manifest this thread wrote, and its bytes. A live file still holding exactly those
 * bytes is that manifest (the write proved the bytes read back as it), so a writer committing
 * again and again to one agent does not parse it again each time. Never changed in place.
 */
let lastWritten: { path: string; data: Buffer; manifest: RawObject } | null = null;

/**
 * The manifest a merge starts from (the live file, else the other file declaring the id), as a
 * fresh object the merge may change, and as it was, for telling a write that changes nothing.
 */
function loadExisting(livePath: string, otherPath: string | null): { existing: RawObject; before: RawObject } | null {
  const live = readLive(livePath);
  if (live && lastWritten?.path === livePath && lastWritten.data.equals(live)) {
    return { existing: structuredClone(lastWritten.manifest), before: lastWritten.manifest };
  }
  const file = live ? livePath : otherPath;
  const data = live ?? (otherPath ? readLive(otherPath) : null);
  if (!data) return null;
  const existing = parseExisting(data, file!);
  return { existing, before: structuredClone(existing) };
}

/** Runs a commit's work under the gate its caller holds. Refusals come back as `refused`. */
export function runCommitJob(job: CommitJob, io: CommitJobIo): CommitJobResult {
  try {
    return commitUnderGate(job, io);
  } catch (error) {
    if (error instanceof CommitRefused || error instanceof SerialiseRefused || error instanceof BourdonError)
      return {
        kind: 'refused',
        message: error.message,
        code: error instanceof BourdonError ? error.code : 'invalid_input',
      };
    throw error;
  }
}

function commitUnderGate(job: CommitJob, io: CommitJobIo): CommitJobResult {
  const { args, paths, livePath } = job;
  const mode = args.mode ?? 'merge';
  const ceiling = job.origin.ceiling ?? 'private';
  // A capped writer's replace needs the live rows too: the ones it cannot see are kept.
  // The merge works in place: `before` keeps the rows as they were.
  const loaded = mode === 'merge' || ceiling !== 'private' ? loadExisting(livePath, job.otherPath) : null;
  const existing = loaded?.existing ?? null;
  const before = loaded?.before ?? null;
  // Stamped no earlier than the agent's last write, should the clock have gone back.
  const now = steadyNow(job.now, [latestStamp(paths, args.agent_id, io.writer), existing?.last_updated]);
  // A stamp moved past an earlier one is 1 ms after it: no microseconds of its own.
  const microseconds = now === job.now ? job.microseconds : 0;
  const { manifest, payloadCounts } = buildManifest(args, existing, now, livePath, ceiling, microseconds);
  // Totals of what the writer may see: a capped writer learns nothing of hidden rows.
  const summary = {
    agent_id: args.agent_id,
    path: livePath,
    mode,
    ...payloadCounts,
    total_entities: rowCount(manifest, 'known_entities', ceiling),
    total_sessions: rowCount(manifest, 'recent_sessions', ceiling),
    total_notes: rowCount(manifest, 'notes', ceiling),
  };
  // Identical rows (only the stamp would move): no write and no new version. The payload keeps
  // the engine's counts (the conformance fixtures fix them) and names the version in place.
  const unchanged = before ? unchangedVersion(job, before, manifest, io.writer) : null;
  if (unchanged !== null) {
    return { kind: 'unchanged', summary: { ...summary, last_updated: before!.last_updated, version: unchanged } };
  }
  const data = serialiseManifest(manifest);
  lastWritten = null; // until the new bytes are the live file's
  const record = writeVersion({
    paths,
    agentId: args.agent_id,
    livePath,
    data,
    op: job.origin.op,
    actor: job.origin.actor,
    now,
    keep: job.keep,
    gate: io.gate,
    writer: io.writer,
    warn: io.warn,
    counts: {
      entities: rowCount(manifest, 'known_entities'),
      sessions: rowCount(manifest, 'recent_sessions'),
      notes: rowCount(manifest, 'notes'),
    },
  });
  lastWritten = { path: livePath, data, manifest };
  return {
    kind: 'written',
    summary: { ...summary, last_updated: manifest.last_updated, version: record.version },
    data,
    manifest,
  };
}

/**
 * The version the live file holds when the merged manifest equals it but for `last_updated`,
 * else null (something changed, or the live file is not a recorded version).
 */
function unchangedVersion(
  job: CommitJob,
  before: RawObject,
  after: RawObject,
  writer: LibraryFiles | undefined,
): number | null {
  if (!sameValue({ ...before, last_updated: null }, { ...after, last_updated: null })) return null;
  return currentVersion(readHistory(job.paths, job.args.agent_id, writer), readLive(job.livePath));
}
