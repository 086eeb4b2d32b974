import { BaseCommand, NO_LIBRARY_FLAGS } from '../../cli/base-command.js';
import { colors, list, relativeDay, styled, table } from '../../cli/output.js';
import { wideFlag } from '../../cli/flags.js';
import { assertReadable, openRegistry } from '../../cli/members.js';
import type { MemberView } from '../../core/trust/registry.js';

export default class AgentList extends BaseCommand {
  static override baseFlags = NO_LIBRARY_FLAGS;
  static override summary = 'List members: id, tier, grants, status (never tokens or hashes).';
  static override description =
    'Lists every member in the registry ($BOURDON_FEDERATION_CONFIG, else ~/.bourdon/federation.yaml), revoked ones included. Tokens are never shown again after `agent add`/`agent rotate`, and hashes never at all.';
  static override examples = ['<%= config.bin %> agent list', '<%= config.bin %> agent list --json'];

  static override flags = { ...wideFlag };

  async run(): Promise<MemberView[]> {
    await this.parse(AgentList);
    const registry = openRegistry();
    assertReadable(registry);
    const members = registry.list();
    return this.emit(members, () => renderMembers(members));
  }
}

function renderMembers(members: MemberView[]): string {
  if (members.length === 0) return 'No members yet. Add one with `bourdon agent add <id>`.';
  const c = colors();
  const rows = members.map((member) => [
    member.revoked ? styled(member.agent_id, c.dim) : member.agent_id,
    member.tier,
    member.tier === 'trusted' ? 'all' : list(member.grants),
    relativeDay(member.created_at || null),
    member.revoked ? styled('revoked', c.red) : styled('active', c.green),
  ]);
  return table(['AGENT', 'TIER', 'READS', 'CREATED', 'STATUS'], rows, { flex: [2] });
}
