/**
 * The read operations about agents and entities (spec §5): list_agents, find_entity,
 * query_agent_memory and get_cross_agent_summary, `(context, args) → output`, each output a
 * named type. Payload shapes, key order and defaults follow the Python engine's tools; their
 * declarations (schemas, descriptions) are in read-operations.ts.
 */
import { agentsInScope, tellUnknownAgent, type OperationContext } from '../context.js';
import { sessionsForProject } from '../store/indexes.js';
import {
  byDateRef,
  dedupeSessions,
  mergeAgentIds,
  mergeEntityMatches,
  peerSessions,
} from '../federation/federation.js';
import type { Failed, OneOf } from '../payload.js';
import { findEntityMatches, sessionRef, type EntityMatch } from './queries.js';
import { access, askPeers, peerAccessArgs, withReachability } from './read-common.js';
import type {
  Answer,
  crossAgentSummaryAnswer,
  findEntityAnswer,
  listAgentsAnswer,
  queryAgentMemoryAnswer,
} from './answers.js';
import type { CrossAgentSummaryInput, FindEntityInput, ListAgentsInput, QueryAgentMemoryInput } from './inputs.js';

export type ListAgentsOutput = Answer<typeof listAgentsAnswer>;

export async function listAgents(ctx: OperationContext, args: ListAgentsInput): Promise<ListAgentsOutput> {
  const local = agentsInScope(ctx).map((agent) => agent.id);
  const answers = await askPeers(ctx, args, 'list_agents', {});
  if (!answers) return { agents: local };
  return withReachability({ agents: mergeAgentIds(local, answers) }, answers);
}

export type FindEntityAnswer = Answer<typeof findEntityAnswer>;
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

export type QueryAgentMemoryAnswer = Answer<typeof queryAgentMemoryAnswer>;
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
  tellUnknownAgent(ctx, args.agent);
  const matches = findEntityMatches(agentsInScope(ctx), args.topic, level.effective).filter((match) =>
    match.agents.includes(args.agent),
  );
  return { ...base, matches };
}

export type CrossAgentSummaryAnswer = Answer<typeof crossAgentSummaryAnswer>;
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
