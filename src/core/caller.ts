/**
 * Caller identity (spec §4). Every operation runs as a caller; the transport decides who
 * that is and the identity travels through AsyncLocalStorage, never a global, so two
 * concurrent HTTP requests can never see each other's identity.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { AccessLevel } from './access.js';

export type Tier = 'trusted' | 'quarantined';
export const TIERS: readonly Tier[] = ['trusted', 'quarantined'];

export interface Caller {
  agent_id: string;
  tier: Tier;
  grants: string[];
  /** The most a caller may read: remote HTTP callers and quarantined members stop at team. */
  ceiling: AccessLevel;
}

export const OPERATOR: Caller = Object.freeze({ agent_id: 'operator', tier: 'trusted', grants: [], ceiling: 'private' }) as Caller;

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

/** Whether a caller may read an agent's namespace: trusted callers read all; others their grants. */
export function mayRead(caller: Caller, agentId: string): boolean {
  return caller.tier === 'trusted' || caller.grants.includes(agentId);
}
