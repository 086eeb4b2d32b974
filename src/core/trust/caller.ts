/**
 * Caller identity (spec §4). Every operation runs as a caller; the transport decides who
 * that is and the identity travels through AsyncLocalStorage, never a global, so two
 * concurrent HTTP requests can never see each other's identity.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { isAccessLevel, lowerLevel, type AccessLevel } from './access.js';

export type Tier = 'trusted' | 'quarantined';
export const TIERS: readonly Tier[] = ['trusted', 'quarantined'];

export interface Caller {
  agent_id: string;
  tier: Tier;
  grants: string[];
  /** The most a caller may read: remote HTTP callers and quarantined members stop at team. */
  ceiling: AccessLevel;
}

export const OPERATOR: Caller = Object.freeze({
  agent_id: 'operator',
  tier: 'trusted',
  grants: [],
  ceiling: 'private',
}) as Caller;

/** The identity used when an HTTP request reaches a handler without one: fail closed. */
export const UNKNOWN_CALLER: Caller = Object.freeze({
  agent_id: 'unknown',
  tier: 'quarantined',
  grants: [],
  ceiling: 'team',
}) as Caller;

const storage = new AsyncLocalStorage<Caller>();

export function runWithCaller<T>(caller: Caller, fn: () => T): T {
  return storage.run(caller, fn);
}

/** The caller of the current call, or `fallback` (operator on stdio, unknown on HTTP). */
export function currentCaller(fallback: Caller = OPERATOR): Caller {
  return storage.getStore() ?? fallback;
}

/**
 * The caller as the guard enforces it, whatever object a transport or a library user built:
 * the tier is trusted only when it says exactly `trusted` (anything else is quarantined, as in
 * the engine), quarantined callers never read above team, an unknown ceiling counts as team,
 * and grants are a fresh list of strings. Frozen, so no handler can widen it.
 */
export function boundedCaller(caller: Caller): Caller {
  const tier: Tier = caller.tier === 'trusted' ? 'trusted' : 'quarantined';
  const asked: AccessLevel = isAccessLevel(caller.ceiling) ? caller.ceiling : 'team';
  const ceiling = tier === 'trusted' ? asked : lowerLevel(asked, 'team');
  const grants = Array.isArray(caller.grants)
    ? caller.grants.filter((grant): grant is string => typeof grant === 'string')
    : [];
  return Object.freeze({
    agent_id: String(caller.agent_id),
    tier,
    grants: Object.freeze([...grants]) as string[],
    ceiling,
  });
}

/** Whether a caller may read an agent's namespace: trusted callers read all; others their grants. */
export function mayRead(caller: Caller, agentId: string): boolean {
  return caller.tier === 'trusted' || caller.grants.includes(agentId);
}
