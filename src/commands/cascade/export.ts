import { ExportCommand, exportFlags, registeredParticipant } from '../../cli/export-command.js';

export default class CascadeExport extends ExportCommand {
  static override summary = "Publish Windsurf Cascade's memory file as the cascade manifest.";
  static override description = `Reads the memory file Cascade is asked to keep, ~/.cascade-bourdon/memory.md (its YAML front matter: entities and sessions); no variable overrides it, and Windsurf's own ~/.codeium/windsurf/ is never read. A missing or unreadable file gives an empty manifest. Written into the library as a new version of agents/cascade.l5.yaml (history, lock, audit: \`bourdon rollback cascade <version>\` undoes it), or to --out FILE. Rows above --access-level (default team) are dropped and secret values are redacted before anything is written. --since takes a date or an ISO instant. The clock is SOURCE_DATE_EPOCH when set. docs/participants.md has the sources and rules.`;
  static override examples = [
    '<%= config.bin %> cascade export',
    '<%= config.bin %> cascade export --since 2026-04-01 --dry-run --json',
    '<%= config.bin %> cascade export --out cascade.l5.yaml --print',
  ];
  static override flags = exportFlags;

  async run(): Promise<void> {
    const { flags } = await this.parse(CascadeExport);
    await this.exportWith(registeredParticipant('cascade'), flags);
  }
}
