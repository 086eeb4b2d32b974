import { Args } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { accessFlags } from '../cli/flags.js';
import { renderMatches, renderSessions } from '../cli/render.js';
import { colors } from '../cli/output.js';
import { summaryPayload } from '../cli/read-commands.js';
import type { EntityMatch, SessionRef } from '../core/operations/queries.js';

export default class Summary extends BaseCommand {
  static override summary = 'Everything every agent has on a project.';
  static override description =
    'Entity matches for <project> and the sessions whose focus names it. Tool: get_cross_agent_summary.';
  static override examples = [
    '<%= config.bin %> summary Bourdon',
    '<%= config.bin %> summary ILTT --access-level team --json',
  ];
  static override args = { project: Args.string({ description: 'Project name.', required: true }) };
  static override flags = { ...accessFlags };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Summary);
    const payload = await summaryPayload(this.open, args, flags);
    this.failOnPayloadError(payload);
    this.emit(payload, () => {
      const c = colors();
      const agents = payload.agents as string[];
      if (agents.length === 0) return `Nothing on "${args.project}".`;
      return [
        `${c.bold(args.project)}: ${agents.join(', ')}`,
        '',
        renderMatches(payload.entities as EntityMatch[], 'No entity by that name.'),
        '',
        renderSessions(payload.recent_sessions as SessionRef[], 'No sessions focused on it.'),
      ].join('\n');
    });
  }
}
