/**
 * search_memory across peers (spec §11's fan-out, for the tool the engine does not have). Every
 * peer is asked `search_memory`; a peer that does not answer it (the Python engine has no such
 * tool) is asked `find_entity` with the words as a name, at the same time, and its matches are
 * merged as entity results. A peer's rows carry their provenance (`peer:<name>:<agent>`);
 * entities and workstreams merge with the local ones of the same name. A peer's scores come
 * from its own index: results are merged by score, and a find_entity match (an exact name)
 * scores as the best local result. A peer that answers neither is listed in `peers_unreachable`.
 */
import type { OperationContext } from '../context.js';
import {
  peerAgentFilter,
  shouldFanOut,
  tagAgent,
  unreachable,
  type UnreachablePeer,
} from '../federation/federation.js';
import type { EntityMatch } from '../rows.js';
import type { PeerAnswer } from '../peers.js';
import type { ResolvedAccess } from '../trust/access.js';
import type { SearchResult } from './answers.js';
import { MAX_PAGE_SIZE, type SearchMemoryInput } from './inputs.js';
import { askPeers, peerAccessArgs } from './read-common.js';
import { fold, words } from './search-words.js';
import { snippet } from './search-snippet.js';

interface Filters {
  kinds: ReadonlySet<string> | null;
  agent: string | null;
  since: string | null;
}

/** A peer's result with every agent (and note id) it names tagged with the peer. */
function tagged(peer: string, result: SearchResult): SearchResult {
  switch (result.kind) {
    case 'entity':
    case 'workstream':
      return { ...result, agents: result.agents.map((agent) => tagAgent(peer, agent)) };
    case 'session':
      return { ...result, agent: tagAgent(peer, result.agent) };
    case 'note':
      return { ...result, agent: tagAgent(peer, result.agent), id: result.id ? tagAgent(peer, result.id) : null };
  }
}

/** A peer's find_entity match as an entity result. */
function fromMatch(peer: string, match: EntityMatch, query: string, score: number): SearchResult {
  const summary = Object.values(match.summaries)[0] ?? match.name;
  return {
    kind: 'entity',
    name: match.name,
    agents: match.agents.map((agent) => tagAgent(peer, agent)),
    types: [...match.types],
    tags: [...match.tags],
    superseded: false,
    score,
    matched: ['name'],
    snippet: snippet(summary, new Set(words(query))),
  };
}

function namesOf(result: SearchResult): string[] {
  return result.kind === 'entity' || result.kind === 'workstream' ? result.agents : [result.agent];
}

/** Entities by name and workstreams by project merge; sessions and notes are each their own. */
function mergeInto(merged: SearchResult[], byKey: Map<string, SearchResult>, result: SearchResult): void {
  const key =
    result.kind === 'entity'
      ? `e\u0001${result.name.toLowerCase()}`
      : result.kind === 'workstream'
        ? `w\u0001${fold(result.name)}`
        : null;
  const known = key === null ? undefined : byKey.get(key);
  if (!known || (known.kind !== 'entity' && known.kind !== 'workstream') || known.kind !== result.kind) {
    merged.push(result);
    if (key !== null) byKey.set(key, result);
    return;
  }
  const incoming = result as typeof known;
  const joined = {
    ...known,
    agents: [...new Set([...known.agents, ...incoming.agents])],
    score: Math.max(known.score, incoming.score),
    matched: [...new Set([...known.matched, ...incoming.matched])].sort(),
  };
  if (joined.kind === 'entity' && incoming.kind === 'entity') {
    joined.types = [...new Set([...joined.types, ...incoming.types])];
    joined.tags = [...new Set([...joined.tags, ...incoming.tags])];
    joined.superseded = joined.superseded && incoming.superseded;
  }
  merged[merged.indexOf(known)] = joined;
  byKey.set(key!, joined);
}

/** The local results with every peer's merged in, best first, and the peers that answered nothing. */
export async function searchPeers(
  ctx: OperationContext,
  args: SearchMemoryInput,
  level: ResolvedAccess,
  local: SearchResult[],
  filters: Filters,
): Promise<{ results: SearchResult[]; unreachable: UnreachablePeer[] | null }> {
  const peerFilter = peerAgentFilter(filters.agent);
  if (!shouldFanOut(ctx, args) || (filters.agent !== null && !peerFilter)) return { results: local, unreachable: null };
  const peerArgs = peerAccessArgs(level, {
    query: args.query,
    kind: args.kind ?? null,
    since: filters.since,
    agent: peerFilter?.agent ?? null,
    limit: MAX_PAGE_SIZE,
  });
  const searched = await askPeers(ctx, args, 'search_memory', peerArgs);
  if (!searched) return { results: local, unreachable: null };
  // A peer that answered but not search_memory (the engine has no such tool) is asked find_entity,
  // after: a failed call closes that peer's connection, so the two are never in flight together.
  // A peer that timed out is not asked again.
  const fallback = (!filters.kinds || filters.kinds.has('entity')) && filters.since === null;
  const engines = searched.filter((answer) => !answer.ok && !answer.timed_out).map((answer) => answer.peer);
  const found =
    fallback && engines.length
      ? await askPeers(ctx, args, 'find_entity', peerAccessArgs(level, { name: args.query }), undefined, engines)
      : null;
  const findAnswers = new Map((found ?? []).map((answer) => [answer.peer, answer]));
  const top = local.reduce((best, result) => Math.max(best, result.score), 1);
  const incoming: SearchResult[] = [];
  const reported: PeerAnswer[] = [];
  for (const answer of searched) {
    if (peerFilter && answer.peer !== peerFilter.peer) continue;
    const payload = answer.ok ? answer.payload : null;
    if (payload && Array.isArray(payload.results)) {
      for (const result of payload.results as SearchResult[]) incoming.push(tagged(answer.peer, result));
      reported.push(answer);
      continue;
    }
    const byName = findAnswers.get(answer.peer);
    const matches =
      byName?.ok && byName.payload && Array.isArray(byName.payload.matches) ? byName.payload.matches : null;
    if (!matches) {
      reported.push(answer);
      continue;
    }
    for (const match of matches as EntityMatch[]) incoming.push(fromMatch(answer.peer, match, args.query, top));
    reported.push(byName!);
  }
  const merged: SearchResult[] = [];
  const byKey = new Map<string, SearchResult>();
  for (const result of local) mergeInto(merged, byKey, result);
  for (const result of incoming) {
    if (peerFilter && !namesOf(result).some((agent) => agent === filters.agent)) continue;
    mergeInto(merged, byKey, result);
  }
  // Stable: at equal scores the local result stays first.
  merged.sort((a, b) => b.score - a.score);
  const missing = unreachable(reported);
  return { results: merged, unreachable: missing.length ? missing : null };
}
