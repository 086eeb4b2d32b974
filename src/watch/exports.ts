/**
 * One export as the watch runs it: what `bourdon <topic> export --json` does, in a process of its
 * own (the same runner, history, lock, audit and rollback as a user's; and the memory a large
 * export needs goes back to the system, so the watch stays small between changes) — the warm
 * export worker (warm-export.ts), recycled after a large export, or where it is not built the
 * command itself —, then what changed, counted against the manifest the library held before
 * (core/writes/manifest-diff.ts): `exported cursor: 3 entities changed`.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { packageRoot } from '../core/admin/package-root.js';
import { describeError } from '../core/errors.js';
import type { AccessLevel } from '../core/trust/access.js';
import type { Participant } from '../participants/kit/participant.js';
import type { Env } from '../core/store/config.js';
import type { WarmExport } from './warm-export.js';
import { liveManifestPath, readForDiff, wordsOf, type ChangeWords } from './change-words.js';

export interface ExportSettings {
  libraryRoot: string;
  accessLevel: AccessLevel;
  env: Env;
  /** The warm export process; null or absent: `bourdon <topic> export` is run for each export. */
  warm?: WarmExport | null;
}

export interface ExportOutcome {
  kind: 'exported' | 'staged' | 'unchanged' | 'nothing' | 'failed';
  /** One line: what changed, or why not. */
  detail: string;
  /** Whether the library now holds something it did not (a push is due). */
  changed: boolean;
  extra: Record<string, unknown>;
}

/** What `bourdon <topic> export --json` answers (cli/export-command.ts ExportPayload), the fields read here. */
interface ExportAnswer {
  outcome?: 'exported' | 'unchanged' | 'staged' | 'skipped' | 'dry-run';
  written?: boolean;
  staged?: boolean;
  version?: number | null;
  path?: string | null;
  counts?: { entities: number; sessions: number } | null;
  warnings?: string[];
  error?: string;
  /** What changed, counted by the warm worker (it read the manifest before and after). */
  change_words?: ChangeWords;
}

function exportChild(participant: Participant, settings: ExportSettings): Promise<ExportAnswer> {
  const cli = path.join(packageRoot(), 'bin', 'run.js');
  const args = [cli, participant.topic, 'export', '--json', '--library', settings.libraryRoot];
  args.push('--access-level', settings.accessLevel);
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { env: settings.env as NodeJS.ProcessEnv, maxBuffer: 64 * 1024 * 1024, windowsHide: true },
      (error, stdout, stderr) => {
        let answer: ExportAnswer | null;
        try {
          answer = JSON.parse(stdout) as ExportAnswer;
        } catch {
          answer = null;
        }
        if (!error && answer) return resolve(answer);
        const reason =
          (answer && typeof answer.error === 'string' && answer.error) ||
          stderr
            .split('\n')
            .map((line) => line.replace(/^bourdon: /, '').trim())
            .find(Boolean) ||
          describeError(error);
        resolve({ error: reason });
      },
    );
  });
}

export async function exportParticipant(participant: Participant, settings: ExportSettings): Promise<ExportOutcome> {
  const livePath = liveManifestPath(settings.libraryRoot, participant);
  // The warm worker reads and counts the change itself, so the watch holds no manifest.
  const before = settings.warm ? null : readForDiff(livePath);
  try {
    const report: ExportAnswer = settings.warm
      ? await settings.warm.run(participant.agentId, settings.libraryRoot, settings.accessLevel)
      : await exportChild(participant, settings);
    if (report.error !== undefined) return { kind: 'failed', detail: report.error, changed: false, extra: {} };
    const extra = {
      version: report.version ?? null,
      path: report.path ?? null,
      counts: report.counts ?? null,
      warnings: report.warnings ?? [],
    };
    if (report.outcome === 'skipped')
      return { kind: 'nothing', detail: 'no source found; nothing written', changed: false, extra };
    if (!report.written) return { kind: 'unchanged', detail: 'the library already holds it', changed: false, extra };
    const words = report.change_words ?? wordsOf(before, readForDiff(report.path ?? livePath), report.counts);
    const version = report.version !== null && report.version !== undefined ? ` (version ${report.version})` : '';
    return {
      kind: report.staged ? 'staged' : 'exported',
      detail: `${words.text}${version}`,
      changed: !report.staged,
      extra: { ...extra, entities_changed: words.entities, sessions_changed: words.sessions },
    };
  } catch (error) {
    return { kind: 'failed', detail: describeError(error), changed: false, extra: {} };
  }
}
