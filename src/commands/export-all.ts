import { ExportCommand, exportFlags, exportLine } from '../cli/export-command.js';
import { colors } from '../cli/output.js';
import { stderrLine } from '../cli/width.js';
import { describeError } from '../core/errors.js';
import { configPaths } from '../core/store/config.js';
import type { OperationContext } from '../core/context.js';
import type { AccessLevel } from '../core/trust/access.js';
import { PARTICIPANTS } from '../participants/registry.js';
import { exportEnvironment, runExport, type ExportReport } from '../participants/runner.js';
import type { SourceStatus } from '../participants/participant.js';

/** One participant's line of export-all. */
interface ExportAllResult {
  participant: string;
  agent_id: string;
  /** exported / dry-run / nothing (ran, found nothing to write) / skipped (no source) / failed. */
  outcome: ExportReport['outcome'] | 'skipped' | 'failed';
  reason: string | null;
  report: Omit<ExportReport, 'yaml'> | null;
  sources: readonly SourceStatus[];
}

export default class ExportAll extends ExportCommand {
  static override summary = 'Export every participant whose sources exist into the library.';
  static override description = `Runs each registered participant (claude-code, codex, cursor, copilot-cli, mcp-memory) whose native files are on this machine, and writes each manifest into the library as a new version (as \`bourdon <participant> export\` does), one line each: exported, skipped (no source found) or failed (and why). A failure never stops the others; the exit status is 1 only if one failed. Run it after a session, from a hook, or once to fill a new library.`;
  static override examples = [
    '<%= config.bin %> export-all',
    '<%= config.bin %> export-all --dry-run',
    '<%= config.bin %> export-all --library ./agent-library --json',
  ];
  static override flags = {
    since: exportFlags.since,
    'access-level': exportFlags['access-level'],
    'dry-run': exportFlags['dry-run'],
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ExportAll);
    const environment = exportEnvironment(process.env, { since: flags.since });
    let library: OperationContext | undefined;
    const results: ExportAllResult[] = [];
    for (const participant of PARTICIPANTS) {
      const base = { participant: participant.topic, agent_id: participant.agentId };
      let sources: readonly SourceStatus[] = [];
      try {
        sources = await participant.sources(environment);
        if (!sources.some((source) => source.found)) {
          results.push({ ...base, outcome: 'skipped', reason: 'no source found', report: null, sources });
          continue;
        }
        const report = await runExport(participant, environment, {
          accessLevel: flags['access-level'] as AccessLevel,
          dryRun: flags['dry-run'],
          library: () => (library ??= this.libraryForExport(flags.library)),
          auditPath: configPaths(process.env).audit,
        });
        const { yaml: _yaml, ...rest } = report;
        const reason = report.outcome === 'nothing' ? 'no source found' : null;
        results.push({ ...base, outcome: report.outcome, reason, report: rest, sources });
      } catch (error) {
        results.push({ ...base, outcome: 'failed', reason: describeError(error), report: null, sources });
      }
    }
    const failed = results.filter((result) => result.outcome === 'failed').length;
    this.emit({ results, failed }, () => results.map(resultLine).join('\n'));
    if (failed > 0) this.exit(1);
  }
}

function resultLine(result: ExportAllResult): string {
  const c = colors();
  if (result.outcome === 'failed') return `${c.red('failed')}   ${result.agent_id}: ${result.reason}`;
  if (result.outcome === 'skipped') {
    const looked = result.sources.map((source) => source.path).join(', ');
    return `${c.dim('skipped')}  ${result.agent_id}: no source found${looked ? c.dim(` (looked for ${looked})`) : ''}`;
  }
  if (!result.report) return `${result.outcome} ${result.agent_id}`;
  for (const warning of result.report.warnings)
    process.stderr.write(stderrLine(`bourdon: ${result.agent_id}: ${warning}`));
  return exportLine({ ...result.report, yaml: null });
}
