/**
 * Workstreams (spec §5.12): what is in flight, across agents. A workstream is every visible
 * session and note whose project_focus names it (case-insensitively). Its status is
 * `archived` when an entity of that name has a past valid_to or an archived/canceled tag,
 * else `active` when its last activity is within the last 14 days (ctx.now()), else `idle`.
 *
 * `since` keeps workstreams whose last activity is on or after that day; without it every
 * workstream is listed (there is no default window: `idle` ones would never show). Paging
 * works as list_recent_work's: an offset and the cutoff travel in the cursor.
 */
import { canSee, type AccessLevel } from '../trust/access.js';
import { agentsInScope, tell, type OperationContext } from '../context.js';
import { decodeCursor, encodeCursor } from '../store/cursor.js';
import { dayOf, defaultCutoff, ignoredSince, localDay, sinceDay } from '../store/dates.js';
import { pyRepr } from '../python-str.js';
import type { AgentRecord } from '../store/library.js';
import { foldKey, type Entity, type Session } from '../store/manifest.js';
import { addCounts, answered, peerAgentFilter, peerCount, tagAgent } from '../federation/federation.js';
import type { PeerAnswer } from '../peers.js';
import { access, askPeers, peerAccessArgs, withReachability } from './read-common.js';
import { WORKSTREAM_STATUSES, type Answer, type listWorkstreamsAnswer, type Workstream } from './answers.js';
import { pageSize } from './paging.js';
import { MAX_PAGE_SIZE } from './inputs.js';
import type { Failed, OneOf } from '../payload.js';
import type { ListWorkstreamsInput } from './inputs.js';
import { readText } from '../trust/redaction.js';

export { WORKSTREAM_STATUSES };
export type WorkstreamStatus = (typeof WORKSTREAM_STATUSES)[number];
const ARCHIVE_TAGS = new Set(['archived', 'canceled', 'cancelled']);
const RECENT_ACTIONS = 3;

export type { Workstream };

interface Activity {
  agent: string;
  day: string;
  date: string;
  spelling: string;
  session: Session | null;
}

interface Stream {
  key: string;
  items: Activity[];
}

/** Newest first: day, then the written date, then agent id descending (list_recent_work's order). */
function byActivity(a: Activity, b: Activity): number {
  if (a.day !== b.day) return a.day < b.day ? 1 : -1;
  if (a.date !== b.date) return a.date < b.date ? 1 : -1;
  if (a.agent !== b.agent) return a.agent < b.agent ? 1 : -1;
  return 0;
}

function collectStreams(
  agents: readonly AgentRecord[],
  level: AccessLevel,
  agentFilter: string | null,
): Map<string, Stream> {
  const streams = new Map<string, Stream>();
  const add = (focus: readonly string[], activity: Omit<Activity, 'spelling'>) => {
    const seen = new Set<string>();
    for (const spelling of focus) {
      const key = foldKey(spelling);
      if (!key || seen.has(key)) continue;
      seen.add(key);
      let stream = streams.get(key);
      if (!stream) {
        stream = { key, items: [] };
        streams.set(key, stream);
      }
      stream.items.push({ ...activity, spelling: spelling.trim() });
    }
  };
  for (const agent of agents) {
    if (agentFilter !== null && agent.id !== agentFilter) continue;
    for (const session of agent.sessions) {
      const day = dayOf(session.date);
      if (!day || !canSee(level, session.visibility)) continue;
      add(session.project_focus, { agent: agent.id, day, date: session.date, session });
    }
    for (const note of agent.notes) {
      if (!canSee(level, note.visibility)) continue;
      add(note.project_focus, { agent: agent.id, day: note.day, date: note.date, session: null });
    }
  }
  return streams;
}

/** Visible entities by folded name (names only, not aliases), in agent-id then file order. */
function entitiesByName(agents: readonly AgentRecord[], level: AccessLevel): Map<string, Entity[]> {
  const out = new Map<string, Entity[]>();
  for (const agent of agents) {
    for (const entity of agent.entities) {
      if (!canSee(level, entity.visibility)) continue;
      const key = foldKey(entity.name);
      const list = out.get(key);
      if (list) list.push(entity);
      else out.set(key, [entity]);
    }
  }
  return out;
}

type StreamBase = Omit<Workstream, 'status'>;

/** Everything about a workstream that does not depend on today's date. */
function summariseBase(stream: Stream, entities: Entity[] | undefined): StreamBase {
  const items = [...stream.items].sort(byActivity);
  // A stream is opened by its first item.
  const newest = items[0]!;
  const oldest = items.reduce((min, item) => (item.day < min ? item.day : min), newest.day);
  const actions: string[] = [];
  for (const item of items) {
    for (const action of item.session?.key_actions ?? []) {
      if (actions.length >= RECENT_ACTIONS) break;
      if (!actions.includes(action)) actions.push(action);
    }
    if (actions.length >= RECENT_ACTIONS) break;
  }
  return {
    name: entities?.[0]?.name ?? newest.spelling,
    agents: [...new Set(items.map((item) => item.agent))].sort(),
    session_count: items.filter((item) => item.session !== null).length,
    note_count: items.filter((item) => item.session === null).length,
    first_activity: oldest,
    last_activity: newest.day,
    recent_actions: actions.map((action) => readText(action)),
  };
}

