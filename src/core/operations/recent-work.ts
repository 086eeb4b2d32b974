/**
 * list_recent_work (spec §5): the sessions in a calendar window, newest first, one page at a
 * time — this library's, and at hop 0 its peers', merged and deduplicated — with the cursor the
 * next page starts from.
 */
import type { AccessLevel } from '../trust/access.js';
import { agentsInScope, tellUnknownAgent, type OperationContext } from '../context.js';
import type { DatedSession } from '../store/indexes.js';
import { agentSessions, librarySessions } from '../store/library-indexes.js';
import { byRecencyRef, dedupeSessions, peerAgentFilter, peerSessions } from '../federation/federation.js';
import type { Failed, OneOf } from '../payload.js';
import { planPage, takePage, takeSessionPage } from './paging.js';
import { sessionRef } from './queries.js';
import { access, askPeers, peerAccessArgs, withReachability } from './read-common.js';
import type { Answer, listRecentWorkAnswer } from './answers.js';
import { MAX_PAGE_SIZE, type ListRecentWorkInput } from './inputs.js';

export type ListRecentWorkAnswer = Answer<typeof listRecentWorkAnswer>;
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
  if (args.agent && !onPeer) tellUnknownAgent(ctx, args.agent);
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
    // Rows not in day order (a basic-format date among them) are cut to the window first.
    const page = takeSessionPage(plan, inDayOrder(local) ? local : inWindowRows(local, plan.cutoff));
    const sessions = page.items.map(toRef);
    return { ...base, sessions, next_cursor: page.next_cursor, has_more: page.has_more };
  }
  const fromPeers = peerSessions(onPeer ? answers.filter((answer) => answer.peer === onPeer.peer) : answers);
  const inWindow = inWindowRows(local, plan.cutoff).map(toRef);
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

/**
 * Whether every row's day is its date's start, so date order (how the rows are sorted, as the
 * engine sorts them) is day order; a basic-format date (`20261204`) sorts above the dashed dates
 * of its year. Asked once per list.
 */
const dayOrdered = new WeakMap<readonly DatedSession[], boolean>();
function inDayOrder(rows: readonly DatedSession[]): boolean {
  let known = dayOrdered.get(rows);
  if (known === undefined) {
    known = rows.every((row) => row.session.date.startsWith(row.session.day!));
    dayOrdered.set(rows, known);
  }
  return known;
}

/** The rows (newest first) whose day falls on or after the cutoff day. */
function inWindowRows(rows: readonly DatedSession[], cutoff: string): readonly DatedSession[] {
  if (!inDayOrder(rows)) return rows.filter((row) => row.session.day! >= cutoff);
  return rows.slice(0, windowEnd(rows, cutoff));
}

/** How many leading rows fall on or after the cutoff day (rows are newest first, in day order). */
function windowEnd(rows: readonly DatedSession[], cutoff: string): number {
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (rows[mid]!.session.day! >= cutoff) low = mid + 1;
    else high = mid;
  }
  return low;
}
