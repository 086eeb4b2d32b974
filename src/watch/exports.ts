/**
 * One export as the watch runs it: `bourdon <topic> export --json` itself, in a process of its
 * own (the same flags, history, lock, audit and rollback as a user's; and the memory a large
 * export needs goes back to the system when it ends, so the watch stays small between changes),
 * then what changed, counted against the manifest the library held before
 * (core/writes/manifest-diff.ts): `exported cursor: 3 entities changed`.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../core/admin/package-root.js';
import { describeError } from '../core/errors.js';
import { libraryPaths } from '../core/store/paths.js';
import { plural } from '../core/store/words.js';
import type { AccessLevel } from '../core/trust/access.js';
import { diffManifests, sideOf } from '../core/writes/manifest-diff.js';
import type { Participant } from '../participants/kit/participant.js';
import type { Env } from '../core/store/config.js';

export interface ExportSettings {
  libraryRoot: string;
  accessLevel: AccessLevel;
  env: Env;
}

export interface ExportOutcome {
  kind: 'exported' | 'staged' | 'unchanged' | 'nothing' | 'failed';
  /** One line: what changed, or why not. */
  detail: string;
  /** Whether the library now holds something it did not (a push is due). */
  changed: boolean;
  extra: Record<string, unknown>;
}

/** Manifests larger than this are not diffed (the watch would hold them in memory): counts are said instead. */
const MAX_DIFF_BYTES = 1024 * 1024;

/** What `bourdon <topic> export --json` answers (cli/export-command.ts ExportPayload), the fields read here. */
interface ExportAnswer {
  outcome?: 'exported' | 'dry-run' | 'nothing';
  written?: boolean;
  staged?: boolean;
  version?: number | null;
  path?: string | null;
  counts?: { entities: number; sessions: number } | null;
  warnings?: string[];
  error?: string;
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

/** The file's bytes; null when it is not there; 'too large' past what the diff reads. */
function readForDiff(file: string): Buffer | null | 'too large' {
  try {
    if (fs.statSync(file).size > MAX_DIFF_BYTES) return 'too large';
    return fs.readFileSync(file);
  } catch {
    return null;
  }
}

/** "3 entities changed, 1 session changed": what a diff counts, rows added, removed or changed. */
function changeWords(
  before: Buffer | null,
  after: Buffer | null,
): { text: string; entities: number; sessions: number } {
  const diff = diffManifests(sideOf(before), sideOf(after), 'private');
  const count = (rows: { added: unknown[]; removed: unknown[]; changed: unknown[] }) =>
    rows.added.length + rows.removed.length + rows.changed.length;
  const entities = count(diff.entities);
  const sessions = count(diff.sessions);
  const parts = [
    ...(entities ? [`${plural(entities, 'entity', 'entities')} changed`] : []),
    ...(sessions ? [`${plural(sessions, 'session')} changed`] : []),
  ];
  return { text: parts.length ? parts.join(', ') : 'its fields changed', entities, sessions };
}

export async function exportParticipant(participant: Participant, settings: ExportSettings): Promise<ExportOutcome> {
  const id = participant.agentId;
  const paths = libraryPaths(settings.libraryRoot);
  const livePath = participant.staged
    ? path.join(paths.staging, id, `${id}.l5.yaml`)
    : path.join(paths.agents, `${id}.l5.yaml`);
  const before = readForDiff(livePath);
  try {
    const report = await exportChild(participant, settings);
    if (report.error !== undefined) return { kind: 'failed', detail: report.error, changed: false, extra: {} };
    const extra = {
      version: report.version ?? null,
      path: report.path ?? null,
      counts: report.counts ?? null,
      warnings: report.warnings ?? [],
    };
    if (report.outcome === 'nothing')
      return { kind: 'nothing', detail: 'no source found; nothing written', changed: false, extra };
    if (!report.written) return { kind: 'unchanged', detail: 'the library already holds it', changed: false, extra };
    const after = readForDiff(report.path ?? livePath);
    const words =
      before === 'too large' || after === 'too large' || after === null
        ? {
            text: `${plural(report.counts?.entities ?? 0, 'entity', 'entities')}, ${plural(report.counts?.sessions ?? 0, 'session')}`,
            entities: null,
            sessions: null,
          }
        : changeWords(before, after);
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