/** Today and the first day of the active window, computed once per call. */
interface Clock {
  today: string;
  activeSince: string;
}

/** What archiving needs from a workstream's entities, reduced once per snapshot. */
interface ArchiveFacts {
  /** An entity of that name carries an archived/canceled tag. */
  tagged: boolean;
  /** The earliest valid_to day among those entities, or null. */
  endsOn: string | null;
}

function archiveFacts(entities: Entity[] | undefined): ArchiveFacts {
  let tagged = false;
  let endsOn: string | null = null;
  for (const entity of entities ?? []) {
    if (entity.tags.some((tag) => ARCHIVE_TAGS.has(tag.trim().toLowerCase()))) tagged = true;
    const end = dayOf(entity.valid_to);
    if (end !== null && (endsOn === null || end < endsOn)) endsOn = end;
  }
  return { tagged, endsOn };
}

/** Archived when tagged so or when some entity's valid_to is already past; else by activity. */
function statusOf(base: StreamBase, facts: ArchiveFacts, clock: Clock): WorkstreamStatus {
  if (facts.tagged || (facts.endsOn !== null && facts.endsOn < clock.today)) return 'archived';
  return base.last_activity >= clock.activeSince ? 'active' : 'idle';
}

/**
 * Workstream summaries per (library snapshot, level, agent filter): building them reads every
 * visible session and note, so it is done once per snapshot, not per call. Only the status,
 * which depends on today's date, is computed per call.
 */
const summaryCache = new WeakMap<readonly AgentRecord[], Map<string, { base: StreamBase; facts: ArchiveFacts }[]>>();

function streamSummaries(agents: readonly AgentRecord[], level: AccessLevel, agentFilter: string | null) {
  let byKey = summaryCache.get(agents);
  if (!byKey) {
    byKey = new Map();
    summaryCache.set(agents, byKey);
  }
  const key = `${level}\u0000${agentFilter ?? ''}`;
  let summaries = byKey.get(key);
  if (!summaries) {
    const entities = entitiesByName(agents, level);
    // Sorted once here (last activity does not depend on today): calls only filter and page.
    summaries = [...collectStreams(agents, level, agentFilter).values()]
      .map((stream) => {
        const named = entities.get(stream.key);
        return { base: summariseBase(stream, named), facts: archiveFacts(named) };
      })
      .sort((a, b) => byLastActivity(a.base, b.base));
    byKey.set(key, summaries);
  }
  return summaries;
}

function byLastActivity(a: StreamBase, b: StreamBase): number {
  if (a.last_activity !== b.last_activity) return a.last_activity < b.last_activity ? 1 : -1;
  const an = a.name.toLowerCase();
  const bn = b.name.toLowerCase();
  return an === bn ? 0 : an < bn ? -1 : 1;
}

export type ListWorkstreamsAnswer = Answer<typeof listWorkstreamsAnswer>;
export type ListWorkstreamsOutput = OneOf<ListWorkstreamsAnswer | Failed<ListWorkstreamsAnswer>>;

