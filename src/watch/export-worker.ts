/**
 * The export worker: a process the watch keeps warm (warm-export.ts) so an export does not pay
 * for a Node start and the CLI's load each time. Each message is one export, run as
 * `bourdon <topic> export --json --library <root> --access-level <level>` runs it (the export
 * runner: history, lock, audit, rollback; the library's agents/ made when missing); each answer
 * is what that command prints as JSON, with what changed in words (change-words.ts), or `{ error }`, with the process's RSS after it, so the
 * watch can let a worker that grew go (its memory back to the system) and start a fresh one. The
 * library is opened per export as an ids-only view (storeOf).
 * It ignores Ctrl-C (the terminal sends it to the whole group): the watch finishes the export in
 * flight, then lets the worker go; it ends when the watch does (the channel closes).
 */
import fs from 'node:fs';
import { createContext } from '../core/context.js';
import { describeError } from '../core/errors.js';
import { configPaths, parsedLibraryCachePath } from '../core/store/config.js';
import type { LibraryStore } from '../core/store/library.js';
import { PartialLibraryStore } from '../core/store/partial-store.js';
import { libraryPaths } from '../core/store/paths.js';
import type { AccessLevel } from '../core/trust/access.js';
import { participantById } from '../participants/registry.js';
import { exportEnvironment, runExport } from '../participants/runner.js';
import { liveManifestPath, readForDiff, wordsOf } from './change-words.js';

/** One export asked of the worker. */
export interface ExportTask {
  readonly id: number;
  readonly agentId: string;
  readonly libraryRoot: string;
  readonly accessLevel: AccessLevel;
}

/** Its answer: the export's report as `--json` prints it, or the failure's line; the worker's RSS after it. */
export interface ExportTaskAnswer {
  readonly id: number;
  readonly answer: Record<string, unknown>;
  readonly rss: number;
}

const warn = () => {}; // the export's own warnings are in its report

/**
 * The library as an export needs it: which file serves each agent id, and nothing more. The
 * export reads and writes its own manifest itself; reading every other agent's rows (a full
 * snapshot) cost half of an export's CPU. The parsed cache's entries give the ids without a
 * parse, so a fresh view per export is cheap and never stale.
 */
function storeOf(root: string): LibraryStore {
  return new PartialLibraryStore(root, 'ids', { warn, cachePath: parsedLibraryCachePath(root) });
}

async function runTask(task: ExportTask): Promise<Record<string, unknown>> {
  try {
    const participant = participantById(task.agentId);
    if (!participant) return { error: `no participant ${task.agentId}` };
    const env = process.env;
    const config = configPaths(env);
    const paths = libraryPaths(task.libraryRoot);
    if (!fs.existsSync(paths.agents)) fs.mkdirSync(paths.agents, { recursive: true });
    const livePath = liveManifestPath(paths.root, participant);
    const before = readForDiff(livePath);
    const store = storeOf(paths.root);
    store.assertExists();
    const report = await runExport(participant, exportEnvironment(env), {
      accessLevel: task.accessLevel,
      dryRun: false,
      library: () => createContext(store, { warn, config }),
      auditPath: config.audit,
    });
    const { yaml: _yaml, ...payload } = report;
    if (!report.written || report.outcome === 'skipped') return { ...payload };
    return { ...payload, change_words: wordsOf(before, readForDiff(report.path ?? livePath), report.counts) };
  } catch (error) {
    return { error: describeError(error) };
  }
}

if (process.send) {
  process.on('SIGINT', () => {});
  process.on('disconnect', () => process.exit(0));
  let queue: Promise<void> = Promise.resolve();
  process.on('message', (task: ExportTask) => {
    queue = queue.then(async () => {
      const answer = await runTask(task);
      const reply: ExportTaskAnswer = { id: task.id, answer, rss: process.memoryUsage.rss() };
      process.send?.(reply);
    });
  });
}
