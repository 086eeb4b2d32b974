/**
 * The read operations (spec §5): one function per tool, `(context, args) → output`, each output
 * a named type. Payload shapes, key order and defaults follow the Python engine's tools; their
 * declarations (schemas, descriptions) are in read-operations.ts.
 */
import { resolveAccess, type AccessLevel, type ResolvedAccess } from '../trust/access.js';
import { agentsInScope, type OperationContext } from '../context.js';
import { localDay } from '../store/dates.js';
import { sessionsForProject, type DatedSession } from '../store/indexes.js';
import { agentSessions, librarySessions } from '../store/library-indexes.js';
import {
  answered,
  boundAnswers,
  byDateRef,
  byRecencyRef,
  dedupeSessions,
  mergeAgentIds,
  mergeEntityMatches,
  peerAgentFilter,
  peerReport,
  peerSessions,
  shouldFanOut,
  tagAgent,
  unreachable,
  type PeerReport,
  type UnreachablePeer,
} from '../federation/federation.js';
import type { PeerAnswer } from '../peers.js';
import type { Failed, OneOf, Payload } from '../payload.js';
import { planPage, takePage, takeSessionPage } from './paging.js';
import { findEntityMatches, sessionRef, type EntityMatch, type SessionRef } from './queries.js';
import { promptContext, recognise, recognitionLine, type MergedEntity } from './recognition.js';
import {
  MAX_PAGE_SIZE,
  type CompileTurnInput,
  type CrossAgentSummaryInput,
  type DeeperContextInput,
  type FindEntityInput,
  type ListAgentsInput,
  type ListRecentWorkInput,
  type QueryAgentMemoryInput,
  type RecognitionInput,
} from './inputs.js';

export interface AccessArgs {
  access_level?: string | null;
  include_private?: boolean | null;
}

/** The access arguments a read answer echoes: the level as asked (or defaulted), and include_private. */
export type AccessEcho = { access_level: string; include_private: boolean };

/** Peers that did not answer, listed when some did not (federated answers only). */
export type Reachability = { peers_unreachable?: UnreachablePeer[] };

/**
 * What every paged listing (recent work, notes, workstreams) answers besides its rows: the
 * window and page it was asked for, echoed, the access echo, where the next page starts, and
 * the peers that did not answer.
 */
export type PagedListing = {
  since: string | null;
  agent: string | null;
  limit: number | null;
  cursor: string | null;
  next_cursor: string | null;
  has_more: boolean;
} & AccessEcho &
  Reachability;

export {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  pageSize,
  planPage,
  takePage,
  type Page,
  type PagePlan,
  type PageRequest,
} from './paging.js';

export function access(ctx: OperationContext, args: AccessArgs, toolDefault: AccessLevel): ResolvedAccess {
  return resolveAccess(args, toolDefault, ctx.env, ctx.caller.ceiling);
}

/** Asks every peer, or nobody: `[]` when this call does not fan out. */
export async function askPeers(
  ctx: OperationContext,
  args: { federation_hop?: number | null },
  tool: string,
  peerArgs: Payload,
  budgetMs?: number,
): Promise<PeerAnswer[] | null> {
  if (!shouldFanOut(ctx, args)) return null;
  const answers = await ctx.peers!.call(tool, peerArgs, budgetMs === undefined ? {} : { budgetMs });
  // Bounded once here, before any merge sees a peer's rows.
  return boundAnswers(answers, ctx.now());
}

/** Adds the list of peers that did not answer, when some did not. */
export function withReachability<T extends object>(payload: T, answers: PeerAnswer[] | null): T & Reachability {
  if (!answers) return payload;
  const missing = unreachable(answers);
  return missing.length ? { ...payload, peers_unreachable: missing } : payload;
}

export type ListAgentsOutput = { agents: string[] } & Reachability;

export async function listAgents(ctx: OperationContext, args: ListAgentsInput): Promise<ListAgentsOutput> {
  const local = agentsInScope(ctx).map((agent) => agent.id);
  const answers = await askPeers(ctx, args, 'list_agents', {});
  if (!answers) return { agents: local };
  return withReachability({ agents: mergeAgentIds(local, answers) }, answers);
}