export async function listWorkstreams(
  ctx: OperationContext,
  args: ListWorkstreamsInput,
): Promise<ListWorkstreamsOutput> {
  const level = access(ctx, args, 'public');
  const base = {
    since: args.since ?? null,
    agent: args.agent ?? null,
    status: args.status ?? null,
    access_level: level.echoed,
    include_private: args.include_private ?? false,
    limit: args.limit ?? null,
    cursor: args.cursor ?? null,
  };
  const empty = { workstreams: [], next_cursor: null, has_more: false };
  if (level.error) return { error: level.error, ...base, ...empty };
  const status = args.status ?? null;
  if (status !== null && !(WORKSTREAM_STATUSES as readonly string[]).includes(status)) {
    return { error: `unsupported status: ${status} (use active, idle or archived)`, ...base, ...empty };
  }
  let offset = 0;
  let cutoff: string | null = null;
  if (args.cursor !== null && args.cursor !== undefined) {
    const state = decodeCursor(args.cursor);
    if (!state) return { error: `invalid cursor: ${pyRepr(args.cursor)}`, ...base, ...empty };
    offset = state.offset;
    cutoff = state.cutoff;
  }
  if (args.since !== null && args.since !== undefined) {
    const day = sinceDay(args.since, ctx.now());
    if (day) cutoff = day;
    else
      tell(
        ctx,
        ignoredSince(
          args.since,
          cutoff ? `the cursor's window (from ${cutoff}) was used` : 'every workstream was listed',
        ),
      );
  }
  const now = ctx.now();
  const clock: Clock = { today: localDay(now), activeSince: defaultCutoff(now) };
  const agents = agentsInScope(ctx);
  const all: Workstream[] = [];
  for (const { base, facts } of streamSummaries(agents, level.effective, args.agent ?? null)) {
    if (cutoff !== null && base.last_activity < cutoff) break; // sorted newest first
    const streamStatus = statusOf(base, facts, clock);
    if (status !== null && streamStatus !== status) continue;
    all.push({
      name: base.name,
      agents: base.agents,
      session_count: base.session_count,
      note_count: base.note_count,
      first_activity: base.first_activity,
      last_activity: base.last_activity,
      status: streamStatus,
      recent_actions: base.recent_actions,
    });
  }
  const onPeer = peerAgentFilter(args.agent);
  const answers =
    onPeer || !args.agent
      ? await askPeers(
          ctx,
          args,
          'list_workstreams',
          peerAccessArgs(level, { since: cutoff, agent: onPeer ? onPeer.agent : null, status, limit: MAX_PAGE_SIZE }),
        )
      : null;
  if (onPeer && !answers) return { ...base, ...empty };
  const merged = answers
    ? mergeWorkstreams(
        onPeer ? [] : all,
        onPeer ? answers.filter((answer) => answer.peer === onPeer.peer) : answers,
      ).sort(byLastActivity)
    : all;
  const size = pageSize(args.limit);
  const workstreams = merged.slice(offset, offset + size);
  const end = offset + workstreams.length;
  const has_more = end < merged.length;
  return withReachability(
    { ...base, workstreams, next_cursor: has_more ? encodeCursor({ offset: end, cutoff }) : null, has_more },
    answers,
  );
}

const STATUS_RANK: Record<WorkstreamStatus, number> = { archived: 2, active: 1, idle: 0 };

/**
 * Peers' workstreams folded into ours by lower-cased name: agents tagged and unioned, counts
 * added, the activity span widened; archived anywhere wins, then active anywhere.
 */
function mergeWorkstreams(local: readonly Workstream[], answers: readonly PeerAnswer[]): Workstream[] {
  const merged = local.map((stream) => ({
    ...stream,
    agents: [...stream.agents],
    recent_actions: [...stream.recent_actions],
  }));
  const byKey = new Map(merged.map((stream) => [stream.name.toLowerCase(), stream]));
  // Agents gathered in a Set per workstream and sorted once at the end, not once per peer row.
  const agentsOf = new Map<Workstream, Set<string>>(merged.map((stream) => [stream, new Set(stream.agents)]));
  for (const { peer, payload } of answered(answers)) {
    for (const raw of Array.isArray(payload.workstreams) ? (payload.workstreams as unknown[]) : []) {
      const row = raw as Partial<Workstream>;
      if (!row || typeof row.name !== 'string' || typeof row.last_activity !== 'string') continue;
      const status = (WORKSTREAM_STATUSES as readonly string[]).includes(row.status as string)
        ? (row.status as WorkstreamStatus)
        : 'idle';
      const agents = (Array.isArray(row.agents) ? row.agents : [])
        .filter((a): a is string => typeof a === 'string')
        .map((a) => tagAgent(peer, a));
      const actions = (Array.isArray(row.recent_actions) ? row.recent_actions : [])
        .filter((a): a is string => typeof a === 'string')
        .slice(0, RECENT_ACTIONS * 4)
        .map((a) => readText(a));
      const target = byKey.get(row.name.toLowerCase());
      if (!target) {
        const fresh: Workstream = {
          name: row.name,
          agents: [],
          session_count: peerCount(row.session_count),
          note_count: peerCount(row.note_count),
          first_activity: typeof row.first_activity === 'string' ? row.first_activity : row.last_activity,
          last_activity: row.last_activity,
          status,
          recent_actions: actions.slice(0, RECENT_ACTIONS),
        };
        merged.push(fresh);
        byKey.set(row.name.toLowerCase(), fresh);
        agentsOf.set(fresh, new Set(agents));
        continue;
      }
      const seen = agentsOf.get(target)!;
      for (const agent of agents) seen.add(agent);
      target.session_count = addCounts(target.session_count, peerCount(row.session_count));
      target.note_count = addCounts(target.note_count, peerCount(row.note_count));
      if (typeof row.first_activity === 'string' && row.first_activity < target.first_activity)
        target.first_activity = row.first_activity;
      if (row.last_activity > target.last_activity) target.last_activity = row.last_activity;
      if (STATUS_RANK[status] > STATUS_RANK[target.status]) target.status = status;
      for (const action of actions)
        if (target.recent_actions.length < RECENT_ACTIONS && !target.recent_actions.includes(action))
          target.recent_actions.push(action);
    }
  }
  for (const [stream, agents] of agentsOf) stream.agents = [...agents].sort();
  return merged;
}
