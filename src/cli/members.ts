/**
 * Shared by the member commands (`agent add|list|rotate|set-tier`, `grant`, `ungrant`,
 * `revoke`): the registry they administer and how a member reads in one line. A token is
 * printed by `agent add` and `agent rotate` only, once, and nothing here ever prints a hash.
 */
import { configPaths } from '../core/store/config.js';
import { BourdonError } from '../core/errors.js';
import { FederationRegistry, type IssuedToken, type MemberView } from '../core/trust/registry.js';
import { list } from './output.js';
import { stderrLine } from './width.js';

/** The registry at BOURDON_FEDERATION_CONFIG, else $BOURDON_HOME/federation.yaml (~/.bourdon). */
export function openRegistry(): FederationRegistry {
  // Quiet: a command reports an unreadable registry itself, as its one error line.
  return new FederationRegistry(configPaths(process.env).registry, { warn: () => {} });
}

/** Fails with one line when the registry file exists but cannot be read. */
export function assertReadable(registry: FederationRegistry): void {
  const problem = registry.problem();
  if (problem)
    throw new BourdonError(
      `registry ${registry.path} is unreadable (${problem}); fix or move it first`,
      'source_unreadable',
    );
}

function reads(member: Pick<MemberView, 'tier' | 'grants'>): string {
  return member.tier === 'trusted' ? 'every namespace' : list(member.grants);
}

/** `openclaw (quarantined; reads: cursor)`. */
export function memberLine(member: Pick<MemberView, 'agent_id' | 'tier' | 'grants'>): string {
  return `${member.agent_id} (${member.tier}; reads: ${reads(member)})`;
}

/**
 * Shows a new token exactly once. Under --json the caller prints the whole object; otherwise
 * the explanation goes to stderr and stdout carries the token alone, so
 * `TOKEN=$(bourdon agent add ci-bot)` captures just the token.
 */
export function tokenNotice(issued: IssuedToken, verb: string): string {
  return stderrLine(
    `bourdon: ${verb} ${memberLine(issued)}. Its bearer token is below, shown this once: store it now (only its SHA-256 is kept).`,
  );
}