export type FindEntityAnswer = { name: string } & AccessEcho & { matches: EntityMatch[] } & Reachability;
export type FindEntityOutput = OneOf<FindEntityAnswer | Failed<FindEntityAnswer>>;

export async function findEntity(ctx: OperationContext, args: FindEntityInput): Promise<FindEntityOutput> {
  const level = access(ctx, args, 'public');
  const base = { name: args.name, access_level: level.echoed, include_private: args.include_private ?? false };
  if (level.error) return { error: level.error, ...base, matches: [] };
  const local = findEntityMatches(agentsInScope(ctx), args.name, level.effective);
  const answers = await askPeers(ctx, args, 'find_entity', peerAccessArgs(level, { name: args.name }));
  if (!answers) return { ...base, matches: local };
  return withReachability({ ...base, matches: mergeEntityMatches(local, answers) }, answers);
}

/**
 * The arguments a peer gets: the level this caller may actually read at here — after
 * include_private and the caller's ceiling — never the level it asked for. A remote caller
 * capped at team must not get a loopback peer's private rows through this server.
 */
export function peerAccessArgs(level: ResolvedAccess, rest: Payload): Payload {
  return { ...rest, access_level: level.effective };
}

export type QueryAgentMemoryAnswer = { agent: string; topic: string } & AccessEcho & { matches: EntityMatch[] };
export type QueryAgentMemoryOutput = OneOf<QueryAgentMemoryAnswer | Failed<QueryAgentMemoryAnswer>>;

export async function queryAgentMemory(
  ctx: OperationContext,
  args: QueryAgentMemoryInput,
): Promise<QueryAgentMemoryOutput> {
  const level = access(ctx, args, 'public');
  const base = {
    agent: args.agent,
    topic: args.topic,
    access_level: level.echoed,
    include_private: args.include_private ?? false,
  };
  if (level.error) return { error: level.error, ...base, matches: [] };
  const matches = findEntityMatches(agentsInScope(ctx), args.topic, level.effective).filter((match) =>
    match.agents.includes(args.agent),
  );
  return { ...base, matches };
}

export type ListRecentWorkAnswer = PagedListing & { summary: boolean; sessions: SessionRef[] };
export type ListRecentWorkOutput = OneOf<ListRecentWorkAnswer | Failed<ListRecentWorkAnswer>>;

export async function listRecentWork(ctx: OperationContext, args: ListRecentWorkInput): Promise<ListRecentWorkOutput> {
  const level = access(ctx, args, 'public');
  const summary = args.summary ?? false;
  const base = {
    since: args.since ?? null,
    agent: args.agent ?? null,
    access_level: level.echoed,
    include_private: args.include_private ?? false,
    limit: args.limit ?? null,
    cursor: args.cursor ?? null,
    summary,
  };
  if (level.error) return { error: level.error, ...base, sessions: [], next_cursor: null, has_more: false };
  const plan = planPage(ctx, args);
  const empty = { ...base, sessions: [], next_cursor: null, has_more: false };
  if ('error' in plan) return { error: plan.error, ...empty };
  const toRef = ({ agent, session }: DatedSession) => sessionRef(agent, session, summary);
  const onPeer = peerAgentFilter(args.agent);
  const local = onPeer ? [] : localSessions(ctx, level.effective, args.agent ?? null);
  // A plain agent filter names a local agent; `peer:<peer>:<agent>` names one peer's agent.
  const answers =
    onPeer || !args.agent
      ? await askPeers(
          ctx,
          args,
          'list_recent_work',
          peerAccessArgs(level, {
            since: plan.cutoff,
            agent: onPeer ? onPeer.agent : null,
            limit: MAX_PAGE_SIZE,
            summary,
          }),
        )
      : null;
  if (onPeer && !answers) return empty;
  if (!answers) {
    // This server alone: the page is found by the cursor's row, not by walking to an offset.
    const page = takeSessionPage(plan, local);
    const sessions = page.items.map(toRef);
    return { ...base, sessions, next_cursor: page.next_cursor, has_more: page.has_more };
  }
  const fromPeers = peerSessions(onPeer ? answers.filter((answer) => answer.peer === onPeer.peer) : answers);
  const inWindow = local.slice(0, windowEnd(local, plan.cutoff)).map(toRef);
  const ordered = dedupeSessions([...inWindow, ...fromPeers].sort(byRecencyRef));
  const page = takePage(plan, ordered);
  return withReachability(
    { ...base, sessions: page.items, next_cursor: page.next_cursor, has_more: page.has_more },
    answers,
  );
}

