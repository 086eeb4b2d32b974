import { BaseCommand } from '../cli/base-command.js';
import { oclifArgs, oclifFlags } from '../cli/flags.js';
import { renderMatches, renderSessions, withHint } from '../cli/render.js';
import { colors } from '../cli/output.js';
import { summaryCommand, summaryPayload } from '../cli/read-commands.js';
import { getCrossAgentSummaryOperation } from '../core/operations/read-operations.js';
import { failed } from '../core/payload.js';
import { didYouMean } from '../cli/search-command.js';
import type { CrossAgentSummaryAnswer } from '../core/operations/reads.js';

export default class Summary extends BaseCommand {
  static override summary = 'Everything every agent has on a project.';
  static override description = `Entity matches for <project> and the sessions whose focus names it. Tool: ${getCrossAgentSummaryOperation.name}.`;
  static override examples = [
    '<%= config.bin %> summary Tidewater',
    '<%= config.bin %> summary "Release 2.4" --access-level team --json',
  ];
  static override args = oclifArgs(summaryCommand.args);
  static override flags = oclifFlags(summaryCommand.flags);

  async run(): Promise<CrossAgentSummaryAnswer> {
    const { args, flags } = await this.parse(Summary);
    const payload = await summaryPayload(this.open, args, flags);
    if (failed(payload)) return this.failOnPayloadError(payload);
    const agents = payload.agents;
    const hint = await this.heldBackHint(flags, 'public', ['agent', 'agents'], async (level) => {
      const whole = await summaryPayload(this.open, args, { ...flags, 'access-level': level });
      return failed(whole) ? 0 : whole.agents.length;
    });
    const meant =
      agents.length || this.jsonEnabled() ? '' : await didYouMean(this.open, args.project, flags, 'entity,workstream');
    return this.emit(payload, () => {
      const c = colors();
      if (agents.length === 0)
        return withHint(`Nothing on "${args.project}".`, [meant, hint].filter(Boolean).join('\n'));
      return withHint(
        [
          `${c.bold(args.project)}: ${agents.join(', ')}`,
          '',
          renderMatches(payload.entities, 'No entity by that name.'),
          '',
          renderSessions(payload.recent_sessions, 'No sessions focused on it.'),
        ].join('\n'),
        hint,
      );
    });
  }
}
