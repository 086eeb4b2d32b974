import { ExportCommand, exportFlags, registeredParticipant } from '../../cli/export-command.js';

export default class ClaudeDesktopCoworkExport extends ExportCommand {
  static override summary = "Publish Claude desktop's Co-Work runs (metadata only).";
  static override description = `Reads the metadata of each Co-Work (local-agent mode) run the Claude desktop app keeps ($BOURDON_CLAUDE_DESKTOP_DIR, else ~/.config/Claude on Linux, ~/Library/Application Support/Claude on macOS, %APPDATA%\\Claude on Windows; its local-agent-mode-sessions folder) read-only: title, folders, model, permission mode, MCP tool count, and from each run's audit.jsonl only its turns, cost, error flag and tool and skill counts — never what was said. Nothing is written when that folder does not exist. Written into the library as a new version of agents/claude-desktop-cowork.l5.yaml (history, lock, audit: \`bourdon rollback claude-desktop-cowork <version>\` undoes it), or to --out FILE. Rows above --access-level (default team) are dropped and every text that looks like a credential is redacted before anything is written. The clock is SOURCE_DATE_EPOCH when set. docs/participants.md has the sources and rules.`;
  static override examples = [
    '<%= config.bin %> claude-desktop-cowork export',
    '<%= config.bin %> claude-desktop-cowork export --since 2026-04-01 --dry-run --json',
    '<%= config.bin %> claude-desktop-cowork export --out claude-desktop-cowork.l5.yaml --print',
  ];
  static override flags = exportFlags;

  async run(): Promise<void> {
    const { flags } = await this.parse(ClaudeDesktopCoworkExport);
    await this.exportWith(registeredParticipant('claude-desktop-cowork'), flags);
  }
}