/** The visible dated sessions in scope, newest first: the library's, or one local agent's. */
function localSessions(ctx: OperationContext, level: AccessLevel, agentFilter: string | null): readonly DatedSession[] {
  const agents = agentsInScope(ctx);
  if (agentFilter === null) return librarySessions(agents, level);
  const agent = agents.find((candidate) => candidate.id === agentFilter);
  return agent ? agentSessions(agent, level) : [];
}

/** How many leading rows fall on or after the cutoff day (rows are newest first). */
function windowEnd(rows: readonly DatedSession[], cutoff: string): number {
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (rows[mid].session.day! >= cutoff) low = mid + 1;
    else high = mid;
  }
  return low;
}

export type CrossAgentSummaryAnswer = {
  project: string;
  agents: string[];
  recent_sessions: SessionRef[];
  entities: EntityMatch[];
} & Reachability;
export type CrossAgentSummaryOutput = OneOf<CrossAgentSummaryAnswer | Failed<CrossAgentSummaryAnswer>>;

export async function getCrossAgentSummary(
  ctx: OperationContext,
  args: CrossAgentSummaryInput,
): Promise<CrossAgentSummaryOutput> {
  const level = access(ctx, args, 'public');
  // The engine strips the project and echoes it stripped.
  const project = args.project.trim();
  if (level.error) return { error: level.error, project, agents: [], recent_sessions: [], entities: [] };
  const agents = agentsInScope(ctx);
  const entities: EntityMatch[] = findEntityMatches(agents, project, level.effective);
  const sessions = sessionsForProject(agents, project, level.effective);
  const involved = new Set<string>();
  for (const match of entities) for (const agent of match.agents) involved.add(agent);
  for (const { agent } of sessions) involved.add(agent);
  const localPayload = {
    project,
    agents: [...involved].sort(),
    recent_sessions: sessions.map(({ agent, session }) => sessionRef(agent, session)),
    entities,
  };
  const answers = await askPeers(ctx, args, 'get_cross_agent_summary', peerAccessArgs(level, { project }));
  if (!answers) return localPayload;
  const merged = mergeEntityMatches(entities, answers, 'entities');
  const mergedSessions = dedupeSessions(
    [...localPayload.recent_sessions, ...peerSessions(answers, 'recent_sessions')].sort(byDateRef),
  );
  const all = new Set<string>();
  for (const match of merged) for (const agent of match.agents) all.add(agent);
  for (const session of mergedSessions) all.add(session.agent);
  return withReachability(
    { project, agents: [...all].sort(), recent_sessions: mergedSessions, entities: merged },
    answers,
  );
}

/** A recognised entity as the answer lists it. */
export type RecognisedEntity = { name: string; type: string | null; source_agents: string[] };

export type RecognitionAnswer = { prompt: string } & AccessEcho & {
    recognition: string;
    matched_entities: RecognisedEntity[];
    recognition_latency_us: number;
    hydration_scheduled: boolean;
    prompt_context: string;
  } & Partial<PeerReport>;
export type RecognitionOutput = OneOf<RecognitionAnswer | Failed<RecognitionAnswer>>;

