import { Args, Flags } from '@oclif/core';
import { confirmChange, yesFlag } from '../../cli/confirm.js';
import { BaseCommand } from '../../cli/base-command.js';
import { stagedReviewLines } from '../../cli/diff-render.js';
import { BourdonError } from '../../core/errors.js';
import { configPaths } from '../../core/store/config.js';
import { previewPromotion, promoteStaged, promotionSummary, type PromoteResult } from '../../core/writes/staging.js';

export default class StagingPromote extends BaseCommand {
  static override summary = "Merge an agent's staged writes into the live library.";
  static override description =
    'Shows what promoting would change, then merges every staged write for <agent> (from any member) into agents/<agent>.l5.yaml through the normal commit path: rows merge as commit_to_federation does, each promotion is recorded as a new version (op promote, actor the member), and the staged file is deleted. Only the staged bytes that were shown are promoted: if a member stages more meanwhile, nothing is promoted. Asks for confirmation on a terminal; elsewhere it needs --yes, or --digest with the digest a review printed (`bourdon staging list --diff`).';
  static override examples = [
    '<%= config.bin %> staging promote openclaw',
    '<%= config.bin %> staging promote openclaw --yes --json',
  ];
  static override args = {
    agent: Args.string({ description: 'Agent id whose staged writes to promote.', required: true }),
  };
  static override flags = {
    yes: yesFlag('Promote what is staged now without asking.'),
    digest: Flags.string({
      description: 'Promote only if the staged files are still the ones a review showed with this digest.',
      helpValue: '<sha256>',
    }),
  };

  async run(): Promise<PromoteResult> {
    const { args, flags } = await this.parse(StagingPromote);
    const ctx = this.openContext(flags.library, { config: configPaths(process.env) });
    let digest = flags.digest;
    if (digest === undefined) {
      const preview = previewPromotion(ctx, args.agent);
      if (preview.error)
        throw new BourdonError(preview.error, preview.staged.length ? 'source_unreadable' : 'not_found');
      if (!this.jsonEnabled()) this.say(stagedReviewLines(preview).join('\n'));
      digest = preview.digest!;
      await confirmChange({
        yes: flags.yes,
        question: `Promote these staged writes into ${args.agent}'s live manifest?`,
        action: 'promote what is staged now',
        what: 'promotion',
        other: `or, to promote exactly what is shown: bourdon staging promote ${args.agent} --digest ${digest}`,
      });
    }
    const result = await promoteStaged(ctx, args.agent, { digest });
    return this.emit(result, () => promotionSummary(result));
  }
}
