import { Args } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { promoteStaged, promotionSummary } from '../../core/writes/staging.js';

export default class StagingPromote extends BaseCommand {
  static override summary = "Merge an agent's staged writes into the live library.";
  static override description =
    'Merges every staged write for <agent> (from any member) into agents/<agent>.l5.yaml through the normal commit path: rows merge as commit_to_federation does, each promotion is recorded as a new version (op promote, actor the member), and the staged file is deleted.';
  static override examples = [
    '<%= config.bin %> staging promote openclaw',
    '<%= config.bin %> staging promote openclaw --json',
  ];
  static override args = {
    agent: Args.string({ description: 'Agent id whose staged writes to promote.', required: true }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(StagingPromote);
    const result = await promoteStaged(this.openContext(flags.library), args.agent);
    this.emit(result, () => promotionSummary(result));
  }
}
