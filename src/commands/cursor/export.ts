import { ExportCommand, exportFlags, registeredParticipant } from '../../cli/export-command.js';

export default class CursorExport extends ExportCommand {
  static override summary = "Publish Cursor's chat history as the cursor manifest.";
  static override description = `Reads Cursor's state databases ($CURSOR_DIR, else the platform's Cursor data folder) read-only, and ~/.cursor/memory/short-index.json. Written into the library as a new version of agents/cursor.l5.yaml (history, lock, audit: \`bourdon rollback cursor <version>\` undoes it), or to --out FILE. Rows above --access-level (default team) are dropped and every text that looks like a credential is redacted before anything is written. The clock is SOURCE_DATE_EPOCH when set. docs/participants.md has the sources and rules.`;
  static override examples = [
    '<%= config.bin %> cursor export',
    '<%= config.bin %> cursor export --since 2026-04-01 --dry-run --json',
    '<%= config.bin %> cursor export --out cursor.l5.yaml --print',
  ];
  static override flags = exportFlags;

  async run(): Promise<void> {
    const { flags } = await this.parse(CursorExport);
    await this.exportWith(registeredParticipant('cursor'), flags);
  }
}