export async function prepareRecognitionContext(
  ctx: OperationContext,
  args: RecognitionInput,
): Promise<RecognitionOutput> {
  const started = process.hrtime.bigint();
  const level = access(ctx, args, 'team');
  const base = { prompt: args.prompt, access_level: level.echoed, include_private: args.include_private ?? false };
  if (level.error) {
    return {
      error: level.error,
      ...base,
      recognition: '',
      matched_entities: [],
      recognition_latency_us: 0,
      hydration_scheduled: false,
      prompt_context: '',
    };
  }
  // Copies: the index's entities are shared by every call; peer merging must not touch them.
  const matched = recognise(agentsInScope(ctx), level.effective, args.prompt).map((entity) => ({
    ...entity,
    source_agents: [...entity.source_agents],
  }));
  const answers = await askPeers(
    ctx,
    args,
    'prepare_recognition_context',
    peerAccessArgs(level, { prompt: args.prompt }),
    RECOGNITION_BUDGET_MS,
  );
  if (answers) mergePeerRecognition(matched, answers);
  const recognition = recognitionLine(matched, localDay(ctx.now()));
  const latency = Number((process.hrtime.bigint() - started) / 1000n);
  const payload: RecognitionAnswer = {
    ...base,
    recognition,
    matched_entities: matched.map((entity) => ({
      name: entity.name,
      type: entity.type,
      source_agents: [...entity.source_agents],
    })),
    recognition_latency_us: latency,
    hydration_scheduled: matched.length > 0,
    prompt_context: promptContext(recognition, matched),
  };
  return answers ? { ...payload, ...peerReport(answers) } : payload;
}

/** A peer answers recognition within this budget or not at all: it runs at every turn. */
export const RECOGNITION_BUDGET_MS = 200;

/** Peers' matched entities folded in by lower-cased name; their agents tagged. */
function mergePeerRecognition(matched: MergedEntity[], answers: readonly PeerAnswer[]): void {
  const byKey = new Map(matched.map((entity) => [entity.name.toLowerCase(), entity]));
  // The source agents already listed for each merged entity: one lookup per peer agent.
  const listed = new Map<MergedEntity, Set<string>>();
  const seenIn = (entity: MergedEntity): Set<string> => {
    let seen = listed.get(entity);
    if (!seen) listed.set(entity, (seen = new Set(entity.source_agents)));
    return seen;
  };
  for (const { peer, payload } of answered(answers)) {
    const rows = Array.isArray(payload.matched_entities) ? (payload.matched_entities as unknown[]) : [];
    for (const raw of rows) {
      const row = raw as { name?: unknown; type?: unknown; source_agents?: unknown };
      if (!row || typeof row.name !== 'string') continue;
      let target = byKey.get(row.name.toLowerCase());
      if (!target) {
        target = {
          name: row.name,
          type: typeof row.type === 'string' ? row.type : null,
          source_agents: [],
          summary: null,
          tags: [],
          valid_to: null,
        };
        byKey.set(row.name.toLowerCase(), target);
        matched.push(target);
      }
      const agents = Array.isArray(row.source_agents)
        ? row.source_agents.filter((a): a is string => typeof a === 'string')
        : [];
      const seen = seenIn(target);
      for (const agent of agents) {
        const tagged = tagAgent(peer, agent);
        if (seen.has(tagged)) continue;
        seen.add(tagged);
        target.source_agents.push(tagged);
      }
    }
  }
}

/** No L2 retriever ships with this package: the context is empty, never an error. */
export type DeeperContextOutput = { prompt: string } & AccessEcho & { context: string; context_chars: number };

export async function getDeeperContext(ctx: OperationContext, args: DeeperContextInput): Promise<DeeperContextOutput> {
  const level = access(ctx, args, 'team');
  return {
    prompt: args.prompt,
    access_level: level.echoed,
    include_private: args.include_private ?? false,
    context: '',
    context_chars: 0,
  };
}

export type CompileTurnOutput = { _status: 'deferred'; schema_version: string; reason: string };

export async function compileCodexTurn(_ctx: OperationContext, _args: CompileTurnInput): Promise<CompileTurnOutput> {
  return {
    _status: 'deferred',
    schema_version: 'codex-turn-brief/v1',
    reason:
      'the Codex turn compiler reads environment-bound local state (the Codex session store) and is not part of this server yet; use prepare_recognition_context for per-turn context',
  };
}
