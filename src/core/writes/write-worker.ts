/**
 * The write thread a server runs live commits' work on (write-thread.ts): each message is a
 * commit job and the lock its holder (the event loop) holds for it; each answer the job's
 * result, or the error it threw, with the warnings it gave. A written manifest is also recorded
 * in the parsed cache here (the store's own check that the file holds exactly those bytes), so
 * the next one-shot read need not parse it, and answered as its record, which the server's own
 * store adopts on the loop.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';
import { describeError } from '../errors.js';
import { heldGateHandle, type HeldLock } from '../fs/gate.js';
import { L6Store } from '../store/library.js';
import { MANIFEST_SUFFIX, recordFromDoc } from '../store/manifest-file.js';
import { runCommitJob, type CommitJob } from './commit-job.js';
import type { WriteThreadAnswer } from './write-thread.js';

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

parentPort?.on('message', (message: { id: number; job: CommitJob; held: HeldLock; cachePath: string | null }) => {
  const warnings: string[] = [];
  const warn = (line: string) => warnings.push(line);
  let answer: WriteThreadAnswer;
  try {
    const result = runCommitJob(message.job, { gate: heldGateHandle(message.held), warn });
    if (result.kind !== 'written') answer = { id: message.id, result, warnings };
    else {
      const { paths, args } = message.job;
      const file = `${args.agent_id}${MANIFEST_SUFFIX}`;
      if (message.cachePath)
        new L6Store(paths.root, { warn }).written(file, result.data, result.manifest, message.cachePath);
      // The event loop gets the record, built here: the whole document need not cross, nor be
      // normalised on the loop (bench/README.md, memory).
      const { manifest, ...rest } = result;
      const record = recordFromDoc(manifest, file, path.join(paths.agents, file));
      answer = { id: message.id, result: { ...rest, record }, warnings };
    }
  } catch (error) {
    answer = { id: message.id, error: describeError(error), warnings };
  }
  parentPort!.postMessage(answer);
});
