import { ExportCommand, exportFlags, registeredParticipant } from '../../cli/export-command.js';
import { CURSOR_AUTOMATIONS } from '../../participants/automations/variants.js';

export default class CursorAutomationsExport extends ExportCommand {
  static override summary = CURSOR_AUTOMATIONS.help.summary;
  static override description = CURSOR_AUTOMATIONS.help.description;
  static override examples = [...CURSOR_AUTOMATIONS.help.examples];
  static override flags = exportFlags;

  async run(): Promise<void> {
    const { flags } = await this.parse(CursorAutomationsExport);
    await this.exportWith(registeredParticipant(CURSOR_AUTOMATIONS.agentId), flags);
  }
}
