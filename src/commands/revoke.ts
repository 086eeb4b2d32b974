import { Args } from '@oclif/core';
import { BaseCommand, NO_LIBRARY_FLAGS } from '../cli/base-command.js';
import { openRegistry } from '../cli/members.js';
import type { MemberView } from '../core/trust/registry.js';

export default class Revoke extends BaseCommand {
  static override baseFlags = NO_LIBRARY_FLAGS;
  static override summary = 'Revoke a member: its token stops working on the next request.';
  static override description =
    'Marks <id> revoked. Running servers see it on the next request (no restart). The row stays in the registry for the record; `agent add <id>` issues a fresh token later if wanted.';
  static override examples = ['<%= config.bin %> revoke ci-bot'];
  static override args = { id: Args.string({ description: 'Member id.', required: true }) };

  async run(): Promise<MemberView> {
    const { args } = await this.parse(Revoke);
    const member = openRegistry().revoke(args.id);
    return this.emit(member, () => `revoked ${member.agent_id}: its token no longer authenticates.`);
  }
}
