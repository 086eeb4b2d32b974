/**
 * Running several participants in a row, as `bourdon export-all` and `bourdon init` do: each
 * one whose sources exist is exported (a failure never stops the others), and each run is told
 * in one line that fits the output width — `exported <id>: …`, `skipped <id>: no source`,
 * `failed <id>: <why>` — while `--json` carries the full detail (sources with their paths,
 * warnings, counts, the file and version written). Works for any registry entry.
 */
import { colors, outputColumns, plural } from './output.js';
import { cutVisible, displayWidth, stderrLine, truncate } from './width.js';
import { describeError } from '../core/errors.js';
import type { FinishCounts } from '../participants/finish.js';
import type { ExportKept } from '../core/writes/export-write.js';
import type { ExportEnvironment, Participant, SourceStatus } from '../participants/kit/participant.js';
import { runExport, type ExportOptions, type ExportOutcome } from '../participants/runner.js';

/** What became of one participant. */
export interface ParticipantRun {
  participant: string;
  agent_id: string;
  /**
   * The outcome words of a single export (runner.ts ExportOutcome: exported, unchanged, staged,
   * skipped, dry-run), and failed (and why): a failure never stops the others.
   */
  outcome: ExportOutcome | 'failed';
  /** Why it was skipped or failed; null otherwise. */
  reason: string | null;
  sources: readonly SourceStatus[];
  warnings: readonly string[];
  counts: FinishCounts | null;
  path: string | null;
  version: number | null;
  /** Whether a file was written (a new version, or a staged file), as a single export's --json says it. */
  written: boolean;
  /** Whether the rows are in staging for review (ExportReport.staged). */
  staged: boolean;
  kept: ExportKept | null;
}

/** The reason of a participant none of whose sources is on this machine. */
const NO_SOURCE = 'no source';

/** Whether any of a participant's sources is on this machine; a participant that cannot look has none. */
export async function foundSources(
  participant: Participant,
  environment: ExportEnvironment,
): Promise<{ sources: readonly SourceStatus[]; found: boolean; problem?: string }> {
  try {
    const sources = await participant.sources(environment);
    return { sources, found: sources.some((source) => source.found) };
  } catch (error) {
    return { sources: [], found: false, problem: describeError(error) };
  }
}

/** Runs each participant in turn; one that throws is a failed run, and the next still runs. */
export async function runParticipants(
  participants: readonly Participant[],
  environment: ExportEnvironment,
  options: ExportOptions,
): Promise<ParticipantRun[]> {
  const runs: ParticipantRun[] = [];
  for (const participant of participants) {
    const base = {
      participant: participant.topic ?? participant.agentId,
      agent_id: participant.agentId,
      warnings: [] as readonly string[],
      counts: null,
      path: null,
      version: null,
      written: false,
      staged: false,
      kept: null,
    };
    const looked = await foundSources(participant, environment);
    if (looked.problem !== undefined) {
      runs.push({ ...base, outcome: 'failed', reason: looked.problem, sources: [] });
      continue;
    }
    if (!looked.found) {
      runs.push({ ...base, outcome: 'skipped', reason: NO_SOURCE, sources: looked.sources });
      continue;
    }
    try {
      const report = await runExport(participant, environment, options);
      runs.push({
        ...base,
        outcome: report.outcome,
        reason: report.reason,
        sources: report.sources,
        warnings: report.warnings,
        counts: report.counts,
        path: report.path,
        version: report.version,
        written: report.written,
        staged: report.staged,
        kept: report.kept,
      });
    } catch (error) {
      runs.push({ ...base, outcome: 'failed', reason: describeError(error), sources: looked.sources });
    }
  }
  return runs;
}

const LABELS: Record<ParticipantRun['outcome'], string> = {
  exported: 'exported',
  unchanged: 'unchanged',
  staged: 'staged',
  'dry-run': 'dry-run',
  skipped: 'skipped',
  failed: 'failed',
};
const LABEL_WIDTH = Math.max(...Object.values(LABELS).map((label) => label.length));

/**
 * What a run did, after the id, longest form first: versions and counts (or why not), then the
 * rows kept of other writers and the warnings, each shorter in the later forms and then left out
 * (`--json` and stderr carry them whole). The first part, what happened, is in every form.
 */
function details(run: ParticipantRun): string[] {
  if (run.outcome === 'skipped' || run.outcome === 'failed') return [run.reason ?? ''];
  const counts = run.counts
    ? `${plural(run.counts.entities, 'entity', 'entities')}, ${plural(run.counts.sessions, 'session')}`
    : '';
  const version = run.version !== null ? `version ${run.version}` : '';
  const main =
    run.outcome === 'exported'
      ? [version, counts].filter(Boolean).join(', ')
      : run.outcome === 'unchanged'
        ? `${counts}${version ? `, as ${version}` : run.staged ? ', already staged' : ''}`
        : run.outcome === 'staged'
          ? `${counts}, for review`
          : counts;
  const kept = run.kept ? run.kept.entities + run.kept.sessions + run.kept.notes : 0;
  const warnings = run.warnings.length ? plural(run.warnings.length, 'warning') : '';
  const forms = [
    [main, kept ? `kept ${plural(kept, 'row')} of other writers` : '', warnings],
    [main, kept ? `kept ${kept}` : '', warnings],
    [main, '', warnings],
    [main, '', ''],
  ];
  return [...new Set(forms.map((parts) => parts.filter(Boolean).join('; ')))];
}

/**
 * One line for a run, fitted to the output width (`width`, by default the width human output is
 * fitted to; null never cuts): the longest form of its details that fits; when even the
 * shortest does not, only its end is cut, never the outcome and the id. The whole story is in `--json`.
 */
export function runLine(run: ParticipantRun, width: number | null = outputColumns()): string {
  const c = colors();
  const paint = {
    exported: c.green,
    unchanged: c.cyan,
    staged: c.green,
    'dry-run': c.cyan,
    skipped: c.dim,
    failed: c.red,
  }[run.outcome];
  const head = `${paint(LABELS[run.outcome].padEnd(LABEL_WIDTH))} ${run.agent_id}: `;
  const forms = details(run).map((detail) => head + detail);
  // details() gives at least one form.
  if (width === null) return forms[0]!;
  const fitting = forms.find((line) => displayWidth(line) <= width);
  if (fitting !== undefined) return fitting;
  const shortest = forms.at(-1)!;
  // The outcome and the id stay whole; only the detail after them is cut.
  if (displayWidth(head) < width) return head + truncate(shortest.slice(head.length), width - displayWidth(head));
  return cutVisible(shortest, width);
}

/** Warnings shown per participant on stderr; the rest are counted (`--json` lists them all). */
const SHOWN_WARNINGS = 3;

/** Prints a run's first warnings on stderr, one line each, and how many more there are. */
export function printRunWarnings(run: ParticipantRun): void {
  for (const warning of run.warnings.slice(0, SHOWN_WARNINGS))
    process.stderr.write(stderrLine(`bourdon: ${run.agent_id}: ${warning}`));
  const more = run.warnings.length - SHOWN_WARNINGS;
  if (more > 0)
    process.stderr.write(stderrLine(`bourdon: ${run.agent_id}: ${plural(more, 'more warning')} (--json lists them)`));
}
