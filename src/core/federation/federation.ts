/**
 * Fan-out and merge (spec §11). A trusted caller's query at federation_hop 0 also asks every
 * peer (which answers from its local store only: depth 1), and the answers are merged with
 * provenance: a peer's agents appear as `peer:<peer>:<agent>`. Quarantined callers never fan
 * out: their grants name local namespaces only. A peer that fails contributes nothing.
 */
import type { OperationContext } from '../context.js';
import type { EntityMatch, SessionRef } from '../operations/queries.js';
import type { PeerAnswer } from './peers.js';

export const PEER_PREFIX = 'peer:';

export function shouldFanOut(ctx: OperationContext, args: { federation_hop?: number | null }): boolean {
  return (
    Boolean(ctx.peers && ctx.peers.names.length > 0) &&
    !((args.federation_hop ?? 0) > 0) &&
    ctx.caller.tier === 'trusted'
  );
}

/** Provenance tag for a peer's agent; rows a peer already tagged keep their tag. */
export function tagAgent(peer: string, agent: string): string {
  return agent.startsWith(PEER_PREFIX) ? agent : `${PEER_PREFIX}${peer}:${agent}`;
}

/** An agent filter that names a peer's agent: `peer:<peer>:<agent>` → its parts. */
export function peerAgentFilter(agent: string | null | undefined): { peer: string; agent: string } | null {
  if (!agent?.startsWith(PEER_PREFIX)) return null;
  const rest = agent.slice(PEER_PREFIX.length);
  const split = rest.indexOf(':');
  if (split <= 0 || split === rest.length - 1) return null;
  return { peer: rest.slice(0, split), agent: rest.slice(split + 1) };
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

export function answered(answers: readonly PeerAnswer[]): { peer: string; payload: Record<string, unknown> }[] {
  return answers
    .filter((answer) => answer.ok && answer.payload)
    .map((answer) => ({ peer: answer.peer, payload: answer.payload! }));
}

export function mergeAgentIds(local: readonly string[], answers: readonly PeerAnswer[]): string[] {
  const all = new Set(local);
  for (const { peer, payload } of answered(answers))
    for (const agent of strings(payload.agents)) all.add(tagAgent(peer, agent));
  return [...all].sort();
}

/** Peer entity matches folded into the local ones by lower-cased name, agents tagged. */
export function mergeEntityMatches(
  local: readonly EntityMatch[],
  answers: readonly PeerAnswer[],
  field = 'matches',
): EntityMatch[] {
  const merged = local.map((match) => ({
    ...match,
    agents: [...match.agents],
    types: [...match.types],
    summaries: { ...match.summaries },
    tags: [...match.tags],
  }));
  const byKey = new Map<string, EntityMatch>();
  for (const match of merged) if (!byKey.has(match.name.toLowerCase())) byKey.set(match.name.toLowerCase(), match);
  for (const { peer, payload } of answered(answers)) {
    const matches = Array.isArray(payload[field]) ? (payload[field] as unknown[]) : [];
    for (const raw of matches) {
      if (!raw || typeof raw !== 'object' || typeof (raw as EntityMatch).name !== 'string') continue;
      const match = raw as EntityMatch;
      let target = byKey.get(match.name.toLowerCase());
      if (!target) {
        target = { name: match.name, agents: [], types: [], summaries: {}, tags: [] };
        byKey.set(match.name.toLowerCase(), target);
        merged.push(target);
      }
      for (const agent of strings(match.agents)) {
        const tagged = tagAgent(peer, agent);
        if (!target.agents.includes(tagged)) target.agents.push(tagged);
      }
      for (const type of strings(match.types)) if (!target.types.includes(type)) target.types.push(type);
      for (const tag of strings(match.tags)) if (!target.tags.includes(tag)) target.tags.push(tag);
      const summaries = match.summaries && typeof match.summaries === 'object' ? match.summaries : {};
      for (const [agent, summary] of Object.entries(summaries)) {
        if (typeof summary === 'string') target.summaries[tagAgent(peer, agent)] ??= summary;
      }
    }
  }
  return merged;
}

/** Peer sessions tagged, deduplicated by (date, cwd, agent) against what is already there. */
export function peerSessions(answers: readonly PeerAnswer[], field = 'sessions'): SessionRef[] {
  const out: SessionRef[] = [];
  for (const { peer, payload } of answered(answers)) {
    const rows = Array.isArray(payload[field]) ? (payload[field] as unknown[]) : [];
    for (const raw of rows) {
      if (!raw || typeof raw !== 'object') continue;
      const row = raw as Record<string, unknown>;
      if (typeof row.date !== 'string' || typeof row.agent !== 'string') continue;
      const ref: SessionRef = {
        agent: tagAgent(peer, row.agent),
        date: row.date,
        cwd: typeof row.cwd === 'string' ? row.cwd : null,
        project_focus: strings(row.project_focus),
      };
      if ('key_actions' in row) ref.key_actions = strings(row.key_actions);
      if ('files_touched' in row) ref.files_touched = strings(row.files_touched);
      out.push(ref);
    }
  }
  return out;
}

export function dedupeSessions(rows: readonly SessionRef[]): SessionRef[] {
  const seen = new Set<string>();
  return rows.filter((row) => {
    const key = JSON.stringify([row.date, row.cwd, row.agent]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** list_recent_work order: newest first, equal days by agent id descending. */
export function byRecencyRef(a: SessionRef, b: SessionRef): number {
  if (a.date !== b.date) return a.date < b.date ? 1 : -1;
  if (a.agent !== b.agent) return a.agent < b.agent ? 1 : -1;
  return 0;
}

/** get_cross_agent_summary order: newest first, equal days keep their order. */
export function byDateRef(a: SessionRef, b: SessionRef): number {
  return a.date === b.date ? 0 : a.date < b.date ? 1 : -1;
}

/** The per-peer report recognition carries when peers exist. */
export function peerReport(answers: readonly PeerAnswer[]): Record<string, unknown> {
  const latencies: Record<string, number | null> = {};
  for (const answer of answers) latencies[answer.peer] = answer.ok ? answer.latency_us : null;
  return {
    peer_latencies_us: latencies,
    peers_queried: answers.length,
    peers_responded: answers.filter((answer) => answer.ok).length,
    peers_timed_out: answers.filter((answer) => answer.timed_out).length,
  };
}

/** Which peers did not answer, for payloads that report reachability. */
export function unreachable(
  answers: readonly PeerAnswer[],
): { peer: string; timed_out: boolean; error: string | null }[] {
  return answers
    .filter((answer) => !answer.ok)
    .map((answer) => ({ peer: answer.peer, timed_out: answer.timed_out, error: answer.error ?? null }));
}

/**
 * A federated export (`bourdon agents --export --federated`), merged caller-side: each peer's
 * agents are re-tagged here. A peer's own `machine`, `source` and `source_kind` claims are
 * never trusted: provenance is the peer name this machine configured.
 */
export function mergeExports(local: Record<string, unknown>, answers: readonly PeerAnswer[]): Record<string, unknown> {
  const agents = [...((local.agents as Record<string, unknown>[]) ?? [])];
  const sources: Record<string, unknown>[] = [{ name: local.machine, kind: 'local', reachable: true, error: null }];
  for (const answer of answers) {
    sources.push({
      name: answer.peer,
      kind: 'peer',
      reachable: answer.ok,
      error: answer.ok ? null : (answer.error ?? 'unreachable'),
    });
    if (!answer.ok || !answer.payload) continue;
    const rows = Array.isArray(answer.payload.agents) ? (answer.payload.agents as unknown[]) : [];
    for (const raw of rows) {
      if (!raw || typeof raw !== 'object' || typeof (raw as { id?: unknown }).id !== 'string') continue;
      const row = raw as Record<string, unknown>;
      agents.push({
        ...row,
        id: tagAgent(answer.peer, row.id as string),
        source: `${PEER_PREFIX}${answer.peer}`,
        source_kind: 'peer',
      });
    }
  }
  return { ...local, agents, sources };
}
