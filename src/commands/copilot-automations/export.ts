import { ExportCommand, exportFlags, registeredParticipant } from '../../cli/export-command.js';
import { COPILOT_AUTOMATIONS } from '../../participants/automations/variants.js';

export default class CopilotAutomationsExport extends ExportCommand {
  static override summary = COPILOT_AUTOMATIONS.help.summary;
  static override description = COPILOT_AUTOMATIONS.help.description;
  static override examples = [...COPILOT_AUTOMATIONS.help.examples];
  static override flags = exportFlags;

  async run(): Promise<void> {
    const { flags } = await this.parse(CopilotAutomationsExport);
    await this.exportWith(registeredParticipant(COPILOT_AUTOMATIONS.agentId), flags);
  }
}
