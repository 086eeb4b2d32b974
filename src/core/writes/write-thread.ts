/**
 * A server's write thread: the worker (write-worker.ts) a live commit's work under the gate
 * runs on (commit-steps.ts: parse of the live manifest, merge, serialise and read-back proof,
 * archive delta, fsyncs), and a rollback's, an explanation's and a capped version list's
 * (version-jobs.ts: unpacking, parsing, diffing and counting archived versions, writing a
 * restored one), so the event loop goes on
 * answering reads from the last snapshot meanwhile. The event loop keeps the gate: it takes the
 * lock, refreshes it, and releases it only once the thread has answered; the thread checks the
 * lock is still held before it replaces the live file, as any holder does. One-shot processes
 * run the job in place: starting a worker would cost them more than it saves.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import type { HeldLock } from '../fs/gate.js';
import type { AgentRecord } from '../store/manifest-file.js';
import type { CommitJob, CommitJobResult } from './commit-steps.js';
import type { RowCounts } from './version-record.js';
import type { CountsJob, ExplainJob, ManifestDiffResult, RollbackJob, RollbackJobResult } from './version-jobs.js';

/** A worker idle this long is stopped (its heap is returned); the next commit starts another. */
const IDLE_MS = 15_000;

/**
 * The thread's young generation, in MB. V8's default lets it grow to tens of MB while a commit
 * parses and serialises a large manifest, and keeps it; a small fixed one leaves the server
 * smaller after a large commit at no measurable cost (bench/README.md, memory).
 */
const YOUNG_GENERATION_MB = 4;

/**
 * A commit job's result as the thread answers it: a written manifest as its record, not its
 * document (null: not a manifest, which the store then reads as it loads any other file).
 */
export type ThreadCommitResult =
  | Exclude<CommitJobResult, { kind: 'written' }>
  | (Omit<Extract<CommitJobResult, { kind: 'written' }>, 'manifest'> & { record: AgentRecord | null });

/** A rollback's result as the thread answers it: restored bytes come with their record (null: not a manifest). */
export type ThreadRollbackResult =
  | Exclude<RollbackJobResult, { kind: 'written' }>
  | (Extract<RollbackJobResult, { kind: 'written' }> & { record: AgentRecord | null });

/** Each task the thread runs: what it is sent, and what it answers. */
export interface ThreadTasks {
  commit: { input: { job: CommitJob; held: HeldLock; cachePath: string | null }; output: ThreadCommitResult };
  rollback: { input: { job: RollbackJob; held: HeldLock }; output: ThreadRollbackResult };
  explain: { input: { job: ExplainJob }; output: ManifestDiffResult };
  counts: { input: { job: CountsJob }; output: RowCounts[] };
}

export type ThreadTask = { [K in keyof ThreadTasks]: { kind: K } & ThreadTasks[K]['input'] }[keyof ThreadTasks];

/** What the thread answers for one task: its result or the error it threw, and its warnings. */
export interface WriteThreadAnswer {
  id: number;
  result?: ThreadTasks[keyof ThreadTasks]['output'];
  error?: string;
  warnings: string[];
}

/** The thread died or could not be reached: the caller runs the job in place. */
class ThreadGone extends Error {}

let enabled = false;
let worker: Worker | null = null;
let idleTimer: NodeJS.Timeout | null = null;
let nextId = 0;
const waiting = new Map<number, { resolve: (answer: WriteThreadAnswer) => void; reject: (error: Error) => void }>();

/** Run live commits on the write thread from now on (a server calls this once at start). */
export function writeOffThread(on = true): void {
  enabled = on;
  if (!on) stopWorker();
}

/** The worker's script beside this module: in dist/ as tsc writes it, or in the bundle. */
function workerScript(): string | null {
  for (const relative of ['./write-worker.js', '../write-worker.js']) {
    const file = fileURLToPath(new URL(relative, import.meta.url));
    if (fs.existsSync(file)) return file;
  }
  return null; // running from sources (tests): in place
}

function stopWorker(): void {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = null;
  const stopping = worker;
  worker = null;
  void stopping?.terminate();
  for (const [, pending] of waiting) pending.reject(new ThreadGone('the write thread stopped'));
  waiting.clear();
}

