import { BaseCommand } from '../cli/base-command.js';
import { oclifArgs, oclifFlags } from '../cli/flags.js';
import { MATCH_NOUN, renderAgentMatches, withHint } from '../cli/render.js';
import { queryCommand, queryPayload } from '../cli/read-commands.js';
import { queryAgentMemoryOperation } from '../core/operations/read-operations.js';
import { failed } from '../core/payload.js';
import { didYouMean } from '../cli/search-command.js';
import type { QueryAgentMemoryAnswer } from '../core/operations/reads.js';

export default class Query extends BaseCommand {
  static override summary = 'What one agent knows about a topic.';
  static override description = `Entity matches for <topic> (by name or alias) that <agent> knows. Tool: ${queryAgentMemoryOperation.name}.`;
  static override examples = [
    '<%= config.bin %> query claude-code tidewater',
    '<%= config.bin %> query codex "flaky watch" --access-level team --json',
  ];
  static override args = oclifArgs(queryCommand.args);
  static override flags = oclifFlags(queryCommand.flags);

  async run(): Promise<QueryAgentMemoryAnswer> {
    const { args, flags } = await this.parse(Query);
    // An unknown agent is an error (queryPayload checks), not an empty answer.
    const payload = await queryPayload(this.open, args, flags);
    if (failed(payload)) return this.failOnPayloadError(payload);
    const hint = await this.heldBackHint(flags, 'public', MATCH_NOUN, async (level) => {
      const whole = await queryPayload(this.open, args, { ...flags, 'access-level': level });
      return failed(whole) ? 0 : whole.matches.length;
    });
    const meant =
      payload.matches.length || this.jsonEnabled()
        ? ''
        : await didYouMean(this.open, args.topic, flags, 'entity', args.agent);
    return this.emit(payload, () =>
      withHint(
        renderAgentMatches(payload.matches, args.agent, `${args.agent} knows nothing about "${args.topic}".`),
        [meant, hint].filter(Boolean).join('\n'),
      ),
    );
  }
}
