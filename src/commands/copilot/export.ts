import { ExportCommand, exportFlags, registeredParticipant } from '../../cli/export-command.js';

export default class CopilotExport extends ExportCommand {
  static override summary = "Publish Copilot's convention memory file as the copilot manifest.";
  static override description = `Reads the memory file GitHub Copilot is asked to keep, $COPILOT_BOURDON_HOME/memory.md or ~/.copilot-bourdon/memory.md (its YAML front matter: entities and sessions); Copilot's own ~/.copilot/ is not read (\`bourdon copilot-cli export\` reads its session store). A missing or unreadable file gives an empty manifest. Written into the library as a new version of agents/copilot.l5.yaml (history, lock, audit: \`bourdon rollback copilot <version>\` undoes it), or to --out FILE. Rows above --access-level (default team) are dropped and secret values are redacted before anything is written. The clock is SOURCE_DATE_EPOCH when set. docs/participants.md has the sources and rules.`;
  static override examples = [
    '<%= config.bin %> copilot export',
    '<%= config.bin %> copilot export --since 2026-04-01 --dry-run --json',
    '<%= config.bin %> copilot export --out copilot.l5.yaml --print',
  ];
  static override flags = exportFlags;

  async run(): Promise<void> {
    const { flags } = await this.parse(CopilotExport);
    await this.exportWith(registeredParticipant('copilot'), flags);
  }
}
