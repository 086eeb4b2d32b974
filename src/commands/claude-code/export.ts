import { ExportCommand, exportFlags, registeredParticipant } from '../../cli/export-command.js';

export default class ClaudeCodeExport extends ExportCommand {
  static override summary = "Publish Claude Code's memory as the claude-code manifest.";
  static override description = `Reads Claude Code's auto-memory (every ~/.claude/projects/*/memory/ folder with a MEMORY.md), the knowledge graph ~/claude-memory/memory.jsonl and the brain folder ($CLAUDE_BRAIN, ~/claude-brain or ./claude-brain: PROJECTS/*/OVERVIEW.md and LOG/<date>*.md). With none of them, nothing is written (exit 0). Written into the library as a new version of agents/claude-code.l5.yaml (history, lock, audit: \`bourdon rollback claude-code <version>\` undoes it), or to --out FILE. Rows above --access-level (default team) are dropped and every text that looks like a credential is redacted before anything is written. The clock is SOURCE_DATE_EPOCH when set. docs/participants.md has the sources and rules.`;
  static override examples = [
    '<%= config.bin %> claude-code export',
    '<%= config.bin %> claude-code export --since 2026-04-01 --dry-run --json',
    '<%= config.bin %> claude-code export --out claude-code.l5.yaml --print',
  ];
  static override flags = exportFlags;

  async run(): Promise<void> {
    const { flags } = await this.parse(ClaudeCodeExport);
    await this.exportWith(registeredParticipant('claude-code'), flags);
  }
}
