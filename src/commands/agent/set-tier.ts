import { Args } from '@oclif/core';
import { BaseCommand, NO_LIBRARY_FLAGS } from '../../cli/base-command.js';
import { memberLine, openRegistry } from '../../cli/members.js';
import type { MemberView } from '../../core/trust/registry.js';

export default class AgentSetTier extends BaseCommand {
  static override baseFlags = NO_LIBRARY_FLAGS;
  static override summary = "Change a member's tier: quarantined or trusted.";
  static override description =
    'Trusted members may call every tool and read every namespace (remote callers still never see private rows); quarantined members read only their grants and their writes go to staging. Takes effect on the next request, without restart.';
  static override examples = [
    '<%= config.bin %> agent set-tier openclaw trusted',
    '<%= config.bin %> agent set-tier openclaw quarantined',
  ];
  static override args = {
    id: Args.string({ description: 'Member id.', required: true }),
    tier: Args.string({ description: 'quarantined or trusted.', required: true, options: ['quarantined', 'trusted'] }),
  };

  async run(): Promise<MemberView> {
    const { args } = await this.parse(AgentSetTier);
    const member = openRegistry().setTier(args.id, args.tier);
    return this.emit(member, () => `${memberLine(member)}: tier set.`);
  }
}
