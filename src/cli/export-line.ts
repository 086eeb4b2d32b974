/**
 * The one line an export prints (`exported cascade: 3 entities, 2 sessions → …`), shared by the
 * export commands (export-command.ts) and the export path that runs them without oclif
 * (export-path.ts): no oclif import here.
 */
import path from 'node:path';
import { colors, plural } from './output.js';
import { NO_SOURCE_FOUND, type ExportReport } from '../participants/runner.js';
import type { SourceStatus } from '../participants/kit/participant.js';

/**
 * Where an export looked, for its one line: each source's path but those inside a missing one,
 * which stands for them (codex's nine sources are `~/.codex` and `~/codex-brain`); `--json`
 * lists them all.
 */
function lookedFor(sources: readonly SourceStatus[]): string[] {
  const missing = sources.filter((source) => !source.found && source.path).map((source) => source.path);
  const under = (file: string, folder: string) => file.startsWith(folder + path.sep);
  return sources.map((source) => source.path).filter((file) => file && !missing.some((folder) => under(file, folder)));
}

/** One line saying what an export did, opening with its outcome (ExportReport.outcome), as --json says it. */
export function exportLine(report: ExportReport, looksFor?: string): string {
  const c = colors();
  if (report.outcome === 'skipped') {
    const looked = lookedFor(report.sources).join(', ') || looksFor;
    return `${c.dim('skipped')} ${report.agent_id}: ${report.reason ?? NO_SOURCE_FOUND}${looked ? ` (looked for ${looked})` : ''}; nothing written`;
  }
  const counts = report.counts
    ? `${plural(report.counts.entities, 'entity', 'entities')}, ${plural(report.counts.sessions, 'session')}`
    : '';
  if (report.outcome === 'dry-run') return `${c.cyan('dry-run')} ${report.agent_id}: ${counts}; nothing written`;
  const kept = report.kept && report.kept.entities + report.kept.sessions + report.kept.notes > 0;
  const keptText = kept
    ? c.dim(
        ` (kept from other writers: ${plural(report.kept!.entities, 'entity', 'entities')}, ${plural(report.kept!.sessions, 'session')}, ${plural(report.kept!.notes, 'note')})`,
      )
    : '';
  const review = c.dim(`; review: bourdon staging list --diff, then bourdon staging promote ${report.agent_id}`);
  if (report.outcome === 'staged')
    return `${c.green('staged')} ${report.agent_id}: ${counts} → ${report.path}${keptText}${review}`;
  if (report.outcome === 'unchanged') {
    if (report.staged)
      return `${c.cyan('unchanged')} ${report.agent_id}: ${counts}; already staged at ${report.path}${review}`;
    return `${c.cyan('unchanged')} ${report.agent_id}: ${counts}; ${report.path} already holds them${report.version !== null ? ` (version ${report.version})` : ''}`;
  }
  const version = report.version !== null ? ` ${c.bold(`version ${report.version}`)}` : '';
  return `${c.green('exported')} ${report.agent_id}${version}: ${counts} → ${report.path}${keptText}`;
}
