import { Args } from '@oclif/core';
import { BaseCommand, NO_LIBRARY_FLAGS } from '../cli/base-command.js';
import { memberLine, openRegistry } from '../cli/members.js';
import type { MemberView } from '../core/trust/registry.js';

export default class Grant extends BaseCommand {
  static override baseFlags = NO_LIBRARY_FLAGS;
  static override summary = 'Let a member read a namespace.';
  static override description =
    'Adds <namespace> (an agent id) to the namespaces <id> may read. Grants matter to quarantined members; trusted members read everything. Takes effect on the next request.';
  static override examples = ['<%= config.bin %> grant openclaw cursor'];
  static override args = {
    id: Args.string({ description: 'Member id.', required: true }),
    namespace: Args.string({ description: 'Agent id it may read.', required: true }),
  };

  async run(): Promise<MemberView> {
    const { args } = await this.parse(Grant);
    const member = openRegistry().grant(args.id, args.namespace);
    return this.emit(member, () => `granted ${args.namespace} to ${memberLine(member)}.`);
  }
}
