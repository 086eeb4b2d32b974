import { Args } from '@oclif/core';
import { BaseCommand, NO_LIBRARY_FLAGS } from '../../cli/base-command.js';
import { openRegistry, tokenNotice } from '../../cli/members.js';
import type { IssuedToken } from '../../core/trust/registry.js';

export default class AgentRotate extends BaseCommand {
  static override baseFlags = NO_LIBRARY_FLAGS;
  static override summary = "Replace a member's token; the old one stops working at once.";
  static override description =
    'Issues a new bearer token for <id> and prints it once, to stdout. The old token stops authenticating on the next request, without restarting any server. Tier and grants stay as they are.';
  static override examples = [
    '<%= config.bin %> agent rotate openclaw',
    '<%= config.bin %> agent rotate openclaw --json',
  ];
  static override args = { id: Args.string({ description: 'Member id.', required: true }) };

  async run(): Promise<IssuedToken> {
    const { args } = await this.parse(AgentRotate);
    const issued = openRegistry().rotate(args.id);
    if (!this.jsonEnabled()) {
      process.stderr.write(tokenNotice(issued, 'rotated the token of'));
      process.stdout.write(issued.token + '\n');
    }
    return { agent_id: issued.agent_id, tier: issued.tier, grants: issued.grants, token: issued.token };
  }
}
