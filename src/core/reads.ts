/**
 * The read operations (spec §5): one function per tool, `(context, args) → payload`.
 * Payload shapes, key order and defaults follow the Python engine's tools.
 */
import { resolveAccess, type AccessLevel, type ResolvedAccess } from './access.js';
import { agentsInScope, type OperationContext } from './context.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { localDay, resolveCutoff } from './dates.js';
import { pyRepr } from './ids.js';
import type { AgentRecord } from './library.js';
import { canSee } from './access.js';
import { indexesFor } from './indexes.js';
import { foldKey } from './manifest.js';
import { findEntityMatches, sessionRef, type DatedSession, type EntityMatch } from './queries.js';
import { buildRecognitionIndex, promptContext, recognise, recognitionLine } from './recognition.js';

export type Payload = Record<string, unknown>;

export interface AccessArgs {
  access_level?: string | null;
  include_private?: boolean | null;
}

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export function access(ctx: OperationContext, args: AccessArgs, toolDefault: AccessLevel): ResolvedAccess {
  return resolveAccess(args, toolDefault, ctx.env, ctx.caller.ceiling);
}

export function pageSize(limit: number | null | undefined): number {
  if (limit === null || limit === undefined || !Number.isFinite(limit)) return DEFAULT_PAGE_SIZE;
  return Math.min(MAX_PAGE_SIZE, Math.max(1, Math.trunc(limit)));
}

/** Recognition indexes, cached per (snapshot generation, scope, level). */
const recognitionCache = new WeakMap<readonly AgentRecord[], Map<AccessLevel, ReturnType<typeof buildRecognitionIndex>>>();

function recognitionIndex(agents: readonly AgentRecord[], level: AccessLevel) {
  let byLevel = recognitionCache.get(agents);
  if (!byLevel) {
    byLevel = new Map();
    recognitionCache.set(agents, byLevel);
  }
  let index = byLevel.get(level);
  if (!index) {
    index = buildRecognitionIndex(agents, level);
    byLevel.set(level, index);
  }
  return index;
}

export async function listAgents(ctx: OperationContext, _args: { federation_hop?: number } = {}): Promise<Payload> {
  return { agents: agentsInScope(ctx).map((agent) => agent.id) };
}

export interface FindEntityArgs extends AccessArgs {
  name: string;
  federation_hop?: number;
}

export async function findEntity(ctx: OperationContext, args: FindEntityArgs): Promise<Payload> {
  const level = access(ctx, args, 'public');
  const base = { name: args.name, access_level: level.echoed, include_private: args.include_private ?? false };
  if (level.error) return { error: level.error, ...base, matches: [] };
  return { ...base, matches: findEntityMatches(agentsInScope(ctx), args.name, level.effective) };
}

export interface QueryAgentMemoryArgs extends AccessArgs {
  agent: string;
  topic: string;
}

