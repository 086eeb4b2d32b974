/**
 * Writes to the live store (spec §5.10, §8, §9). A commit is validated (commit-input.ts),
 * then, under the library gate, the manifest is re-read from disk, merged or replaced exactly
 * as the Python engine does (manifest-build.ts), serialised (YAML 1.1-safe), checked to read
 * back as written, and written as a new version (history-writer.ts): commit-steps.ts, which a
 * server runs on its write thread (write-thread.ts) so reads go on meanwhile. The store then
 * adopts the written manifest. Nothing is written when anything fails.
 */
import path from 'node:path';
import type { OperationContext } from '../context.js';
import { BourdonError, type ErrorCode } from '../errors.js';
import { coded } from '../payload.js';
import { withLibraryGate, type GateHandle } from '../fs/gate.js';
import { historyKeep, readLive } from './history.js';
import { parsedLibraryCachePath } from '../store/config.js';
import { precheckCommit, type CommitArgs } from './commit-input.js';
import { MANIFEST_SUFFIX } from '../store/library.js';
import type { RawObject } from '../store/manifest.js';
import type { AgentRecord } from '../store/library.js';
import { parseExisting } from './manifest-build.js';
import type { CommitFailure, CommitSummary, WriteOrigin } from './commit-types.js';
import { runCommitJob, type CommitJob } from './commit-steps.js';
import { commitOnWriteThread } from './write-thread.js';
import { microsecondsOf } from '../store/dates.js';

export { SerialiseRefused, serialiseManifest } from './serialise.js';
export { buildManifest, mergeCommitRows, type BuiltManifest, type CommitCounts } from './manifest-build.js';

/** The commit's input shape, for the adapters that build one. */
export type { CommitArgs };

export type { CommitFailure, CommitSummary, WriteOrigin } from './commit-types.js';

/** A commit's refusal, as the engine answers it; its code (invalid input unless said) rides beside it (payload.ts coded). */
export function commitError(args: CommitArgs, message: string, code: ErrorCode = 'invalid_input'): CommitFailure {
  return coded({ error: message, agent_id: args.agent_id, mode: args.mode ?? 'merge' }, code);
}

/** The manifest a merge starts from: the live file, re-read under the gate. */
export function loadExisting(ctx: OperationContext, agentId: string, livePath: string): RawObject | null {
  const live = readLive(livePath);
  if (live) return parseExisting(live, livePath);
  const other = otherDeclaringFile(ctx.store.snapshot().byId.get(agentId), livePath);
  const data = other ? readLive(other) : null;
  return data ? parseExisting(data, other!) : null;
}

/** The engine also merges into a manifest that declares this id under another file name. */
function otherDeclaringFile(served: AgentRecord | undefined, livePath: string): string | null {
  return served && path.resolve(served.path) !== path.resolve(livePath) ? served.path : null;
}

/** Lets the event loop answer what waited while a step ran, before the next step takes it. */
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A live commit; the caller holds the library gate. Returns the write summary or an error
 * payload. The work under the gate (commit-steps.ts) runs on a server's write thread, in place
 * elsewhere or with injected file operations; either way the live file, its history and their
 * fsyncs are done before this answers. The store then adopts the written manifest.
 */
export async function commitLocked(
  ctx: OperationContext,
  args: CommitArgs,
  origin: WriteOrigin,
  gate: GateHandle,
): Promise<CommitSummary | CommitFailure> {
  const problem = precheckCommit(args);
  if (problem) return commitError(args, problem);
  const paths = ctx.store.paths;
  const file = `${args.agent_id}${MANIFEST_SUFFIX}`;
  const livePath = path.join(paths.agents, file);
  // The file named after the id is always the one served (store/snapshot.ts laterServedOver), so
  // what this writes is read back even where a stray file declares the id too.
  const served = ctx.store.snapshot().byId.get(args.agent_id);
  const now = ctx.now();
  const job: CommitJob = {
    paths,
    args,
    origin,
    now,
    microseconds: microsecondsOf(now),
    keep: historyKeep(ctx.env, ctx.warn),
    livePath,
    otherPath: otherDeclaringFile(served, livePath),
  };
  const cachePath = parsedLibraryCachePath(paths.root, ctx.env);
  // Reads meanwhile answer from the manifest as it was, not from a parse of the file the thread
  // is replacing: the write is not acknowledged until the store has adopted the new one.
  const release = ctx.store.holdWhileWriting(file);
  try {
    // Injected file operations (tests) cannot cross to a thread: those commits run in place.
    const onThread = ctx.files ? null : await commitOnWriteThread(job, gate.held, cachePath, ctx.warn);
    if (onThread) {
      if (onThread.kind === 'refused') return commitError(args, onThread.message, onThread.code);
      if (onThread.kind === 'written') {
        // The thread proved `data` reads back as the manifest, recorded it in the parsed cache
        // and built its record; the store adopts it after the reads that queued behind the answer.
        await yieldToLoop();
        if (onThread.record) ctx.store.adopt(file, onThread.data, onThread.record);
        else ctx.store.invalidate(file);
      }
      return onThread.summary;
    }
    const result = runCommitJob(job, { gate, writer: ctx.files, warn: ctx.warn });
    if (result.kind === 'refused') return commitError(args, result.message, result.code);
    if (result.kind === 'written') ctx.store.written(file, result.data, result.manifest, cachePath);
    return result.summary;
  } finally {
    release();
  }
}

/** A live commit: validated first, then merged and written under the library gate. */
export async function commitLive(
  ctx: OperationContext,
  args: CommitArgs,
  origin: WriteOrigin,
): Promise<CommitSummary | CommitFailure> {
  const problem = precheckCommit(args);
  if (problem) return commitError(args, problem);
  try {
    return await withLibraryGate(ctx.store.paths, (gate) => commitLocked(ctx, args, origin, gate), { warn: ctx.warn });
  } catch (error) {
    // The gate could not be taken (busy, read-only or full library): nothing was written.
    if (error instanceof BourdonError) return commitError(args, error.message, error.code);
    throw error;
  }
}
