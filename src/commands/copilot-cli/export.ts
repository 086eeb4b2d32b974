import { ExportCommand, exportFlags, registeredParticipant } from '../../cli/export-command.js';

export default class CopilotCliExport extends ExportCommand {
  static override summary = "Publish Copilot CLI's sessions as the copilot-cli manifest.";
  static override description = `Reads Copilot CLI's session store ($COPILOT_CLI_HOME/session-store.db or ~/.copilot/session-store.db) read-only. Written into the library as a new version of agents/copilot-cli.l5.yaml (history, lock, audit: \`bourdon rollback copilot-cli <version>\` undoes it), or to --out FILE. Rows above --access-level (default team) are dropped and every text that looks like a credential is redacted before anything is written. The clock is SOURCE_DATE_EPOCH when set. docs/participants.md has the sources and rules.`;
  static override examples = [
    '<%= config.bin %> copilot-cli export',
    '<%= config.bin %> copilot-cli export --since 2026-04-01 --dry-run --json',
    '<%= config.bin %> copilot-cli export --out copilot-cli.l5.yaml --print',
  ];
  static override flags = exportFlags;

  async run(): Promise<void> {
    const { flags } = await this.parse(CopilotCliExport);
    await this.exportWith(registeredParticipant('copilot-cli'), flags);
  }
}
