import { Args } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { accessArgs, accessFlags } from '../cli/flags.js';
import { MATCH_NOUN, renderMatches, withHint } from '../cli/render.js';
import { findEntity } from '../core/operations/reads.js';
import type { EntityMatch } from '../core/operations/queries.js';

export default class Find extends BaseCommand {
  static override summary = 'Who knows about X.';
  static override description =
    'Entities whose name or alias matches <name>, case-insensitively, across every agent. Tool: find_entity.';
  static override examples = [
    '<%= config.bin %> find Bourdon',
    '<%= config.bin %> find "l6 store" --access-level team --json',
  ];
  static override args = { name: Args.string({ description: 'Entity name or alias.', required: true }) };
  static override flags = { ...accessFlags };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Find);
    const ctx = this.openContext(flags.library, {}, args.name);
    const payload = await findEntity(ctx, { name: args.name, ...accessArgs(flags) });
    this.failOnPayloadError(payload);
    const matches = payload.matches as EntityMatch[];
    const hint = matches.length
      ? ''
      : await this.higherLevelHint(flags, 'public', MATCH_NOUN, async (level) => {
          const higher = await findEntity(ctx, { name: args.name, access_level: level });
          return { rows: (higher.matches as EntityMatch[]).length };
        });
    this.emit(payload, () => withHint(renderMatches(matches, `No agent knows about "${args.name}".`), hint));
  }
}
