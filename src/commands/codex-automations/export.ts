import { ExportCommand, exportFlags, registeredParticipant } from '../../cli/export-command.js';
import { CODEX_AUTOMATIONS } from '../../participants/automations/variants.js';

export default class CodexAutomationsExport extends ExportCommand {
  static override summary = CODEX_AUTOMATIONS.help.summary;
  static override description = CODEX_AUTOMATIONS.help.description;
  static override examples = [...CODEX_AUTOMATIONS.help.examples];
  static override flags = exportFlags;

  async run(): Promise<void> {
    const { flags } = await this.parse(CodexAutomationsExport);
    await this.exportWith(registeredParticipant(CODEX_AUTOMATIONS.agentId), flags);
  }
}
