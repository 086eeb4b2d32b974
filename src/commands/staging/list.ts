import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { stagedReviewLines } from '../../cli/diff-render.js';
import { colors, styled, table } from '../../cli/output.js';
import { wideFlag } from '../../cli/flags.js';
import { listStaged, previewPromotion, type PromotionPreview, type StagedWrite } from '../../core/writes/staging.js';

export default class StagingList extends BaseCommand {
  static override summary = 'List quarantined writes awaiting review.';
  static override description =
    'Every staged write under <library>/staging/<member>/<agent>.l5.yaml: who staged it, for which agent, how many rows, and how long ago; with --diff, what promoting each agent would change, field by field. Staged rows are invisible to every query until `bourdon staging promote <agent>`; `bourdon staging reject <agent>` deletes them.';
  static override examples = [
    '<%= config.bin %> staging list',
    '<%= config.bin %> staging list --diff',
    '<%= config.bin %> staging list --json',
  ];

  static override flags = {
    ...wideFlag,
    diff: Flags.boolean({
      description:
        'Review each agent: every field of the rows promoting would add or change, whole (every character promoting would write, escaped, never cut), and the digest `staging promote --digest` takes.',
      default: false,
    }),
  };

  async run(): Promise<PromotionPreview[] | StagedWrite[]> {
    const { flags } = await this.parse(StagingList);
    const ctx = this.openContext(flags.library);
    const staged = listStaged(ctx.store, ctx.now());
    if (flags.diff) {
      const previews = [...new Set(staged.map((item) => item.agent_id))].map((agent) => previewPromotion(ctx, agent));
      return this.emit(previews, () =>
        previews.length
          ? previews.map((preview) => stagedReviewLines(preview).join('\n')).join('\n\n')
          : 'Nothing staged.',
      );
    }
    return this.emit(staged, () => renderStaged(staged));
  }
}

function ago(days: number): string {
  if (days < 1 / 24) return 'just now';
  if (days < 1) return `${Math.max(1, Math.round(days * 24))}h ago`;
  return `${Math.round(days)}d ago`;
}

function renderStaged(staged: StagedWrite[]): string {
  if (staged.length === 0) return 'Nothing staged.';
  const c = colors();
  const rows = staged.map((item) => [
    item.agent_id,
    item.caller,
    item.error ? '-' : String(item.entities),
    item.error ? '-' : String(item.sessions),
    item.error ? '-' : String(item.notes),
    ago(item.age_days),
    item.error ? styled(`unreadable: ${item.error}`, c.red) : '',
  ]);
  const out = table(['AGENT', 'STAGED BY', 'ENTITIES', 'SESSIONS', 'NOTES', 'WHEN', ''], rows, { flex: [6] });
  return `${out}\n${c.dim('promote: bourdon staging promote <agent>   reject: bourdon staging reject <agent>')}`;
}
