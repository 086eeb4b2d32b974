import { BaseCommand } from '../cli/base-command.js';
import { oclifArgs, oclifFlags } from '../cli/flags.js';
import { deeperContextCommand, deeperContextPayload } from '../cli/read-commands.js';
import { getDeeperContextOperation } from '../core/operations/read-operations.js';
import type { DeeperContextOutput } from '../core/operations/prompt-reads.js';

export default class DeeperContext extends BaseCommand {
  static override summary = 'Longer context for a prompt from an L2 retriever.';
  static override description = `Longer passages for a prompt, from an L2 retriever (embeddings over notes and transcripts) when one is wired in. No retriever ships with this package, so the context is empty and the command says so. Default access: team. Tool: ${getDeeperContextOperation.name}.`;
  static override examples = [
    '<%= config.bin %> deeper-context "why did we drop the websocket sync?"',
    '<%= config.bin %> deeper-context "release 2.4 risks" --json',
  ];
  static override args = oclifArgs(deeperContextCommand.args);
  static override flags = oclifFlags(deeperContextCommand.flags);

  async run(): Promise<DeeperContextOutput> {
    const { args, flags } = await this.parse(DeeperContext);
    const payload = await deeperContextPayload(this.open, args, flags);
    return this.emit(payload, () => payload.context || 'No deeper context (no L2 retriever configured).');
  }
}