async function startWorker(): Promise<Worker | null> {
  const script = workerScript();
  if (!script) return null;
  const { Worker: WorkerThread } = await import('node:worker_threads');
  const started = new WorkerThread(script, { resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
  started.on('message', (answer: WriteThreadAnswer) => {
    const pending = waiting.get(answer.id);
    if (!pending) return;
    waiting.delete(answer.id);
    pending.resolve(answer);
  });
  const fail = (error: Error) => {
    if (worker === started) worker = null;
    for (const [, pending] of waiting) pending.reject(new ThreadGone(error.message));
    waiting.clear();
  };
  started.on('error', fail);
  started.on('exit', () => fail(new Error('the write thread exited')));
  // Keeps the process only while a job is in flight (below); after the listeners, which would ref it again.
  started.unref();
  return started;
}

/**
 * Runs a task on the write thread and returns its result, or null when the task is to run in
 * place: no thread was asked for, none could start, or it died before answering. A thread that
 * died mid-task is a crashed writer: the task run in place completes or drops the version it
 * left pending first (history-writer.ts), exactly as the next writer after a crash would. The
 * task's own errors are thrown here as they would be in place.
 */
async function onWriteThread<K extends keyof ThreadTasks>(
  task: Extract<ThreadTask, { kind: K }>,
  warn: (message: string) => void,
): Promise<ThreadTasks[K]['output'] | null> {
  if (!enabled) return null;
  const id = (nextId += 1);
  let answer: WriteThreadAnswer;
  try {
    worker ??= await startWorker();
    if (!worker) return null;
    if (idleTimer) clearTimeout(idleTimer);
    const answered = new Promise<WriteThreadAnswer>((resolve, reject) => waiting.set(id, { resolve, reject }));
    // A process does not exit with a write in flight: the thread is held while it works.
    worker.ref();
    worker.postMessage({ id, task });
    answer = await answered;
  } catch {
    return null; // could not start, could not send, or died: in place
  } finally {
    waiting.delete(id);
    if (worker && waiting.size === 0) {
      worker.unref();
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = setTimeout(stopWorker, IDLE_MS);
      idleTimer.unref();
    }
  }
  for (const message of answer.warnings) warn(message);
  if (answer.error !== undefined) throw new Error(answer.error);
  // The thread answers a task of kind K with that kind's output (write-worker.ts).
  return answer.result as ThreadTasks[K]['output'];
}

/** A Buffer crosses to this thread as a plain Uint8Array over the same memory. */
function asBuffer(data: Uint8Array): Buffer {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/** A live commit's job on the write thread (see onWriteThread); null: run it in place. */
export async function commitOnWriteThread(
  job: CommitJob,
  held: HeldLock,
  /** The parsed cache the thread records a written manifest in (the CLI's), or null. */
  cachePath: string | null,
  warn: (message: string) => void,
): Promise<ThreadCommitResult | null> {
  const result = await onWriteThread({ kind: 'commit', job, held, cachePath }, warn);
  return result?.kind === 'written' ? { ...result, data: asBuffer(result.data) } : result;
}

/** A rollback on the write thread (see onWriteThread); null: run it in place. */
export async function rollbackOnWriteThread(
  job: RollbackJob,
  held: HeldLock,
  warn: (message: string) => void,
): Promise<ThreadRollbackResult | null> {
  const result = await onWriteThread({ kind: 'rollback', job, held }, warn);
  return result?.kind === 'written' ? { ...result, data: asBuffer(result.data) } : result;
}

/** An explanation's diff on the write thread (see onWriteThread); null: compute it in place. */
export function explainOnWriteThread(
  job: ExplainJob,
  warn: (message: string) => void,
): Promise<ManifestDiffResult | null> {
  return onWriteThread({ kind: 'explain', job }, warn);
}

/** A capped caller's row counts of archived versions on the write thread (see onWriteThread); null: in place. */
export function countsOnWriteThread(job: CountsJob, warn: (message: string) => void): Promise<RowCounts[] | null> {
  return onWriteThread({ kind: 'counts', job }, warn);
}
