import { Args } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { accessArgs, accessFlags } from '../cli/flags.js';
import { MATCH_NOUN, renderMatches, withHint } from '../cli/render.js';
import { invoke } from '../cli/invoke.js';
import { queryAgentMemoryOperation } from '../core/operations/read-operations.js';
import { failed } from '../core/payload.js';

export default class Query extends BaseCommand {
  static override summary = 'What one agent knows about a topic.';
  static override description = `Entity matches for <topic> (by name or alias) that <agent> knows. Tool: ${queryAgentMemoryOperation.name}.`;
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
    const payload = await invoke(queryAgentMemoryOperation, ctx, {
      agent: args.agent,
      topic: args.topic,
      ...accessArgs(flags),
    });
    if (failed(payload)) return this.failOnPayloadError(payload);
    const hint = payload.matches.length
      ? ''
      : await this.higherLevelHint(flags, 'public', MATCH_NOUN, async (level) => {
          const input = { agent: args.agent, topic: args.topic, access_level: level };
          const higher = await invoke(queryAgentMemoryOperation, ctx, input);
          return { rows: failed(higher) ? 0 : higher.matches.length };
        });
    this.emit(payload, () =>
      withHint(renderMatches(payload.matches, `${args.agent} knows nothing about "${args.topic}".`), hint),
    );
  }
}
