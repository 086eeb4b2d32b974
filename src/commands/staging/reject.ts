import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { configPaths } from '../../core/store/config.js';
import { rejectStaged } from '../../core/writes/staging.js';
import type { RejectResult } from '../../core/writes/staging.js';

export default class StagingReject extends BaseCommand {
  static override summary = "Delete an agent's staged writes unread.";
  static override description =
    'Deletes every staged write for <agent> (from any member). The live library is not touched. With --digest (the digest `bourdon staging list --diff` printed), deletes only if the staged files are still the ones reviewed: writes staged since are never deleted unread.';
  static override examples = ['<%= config.bin %> staging reject scout'];
  static override args = {
    agent: Args.string({ description: 'Agent id whose staged writes to delete.', required: true }),
  };
  static override flags = {
    digest: Flags.string({
      description: 'Reject only if the staged files are still the ones a review showed with this digest.',
      helpValue: '<sha256>',
    }),
  };

  async run(): Promise<RejectResult> {
    const { args, flags } = await this.parse(StagingReject);
    const ctx = this.openContext(flags.library);
    const result = await rejectStaged(ctx.store, args.agent, {
      auditPath: configPaths(process.env).audit,
      actor: ctx.caller.agent_id,
      ...(flags.digest === undefined ? {} : { digest: flags.digest }),
    });
    return this.emit(result, () => `rejected ${result.rejected} staged write(s) for ${result.agent_id}`);
  }
}
