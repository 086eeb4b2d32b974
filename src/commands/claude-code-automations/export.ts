import { ExportCommand, exportFlags, registeredParticipant } from '../../cli/export-command.js';
import { CLAUDE_CODE_AUTOMATIONS } from '../../participants/automations/variants.js';

export default class ClaudeCodeAutomationsExport extends ExportCommand {
  static override summary = CLAUDE_CODE_AUTOMATIONS.help.summary;
  static override description = CLAUDE_CODE_AUTOMATIONS.help.description;
  static override examples = [...CLAUDE_CODE_AUTOMATIONS.help.examples];
  static override flags = exportFlags;

  async run(): Promise<void> {
    const { flags } = await this.parse(ClaudeCodeAutomationsExport);
    await this.exportWith(registeredParticipant(CLAUDE_CODE_AUTOMATIONS.agentId), flags);
  }
}
