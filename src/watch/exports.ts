/**
 * One export as the watch runs it: the export runner of `bourdon <id> export` (history, lock,
 * audit, rollback: participants/runner.ts), then what changed, counted against the manifest the
 * library held before (core/writes/manifest-diff.ts): `exported cursor: 3 entities changed`.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { OperationContext } from '../core/context.js';
import { describeError } from '../core/errors.js';
import { libraryPaths } from '../core/store/paths.js';
import { plural } from '../core/store/words.js';
import type { AccessLevel } from '../core/trust/access.js';
import { diffManifests, sideOf } from '../core/writes/manifest-diff.js';
import type { Participant } from '../participants/participant.js';
import { exportEnvironment, runExport } from '../participants/runner.js';
import type { Env } from '../core/store/config.js';

export interface ExportSettings {
  libraryRoot: string;
  /** Opens the library to write into (the command's, as `bourdon <id> export` opens it). */
  openLibrary(): OperationContext;
  auditPath: string;
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

function readOrNull(file: string): Buffer | null {
  try {
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
  const before = readOrNull(livePath);
  try {
    const report = await runExport(participant, exportEnvironment(settings.env), {
      accessLevel: settings.accessLevel,
      dryRun: false,
      library: settings.openLibrary,
      auditPath: settings.auditPath,
    });
    const extra = { version: report.version, path: report.path, counts: report.counts, warnings: report.warnings };
    if (report.outcome === 'nothing')
      return { kind: 'nothing', detail: 'no source found; nothing written', changed: false, extra };
    if (!report.written) return { kind: 'unchanged', detail: 'the library already holds it', changed: false, extra };
    const words = changeWords(before, readOrNull(report.path ?? livePath));
    const version = report.version !== null ? ` (version ${report.version})` : '';
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
