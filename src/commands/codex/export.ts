import { ExportCommand, exportFlags, registeredParticipant } from '../../cli/export-command.js';

export default class CodexExport extends ExportCommand {
  static override summary = "Publish Codex's sessions and memories as the codex manifest.";
  static override description = `Reads Codex's home ($CODEX_HOME or ~/.codex: state_5.sqlite, session_index.jsonl, sessions/, memories/) and ~/codex-brain, read-only. Written into the library as a new version of agents/codex.l5.yaml (history, lock, audit: \`bourdon rollback codex <version>\` undoes it), or to --out FILE. Rows above --access-level (default team) are dropped and every text that looks like a credential is redacted before anything is written. The clock is SOURCE_DATE_EPOCH when set. docs/participants.md has the sources and rules.`;
  static override examples = [
    '<%= config.bin %> codex export',
    '<%= config.bin %> codex export --since 2026-04-01 --dry-run --json',
    '<%= config.bin %> codex export --out codex.l5.yaml --print',
  ];
  static override flags = exportFlags;

  async run(): Promise<void> {
    const { flags } = await this.parse(CodexExport);
    await this.exportWith(registeredParticipant('codex'), flags);
  }
}
