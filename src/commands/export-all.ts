import { exportFlags } from '../cli/export-command.js';
import { BaseCommand } from '../cli/base-command.js';
import { printRunWarnings, runLine, runParticipants, type ParticipantRun } from '../cli/participant-runs.js';
import { configPaths } from '../core/store/config.js';
import type { OperationContext } from '../core/context.js';
import { PARTICIPANTS } from '../participants/registry.js';
import { exportEnvironment } from '../participants/runner.js';

export default class ExportAll extends BaseCommand {
  static override summary = 'Export every participant whose sources exist into the library.';
  static override description = `Runs every registered participant (each agent Bourdon can read: \`bourdon help\` lists their export commands) whose native files are on this machine, and writes each manifest into the library as a new version (as \`bourdon <agent> export\` does). One line each, fitted to the terminal: exported (version and counts), unchanged, skipped (no source on this machine) or failed (and why). --json gives the full detail: the sources looked at with their paths, the warnings, the counts, the file and version written. A failure never stops the others; the exit status is 1 only if one failed. Run it after a session, from a hook, or once to fill a new library.`;
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

  async run(): Promise<{ results: ParticipantRun[]; failed: number }> {
    const { flags } = await this.parse(ExportAll);
    const environment = exportEnvironment(process.env, { since: flags.since });
    let library: OperationContext | undefined;
    const results = await runParticipants(PARTICIPANTS, environment, {
      accessLevel: flags['access-level'],
      dryRun: flags['dry-run'],
      library: () => (library ??= this.libraryForExport(flags.library)),
      auditPath: configPaths(process.env).audit,
    });
    if (!this.jsonEnabled()) for (const result of results) printRunWarnings(result);
    const failed = results.filter((result) => result.outcome === 'failed').length;
    const payload = this.emit({ results, failed }, () => results.map((result) => runLine(result)));
    if (failed > 0) this.exitAfter(payload, 1);
    return payload;
  }
}
