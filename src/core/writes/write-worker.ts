/**
 * The write thread a server runs live commits' work on (write-thread.ts): each message is a
 * commit job and the lock its holder (the event loop) holds for it; each answer the job's
 * result, or the error it threw, with the warnings it gave. A written manifest is also recorded
 * in the parsed cache here (the store's own check that the file holds exactly those bytes), so
 * the next one-shot read need not parse it; the server's own store adopts it on the loop.
 */
import { parentPort } from 'node:worker_threads';
import { describeError } from '../errors.js';
import { heldGateHandle, type HeldLock } from '../fs/gate.js';
import { L6Store } from '../store/library.js';
import { MANIFEST_SUFFIX } from '../store/manifest-file.js';
import { runCommitJob, type CommitJob } from './commit-job.js';
import type { WriteThreadAnswer } from './write-thread.js';

parentPort?.on('message', (message: { id: number; job: CommitJob; held: HeldLock; cachePath: string | null }) => {
  const warnings: string[] = [];
  const warn = (line: string) => warnings.push(line);
  let answer: WriteThreadAnswer;
  try {
    const result = runCommitJob(message.job, { gate: heldGateHandle(message.held), warn });
    answer = { id: message.id, result, warnings };
    if (result.kind === 'written' && message.cachePath) {
      const { paths, args } = message.job;
      new L6Store(paths.root, { warn }).written(
        `${args.agent_id}${MANIFEST_SUFFIX}`,
        result.data,
        result.manifest,
        message.cachePath,
      );
    }
  } catch (error) {
    answer = { id: message.id, error: describeError(error), warnings };
  }
  parentPort!.postMessage(answer);
});
