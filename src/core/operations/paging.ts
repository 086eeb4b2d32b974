/**
 * Paging for the listing tools (list_recent_work, list_notes, list_workstreams): page sizes,
 * reading a cursor into a plan, and taking one page — from any ordered sequence by offset, or,
 * for recent work on this server alone, from the library-wide session order by the row the
 * previous page ended on (store/cursor.ts), so the last page of a long walk costs what the
 * first one does.
 */
import { tell, type OperationContext } from '../context.js';
import { decodeCursor, encodeCursor, type RowKey } from '../store/cursor.js';
import { resolveCutoff } from '../store/dates.js';
import { pyRepr } from '../python-str.js';
import type { DatedSession } from '../store/indexes.js';
import { positionAfter, rankInGroup } from '../store/library-indexes.js';

import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './inputs.js';

export function pageSize(limit: number | null | undefined): number {
  if (limit === null || limit === undefined || !Number.isFinite(limit)) return DEFAULT_PAGE_SIZE;
  return Math.min(MAX_PAGE_SIZE, Math.max(1, Math.trunc(limit)));
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
}

/** Where a page starts (an offset; for recent work, the row the last page ended on) and its window. */
export interface PagePlan {
  offset: number;
  after: RowKey | null;
  cutoff: string;
  size: number;
}

/** Reads the cursor and window of a paged call, or the error an unreadable cursor is. */
export function planPage(ctx: OperationContext, request: PageRequest): PagePlan | { error: string } {
  let offset = 0;
  let after: RowKey | null = null;
  let savedCutoff: string | null = null;
  // An empty cursor is no cursor (D11): the first page of the window the other arguments ask for.
  if (request.cursor !== null && request.cursor !== undefined && request.cursor !== '') {
    const state = decodeCursor(request.cursor);
    if (!state) return { error: `invalid cursor: ${pyRepr(request.cursor)}` };
    offset = state.offset;
    after = state.after ?? null;
    savedCutoff = state.cutoff;
  }
  return {
    offset,
    after,
    cutoff: resolveCutoff(request.since, savedCutoff, ctx.now(), (message) => tell(ctx, message)),
    size: pageSize(request.limit),
  };
}

/**
 * Takes one page from an ordered sequence by offset, reading only offset + size + 1 items.
 * Only offset + limit + 1 items are ever taken, so a first page costs a first page.
 */
export function takePage<T>(plan: PagePlan, ordered: Iterable<T>): Page<T> {
  const items: T[] = [];
  let seen = 0;
  let has_more = false;
  for (const item of ordered) {
    if (seen >= plan.offset + plan.size) {
      has_more = true;
      break;
    }
    if (seen >= plan.offset) items.push(item);
    seen += 1;
  }
  const end = plan.offset + items.length;
  return { items, has_more, next_cursor: has_more ? encodeCursor({ offset: end, cutoff: plan.cutoff }) : null };
}

/**
 * One page of sessions in list_recent_work order (rows: every visible dated session, newest
 * first): after the cursor's row when it names one, else at its offset; rows before the cutoff
 * day end the window. Reads the page and one row more, wherever the page is.
 */
export function takeSessionPage(plan: PagePlan, rows: readonly DatedSession[]): Page<DatedSession> {
  const start = plan.after
    ? positionAfter(rows, plan.after.date, plan.after.agent, plan.after.rank)
    : Math.min(plan.offset, rows.length);
  const inWindow = (at: number) => {
    const row = rows[at];
    return row !== undefined && row.session.day! >= plan.cutoff;
  };
  let end = start;
  while (end - start < plan.size && inWindow(end)) end += 1;
  const items = rows.slice(start, end);
  const has_more = items.length === plan.size && inWindow(end);
  if (!has_more) return { items, has_more, next_cursor: null };
  // A full page that has more holds at least one row.
  const last = rows[end - 1]!;
  const after = { date: last.session.date, agent: last.agent, rank: rankInGroup(rows, end - 1) };
  return { items, has_more, next_cursor: encodeCursor({ offset: end, cutoff: plan.cutoff, after }) };
}
