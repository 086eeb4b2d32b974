/**
 * What every core operation runs with (`OperationContext`: the store, the caller, the clock,
 * the peers, the config paths, the file operations), how a default one is made, and the
 * manifests a caller may read. Operations are `(context, input) → output`, declared once in
 * operations/ (operation.ts); the adapters build a context and call the declaration.
 *
 * Its own part of core, between `trust` and `writes` (docs/architecture.md). May import: the
 * core root's leaf files, `store`, `fs` and `trust`; never `writes`, `federation`,
 * `operations`, `admin` or an adapter.
 */
import os from 'node:os';
import type { AccessLevel } from './trust/access.js';
import { mayRead, OPERATOR, type Caller } from './trust/caller.js';
import { stderrWarn, type AgentRecord, type LibraryStore, type Warn } from './store/library.js';
import type { LibraryFiles } from './fs/atomic.js';
import type { ConfigPaths, Env } from './store/config.js';
import { preciseNow } from './store/dates.js';
import type { PeerFanout } from './peers.js';
import { unknownAgentMessage } from './store/suggest.js';

export interface OperationContext {
  store: LibraryStore;
  caller: Caller;
  env: Env;
  now: () => Date;
  warn: Warn;
  /**
   * What the caller should be told besides the answer, which stays the engine's (an argument
   * that was ignored, an agent that is not in the library): the MCP adapter sends it as a
   * second text item. Absent, it goes to `warn`. Use `tell`.
   */
  notice?: Warn;
  /** Peers to fan out to; absent or null means local only. */
  peers?: PeerFanout | null;
  /** Paths of the config files (registry, audit, peers), resolved from flags and env. */
  config?: ConfigPaths;
  /** The file operations writes go through; the real ones when absent (tests inject faults). */
  files?: LibraryFiles;
}

export function createContext(store: LibraryStore, overrides: Partial<OperationContext> = {}): OperationContext {
  return {
    store,
    caller: OPERATOR,
    env: process.env,
    now: preciseNow,
    warn: stderrWarn,
    ...overrides,
  };
}

/** Tells the caller something beside the answer (see OperationContext.notice). */
export function tell(ctx: OperationContext, message: string): void {
  (ctx.notice ?? ctx.warn)(message);
}

/**
 * Tells the caller when `agentId` names no agent it may read (with the closest such ids), where
 * the engine answers such a call as if the agent knew nothing. Only ids in the caller's scope
 * are named: a quarantined caller learns nothing of the namespaces it was not granted.
 */
export function tellUnknownAgent(ctx: OperationContext, agentId: string): void {
  const message = unknownAgentMessage(
    agentId,
    agentsInScope(ctx).map((agent) => agent.id),
  );
  if (message) tell(ctx, message);
}

/** Scoped agent lists, one per grant set per snapshot, so per-snapshot indexes stay warm. */
const scopedCache = new WeakMap<readonly AgentRecord[], Map<string, readonly AgentRecord[]>>();

/** The manifests the caller may read: all for trusted callers, granted namespaces otherwise. */
export function agentsInScope(ctx: OperationContext): readonly AgentRecord[] {
  const { agents } = ctx.store.snapshot();
  if (ctx.caller.tier === 'trusted') return agents;
  let byGrants = scopedCache.get(agents);
  if (!byGrants) {
    byGrants = new Map();
    scopedCache.set(agents, byGrants);
  }
  const key = [...ctx.caller.grants].sort().join('\0');
  let scoped = byGrants.get(key);
  if (!scoped) {
    scoped = agents.filter((agent) => mayRead(ctx.caller, agent.id));
    byGrants.set(key, scoped);
  }
  return scoped;
}

/** This machine's name in exports and provenance: BOURDON_LOCAL_NAME, else the host name. */
export function machineName(env: Env): string {
  const named = env.BOURDON_LOCAL_NAME;
  return named && named.trim() ? named.trim() : os.hostname();
}

export type { AccessLevel, ConfigPaths, Env };