export async function queryAgentMemory(ctx: OperationContext, args: QueryAgentMemoryArgs): Promise<Payload> {
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

export interface ListRecentWorkArgs extends AccessArgs {
  since?: string | null;
  agent?: string | null;
  limit?: number | null;
  cursor?: string | null;
  summary?: boolean | null;
  federation_hop?: number;
}

export interface PageRequest {
  since?: string | null;
  limit?: number | null;
  cursor?: string | null;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
  has_more: boolean;
  error?: string;
}

/**
 * Pages an ordered sequence: offset from the cursor, cutoff remembered in the next cursor.
 * Only offset + limit + 1 items are ever taken, so a first page costs a first page.
 */
export function pageOf<T>(
  ctx: OperationContext,
  request: PageRequest,
  select: (cutoff: string) => Iterable<T>,
): Page<T> {
  let offset = 0;
  let savedCutoff: string | null = null;
  if (request.cursor !== null && request.cursor !== undefined) {
    const state = decodeCursor(request.cursor);
    if (!state) return { items: [], next_cursor: null, has_more: false, error: `invalid cursor: ${pyRepr(request.cursor)}` };
    offset = state.offset;
    savedCutoff = state.cutoff;
  }
  const cutoff = resolveCutoff(request.since, savedCutoff, ctx.now(), ctx.warn);
  const size = pageSize(request.limit);
  const items: T[] = [];
  let seen = 0;
  let has_more = false;
  for (const item of select(cutoff)) {
    if (seen >= offset + size) {
      has_more = true;
      break;
    }
    if (seen >= offset) items.push(item);
    seen += 1;
  }
  const end = offset + items.length;
  return { items, has_more, next_cursor: has_more ? encodeCursor({ offset: end, cutoff }) : null };
}

/** Visible sessions on or after the cutoff, newest first, from the recency index. */
function* recentSessions(
  agents: readonly AgentRecord[],
  level: AccessLevel,
  cutoff: string,
  agentFilter: string | null,
): Generator<DatedSession> {
  for (const dated of indexesFor(agents).sessionsByRecency) {
    if (dated.session.date.slice(0, 10) < cutoff) return; // sorted newest first: nothing older qualifies
    if (agentFilter !== null && dated.agent !== agentFilter) continue;
    if (canSee(level, dated.session.visibility)) yield dated;
  }
}

export async function listRecentWork(ctx: OperationContext, args: ListRecentWorkArgs): Promise<Payload> {
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
  const agents = agentsInScope(ctx);
  const agentFilter = args.agent ?? null;
  const page = pageOf(ctx, args, (cutoff) => recentSessions(agents, level.effective, cutoff, agentFilter));
  const sessions = page.items.map(({ agent, session }) => sessionRef(agent, session, summary));
  const payload: Payload = { ...base, sessions, next_cursor: page.next_cursor, has_more: page.has_more };
  return page.error ? { error: page.error, ...payload } : payload;
}

export interface CrossAgentSummaryArgs extends AccessArgs {
  project: string;
  federation_hop?: number;
}

export async function getCrossAgentSummary(ctx: OperationContext, args: CrossAgentSummaryArgs): Promise<Payload> {
  const level = access(ctx, args, 'public');
  if (level.error) return { error: level.error, project: args.project, agents: [], recent_sessions: [], entities: [] };
  const agents = agentsInScope(ctx);
  const entities: EntityMatch[] = findEntityMatches(agents, args.project, level.effective);
  const key = foldKey(args.project);
  const sessions = key
    ? (indexesFor(agents).sessionsByProject.get(key) ?? []).filter(({ session }) => canSee(level.effective, session.visibility))
    : [];
  const involved = new Set<string>();
  for (const match of entities) for (const agent of match.agents) involved.add(agent);
  for (const { agent } of sessions) involved.add(agent);
  return {
    project: args.project,
    agents: [...involved].sort(),
    recent_sessions: sessions.map(({ agent, session }) => sessionRef(agent, session)),
    entities,
  };
}

export interface RecognitionArgs extends AccessArgs {
  prompt: string;
  federation_hop?: number;
}

export async function prepareRecognitionContext(ctx: OperationContext, args: RecognitionArgs): Promise<Payload> {
  const started = process.hrtime.bigint();
  const level = access(ctx, args, 'team');
  const base = { prompt: args.prompt, access_level: level.echoed, include_private: args.include_private ?? false };
  if (level.error) {
    return { error: level.error, ...base, recognition: '', matched_entities: [], recognition_latency_us: 0, hydration_scheduled: false, prompt_context: '' };
  }
  const matched = recognise(recognitionIndex(agentsInScope(ctx), level.effective), args.prompt);
  const recognition = recognitionLine(matched, localDay(ctx.now()));
  const latency = Number((process.hrtime.bigint() - started) / 1000n);
  return {
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
}

export interface DeeperContextArgs extends AccessArgs {
  prompt: string;
}

/** No L2 retriever ships with this package: the context is empty, never an error. */
export async function getDeeperContext(ctx: OperationContext, args: DeeperContextArgs): Promise<Payload> {
  const level = access(ctx, args, 'team');
  return {
    prompt: args.prompt,
    access_level: level.echoed,
    include_private: args.include_private ?? false,
    context: '',
    context_chars: 0,
  };
}

export interface CompileTurnArgs {
  prompt: string;
  cwd?: string | null;
  access_level?: string | null;
  max_items?: number;
  max_chars?: number;
}

export async function compileCodexTurn(_ctx: OperationContext, _args: CompileTurnArgs): Promise<Payload> {
  return {
    _status: 'deferred',
    schema_version: 'codex-turn-brief/v1',
    reason:
      'the Codex turn compiler reads environment-bound local state (the Codex session store) and is not part of this server yet; use prepare_recognition_context for per-turn context',
  };
}
