import { Args } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { accessArgs, accessFlags } from '../cli/flags.js';
import { MATCH_NOUN, renderMatches, withHint } from '../cli/render.js';
import { queryAgentMemory } from '../core/operations/reads.js';
import type { EntityMatch } from '../core/operations/queries.js';

export default class Query extends BaseCommand {
  static override summary = 'What one agent knows about a topic.';
  static override description =
    'Entity matches for <topic> (by name or alias) that <agent> knows. Tool: query_agent_memory.';
  static override examples = [
    '<%= config.bin %> query claude-code bourdon',
    '<%= config.bin %> query codex ILTT --access-level team --json',
  ];
  static override args = {
    agent: Args.string({ description: 'Agent id.', required: true }),
    topic: Args.string({ description: 'Entity name or alias.', required: true }),
  };
  static override flags = { ...accessFlags };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Query);
    // Every agent is in the lookup snapshot (with only the entities the topic names), so the
    // existence check costs no extra read.
    const ctx = this.openContext(flags.library, {}, args.topic);
    this.assertAgentExists(ctx, args.agent);
    const payload = await queryAgentMemory(ctx, {
      agent: args.agent,
      topic: args.topic,
      ...accessArgs(flags),
    });
    this.failOnPayloadError(payload);
    const matches = payload.matches as EntityMatch[];
    const hint = matches.length
      ? ''
      : await this.higherLevelHint(flags, 'public', MATCH_NOUN, async (level) => {
          const higher = await queryAgentMemory(ctx, { agent: args.agent, topic: args.topic, access_level: level });
          return { rows: (higher.matches as EntityMatch[]).length };
        });
    this.emit(payload, () =>
      withHint(renderMatches(matches, `${args.agent} knows nothing about "${args.topic}".`), hint),
    );
  }
}
