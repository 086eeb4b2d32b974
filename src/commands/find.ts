import { BaseCommand } from '../cli/base-command.js';
import { oclifArgs, oclifFlags } from '../cli/flags.js';
import { MATCH_NOUN, renderMatches, withHint } from '../cli/render.js';
import { findCommand, findPayload } from '../cli/read-commands.js';
import { didYouMean } from '../cli/search-command.js';
import { findEntityOperation } from '../core/operations/read-operations.js';
import { failed } from '../core/payload.js';
import type { FindEntityAnswer } from '../core/operations/reads.js';

export default class Find extends BaseCommand {
  static override summary = 'Who knows about X.';
  static override description = `Entities whose name or alias matches <name>, case-insensitively, across every agent. Tool: ${findEntityOperation.name}.`;
  static override examples = [
    '<%= config.bin %> find "Sync Engine"',
    '<%= config.bin %> find "release 2.4" --access-level team --json',
  ];
  static override args = oclifArgs(findCommand.args);
  static override flags = oclifFlags(findCommand.flags);

  async run(): Promise<FindEntityAnswer> {
    const { args, flags } = await this.parse(Find);
    const payload = await findPayload(this.open, args, flags);
    if (failed(payload)) return this.failOnPayloadError(payload);
    const hint = await this.heldBackHint(flags, 'public', MATCH_NOUN, async (level) => {
      const whole = await findPayload(this.open, args, { ...flags, 'access-level': level });
      return failed(whole) ? 0 : whole.matches.length;
    });
    const meant =
      payload.matches.length || this.jsonEnabled() ? '' : await didYouMean(this.open, args.name, flags, 'entity');
    return this.emit(payload, () =>
      withHint(
        renderMatches(payload.matches, `No agent knows about "${args.name}".`),
        [meant, hint].filter(Boolean).join('\n'),
      ),
    );
  }
}
