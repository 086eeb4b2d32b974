/**
 * The heavy part of explain_memory_change, rollback_agent_memory and list_memory_versions for a
 * capped caller, as plain-data jobs a server runs on its write thread (write-thread.ts) and
 * other processes in place: reading and unpacking archived versions, parsing and diffing two of
 * them, counting the rows of each a caller may see, and writing a restored version.
 * On the event loop they held every read for the time a large manifest takes to parse twice
 * (explain) or to be restored and parsed again by the next read (rollback). The operations'
 * checks, audit and answers stay in versions.ts.
 */
import path from 'node:path';
import { BourdonError } from '../errors.js';
import { canSee, policyOf, rowLevel } from '../trust/access.js';
import type { LibraryFiles } from '../fs/atomic.js';
import type { GateHandle } from '../fs/gate.js';
import { isObject, type RawObject } from '../store/manifest.js';
import { MANIFEST_SUFFIX } from '../store/manifest-file.js';
import type { LibraryPaths } from '../store/paths.js';
import type { AccessLevel } from '../store/visibility.js';
import { currentVersion, readArchive, readHistory, readLive, type HistoryState } from './history.js';
import { writeVersion } from './history-writer.js';
import { diffManifests, sideOf } from './manifest-diff.js';
import { sha256, type RowCounts } from './version-record.js';

/** Two archived versions of one agent to diff, at what the caller may see. */
export interface ExplainJob {
  /** The agent's history as the caller read it to check the versions (plain data). */
  state: HistoryState;
  version: number;
  /** The older side, or null (the first version: against nothing). */
  base: number | null;
  ceiling: AccessLevel;
}

export type ManifestDiffResult = ReturnType<typeof diffManifests>;

/** The diff of two archived versions; throws a one-line reason when one cannot be read. */
export function runExplainJob(job: ExplainJob, files?: LibraryFiles): ManifestDiffResult {
  const newer = sideOf(readArchive(job.state, job.version, files));
  const older = sideOf(job.base === null ? null : readArchive(job.state, job.base, files));
  return diffManifests(older, newer, job.ceiling);
}

/** Archived versions of one agent whose rows a caller capped at `ceiling` may see, to count. */
export interface CountsJob {
  /** The agent's history as the caller read it to list the versions (plain data). */
  state: HistoryState;
  versions: number[];
  ceiling: AccessLevel;
}

/**
 * The rows of each version the caller may see, in the job's order; null counts for a version
 * whose archive cannot be read (damaged). Each archive is parsed whole: up to the history's
 * 100 kept versions of a large manifest, seconds of CPU the first time (callers cache by hash).
 */
export function runCountsJob(job: CountsJob, files?: LibraryFiles): RowCounts[] {
  return job.versions.map((version) => {
    let doc: RawObject | null;
    try {
      doc = sideOf(readArchive(job.state, version, files)).doc;
    } catch {
      doc = null; // a damaged archive: counts unknown
    }
    const count = (field: string) => {
      const rows = doc?.[field];
      if (!Array.isArray(rows)) return doc ? 0 : null;
      const policy = policyOf(doc);
      return rows.filter((row) => isObject(row) && canSee(job.ceiling, rowLevel(row, policy))).length;
    };
    return { entities: count('known_entities'), sessions: count('recent_sessions'), notes: count('notes') };
  });
}

/** A version to restore as the live manifest, with what the new version record needs. */
export interface RollbackJob {
  paths: LibraryPaths;
  agentId: string;
  version: number;
  actor: string;
  now: Date;
  keep: number;
}

export type RollbackJobResult =
  | { kind: 'failed'; message: string }
  | { kind: 'unknown' }
  /** The live file already holds those bytes: nothing written. */
  | { kind: 'in-place'; version: number; sha256: string }
  /** A new version holding the restored bytes. */
  | { kind: 'written'; version: number; sha256: string; data: Buffer };

/** Where a rollback's files and warnings go: the gate its caller holds, the file seam, the warning sink. */
export interface RollbackJobIo {
  gate: GateHandle;
  writer?: LibraryFiles;
  warn: (message: string) => void;
}

/** Restores a version under the gate its caller holds. Refusals come back as `failed`. */
export function runRollbackJob(job: RollbackJob, io: RollbackJobIo): RollbackJobResult {
  const file = `${job.agentId}${MANIFEST_SUFFIX}`;
  const livePath = path.join(job.paths.agents, file);
  try {
    const state = readHistory(job.paths, job.agentId, io.writer);
    const data = readArchive(state, job.version, io.writer);
    if (!data) return { kind: 'unknown' };
    const live = readLive(livePath);
    const inPlace = live && live.equals(data) ? currentVersion(state, live) : null;
    if (inPlace !== null) return { kind: 'in-place', version: inPlace, sha256: sha256(data) };
    const written = writeVersion({
      paths: job.paths,
      agentId: job.agentId,
      livePath,
      data,
      op: 'rollback',
      actor: job.actor,
      now: job.now,
      keep: job.keep,
      gate: io.gate,
      writer: io.writer,
      warn: io.warn,
    });
    return { kind: 'written', version: written.version, sha256: written.sha256, data };
  } catch (error) {
    if (error instanceof BourdonError) return { kind: 'failed', message: error.message };
    throw error;
  }
}
