/**
 * The write thread a server runs live commits', rollbacks' and explanations' work on
 * (write-thread.ts): each message is a task (a commit or rollback job with the lock its holder,
 * the event loop, holds for it; or two versions to diff); each answer the task's result, or the
 * error it threw, with the warnings it gave. A committed manifest is also recorded in the parsed
 * cache here (the store's own check that the file holds exactly those bytes), so the next
 * one-shot read need not parse it; a committed or restored manifest is answered as its record,
 * which the server's own store adopts on the loop.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';
import { describeError } from '../errors.js';
import { heldGateHandle } from '../fs/gate.js';
import { LibraryStore } from '../store/library.js';
import { MANIFEST_SUFFIX, parseManifest, recordFromDoc, type AgentRecord } from '../store/manifest-file.js';
import { runCommitJob } from './commit-steps.js';
import { runCountsJob, runExplainJob, runRollbackJob } from './version-jobs.js';
import type { ThreadTask, ThreadTasks, WriteThreadAnswer } from './write-thread.js';

/** How much nicer than the event loop the thread runs. */
const NICER_BY = 5;

/**
 * On a machine short of CPU the event loop's reads go first and a commit takes longer instead:
 * the thread lowers its own scheduling priority (Linux: nice is per thread, and the thread's id
 * is the name /proc/thread-self points at). Elsewhere, or when not allowed, it runs as it is.
 */
function yieldCpuToReads(): void {
  try {
    const threadId = Number(path.basename(fs.readlinkSync('/proc/thread-self')));
    if (!Number.isInteger(threadId) || threadId <= 0 || threadId === process.pid) return;
    os.setPriority(threadId, Math.min(19, os.getPriority(threadId) + NICER_BY));
  } catch {
    // not Linux, or not permitted: normal priority
  }
}

yieldCpuToReads();

/**
 * The record of a manifest just written, as the store serves it, or null when it is not one (a
 * restored version that never was): the store then reads the file as it loads any other.
 */
function recordOf(file: string, agentsDir: string, build: (full: string) => AgentRecord): AgentRecord | null {
  try {
    return build(path.join(agentsDir, file));
  } catch {
    return null;
  }
}

/** Each task's work on this thread, keyed by its kind (write-thread.ts ThreadTasks). */
const HANDLERS: {
  [K in keyof ThreadTasks]: (
    task: Extract<ThreadTask, { kind: K }>,
    warn: (line: string) => void,
  ) => ThreadTasks[K]['output'];
} = {
  commit({ job, held, cachePath }, warn) {
    const result = runCommitJob(job, { gate: heldGateHandle(held), warn });
    if (result.kind !== 'written') return result;
    const file = `${job.args.agent_id}${MANIFEST_SUFFIX}`;
    if (cachePath) new LibraryStore(job.paths.root, { warn }).written(file, result.data, result.manifest, cachePath);
    // The event loop gets the record, built here: the whole document need not cross, nor be
    // normalised on the loop (bench/README.md, memory).
    const { manifest, ...rest } = result;
    return { ...rest, record: recordOf(file, job.paths.agents, (full) => recordFromDoc(manifest, file, full)) };
  },
  rollback({ job, held }, warn) {
    const result = runRollbackJob(job, { gate: heldGateHandle(held), warn });
    if (result.kind !== 'written') return result;
    const file = `${job.agentId}${MANIFEST_SUFFIX}`;
    return { ...result, record: recordOf(file, job.paths.agents, (full) => parseManifest(result.data, file, full)) };
  },
  explain({ job }) {
    return runExplainJob(job);
  },
  counts({ job }) {
    return runCountsJob(job);
  },
};

function run<K extends keyof ThreadTasks>(task: Extract<ThreadTask, { kind: K }>, warn: (line: string) => void) {
  return HANDLERS[task.kind](task, warn);
}

parentPort?.on('message', (message: { id: number; task: ThreadTask }) => {
  const warnings: string[] = [];
  const warn = (line: string) => warnings.push(line);
  let answer: WriteThreadAnswer;
  try {
    answer = { id: message.id, result: run(message.task, warn), warnings };
  } catch (error) {
    answer = { id: message.id, error: describeError(error), warnings };
  }
  parentPort!.postMessage(answer);
});
