import { Args } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { accessFlags } from '../cli/flags.js';
import { renderMatches } from '../cli/render.js';
import { queryPayload } from '../cli/read-commands.js';
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
    const payload = await queryPayload(this.open, args, flags);
    this.failOnPayloadError(payload);
    this.emit(payload, () =>
      renderMatches(payload.matches as EntityMatch[], `${args.agent} knows nothing about "${args.topic}".`),
    );
  }
}
