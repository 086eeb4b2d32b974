import { ExportCommand, exportFlags, registeredParticipant } from '../../cli/export-command.js';

export default class CopilotVscodeExport extends ExportCommand {
  static override summary = 'Publish Copilot Chat in VS Code as the copilot-vscode manifest.';
  static override description = `Reads VS Code's workspaceStorage ($COPILOT_VSCODE_STORAGE; else on Linux the first /mnt/c/Users/<user>/AppData/Roaming/Code/User/workspaceStorage under WSL, then $XDG_CONFIG_HOME/Code/User/workspaceStorage, then ~/.config/Code/User/workspaceStorage; macOS ~/Library/Application Support/Code/User/workspaceStorage; Windows %APPDATA%\\Code\\User\\workspaceStorage): in each workspace's GitHub.copilot-chat folder, the first 500 lines of every transcripts/*.jsonl (start time, first message, turns, version, mode; assistant replies are never read) and the memory-tool/memories/**/*.md notes. Nothing found gives an empty manifest. Written into the library as a new version of agents/copilot-vscode.l5.yaml (history, lock, audit: \`bourdon rollback copilot-vscode <version>\` undoes it), or to --out FILE. Rows above --access-level (default team) are dropped and secret values are redacted before anything is written. The clock is SOURCE_DATE_EPOCH when set. docs/participants.md has the sources and rules.`;
  static override examples = [
    '<%= config.bin %> copilot-vscode export',
    '<%= config.bin %> copilot-vscode export --since 2026-04-01 --dry-run --json',
    '<%= config.bin %> copilot-vscode export --out copilot-vscode.l5.yaml --print',
  ];
  static override flags = exportFlags;

  async run(): Promise<void> {
    const { flags } = await this.parse(CopilotVscodeExport);
    await this.exportWith(registeredParticipant('copilot-vscode'), flags);
  }
}
