import { ExportCommand, exportFlags, registeredParticipant } from '../../cli/export-command.js';

export default class ClaudeDesktopCodeExport extends ExportCommand {
  static override summary = "Publish Claude desktop's Claude Code conversations (metadata only).";
  static override description = `Reads the metadata of each conversation the Claude desktop app's Claude Code tab keeps ($BOURDON_CLAUDE_DESKTOP_DIR, else ~/.config/Claude on Linux, ~/Library/Application Support/Claude on macOS, %APPDATA%\\Claude on Windows; its claude-code-sessions folder) read-only: title, folders, model, effort, permission mode, MCP tool count — never what was said. Nothing is written when that folder does not exist. Written into the library as a new version of agents/claude-desktop-code.l5.yaml (history, lock, audit: \`bourdon rollback claude-desktop-code <version>\` undoes it), or to --out FILE. Rows above --access-level (default team) are dropped and every text that looks like a credential is redacted before anything is written. The clock is SOURCE_DATE_EPOCH when set. docs/participants.md has the sources and rules.`;
  static override examples = [
    '<%= config.bin %> claude-desktop-code export',
    '<%= config.bin %> claude-desktop-code export --since 2026-04-01 --dry-run --json',
    '<%= config.bin %> claude-desktop-code export --out claude-desktop-code.l5.yaml --print',
  ];
  static override flags = exportFlags;

  async run(): Promise<void> {
    const { flags } = await this.parse(ClaudeDesktopCodeExport);
    await this.exportWith(registeredParticipant('claude-desktop-code'), flags);
  }
}
