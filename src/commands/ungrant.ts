import { Args } from '@oclif/core';
import { BaseCommand, NO_LIBRARY_FLAGS } from '../cli/base-command.js';
import { memberLine, openRegistry } from '../cli/members.js';
import type { MemberView } from '../core/trust/registry.js';

export default class Ungrant extends BaseCommand {
  static override baseFlags = NO_LIBRARY_FLAGS;
  static override summary = 'Stop a member reading a namespace.';
  static override description =
    'Removes <namespace> from the namespaces <id> may read. Takes effect on the next request, without restart. Removing a grant the member does not have is not an error.';
  static override examples = ['<%= config.bin %> ungrant openclaw cursor'];
  static override args = {
    id: Args.string({ description: 'Member id.', required: true }),
    namespace: Args.string({ description: 'Agent id it may no longer read.', required: true }),
  };

  async run(): Promise<MemberView> {
    const { args } = await this.parse(Ungrant);
    const member = openRegistry().ungrant(args.id, args.namespace);
    return this.emit(member, () => `removed ${args.namespace} from ${memberLine(member)}.`);
  }
}
