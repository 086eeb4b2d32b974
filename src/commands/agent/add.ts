import { Args, Flags } from '@oclif/core';
import { BaseCommand, NO_LIBRARY_FLAGS } from '../../cli/base-command.js';
import { openRegistry, tokenNotice } from '../../cli/members.js';
import type { IssuedToken } from '../../core/trust/registry.js';

export default class AgentAdd extends BaseCommand {
  static override baseFlags = NO_LIBRARY_FLAGS;
  static override summary = 'Register a member and print its bearer token, once.';
  static override description =
    'Registers <id> as a member who may call the server over HTTP with a bearer token. Members are quarantined by default: they read only the namespaces granted to them (--grant), can call only the read tools plus commit_to_federation, and their writes wait in staging. The token is printed once, to stdout, and never again; only its SHA-256 is stored. A revoked id may be added again.';
  static override examples = [
    '<%= config.bin %> agent add openclaw --grant cursor',
    '<%= config.bin %> agent add laptop --tier trusted --json',
    'TOKEN=$(<%= config.bin %> agent add ci-bot --grant claude-code,codex)',
  ];
  static override args = {
    id: Args.string({ description: 'Member id: also the only namespace it may write.', required: true }),
  };
  static override flags = {
    tier: Flags.string({
      description: 'quarantined (default) or trusted.',
      options: ['quarantined', 'trusted'],
      default: 'quarantined',
    }),
    grant: Flags.string({
      description: 'A namespace (agent id) the member may read; repeatable or comma-separated.',
      multiple: true,
      delimiter: ',',
      helpValue: '<ns>',
    }),
  };

  async run(): Promise<IssuedToken> {
    const { args, flags } = await this.parse(AgentAdd);
    const issued = openRegistry().add(args.id, { tier: flags.tier, grants: flags.grant ?? [] });
    if (!this.jsonEnabled()) {
      process.stderr.write(tokenNotice(issued, 'added'));
      process.stdout.write(issued.token + '\n');
    }
    return { agent_id: issued.agent_id, tier: issued.tier, grants: issued.grants, token: issued.token };
  }
}
