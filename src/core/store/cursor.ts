/**
 * Paging cursors. Ours are opaque base64url JSON that remember the offset and the cutoff
 * day they were issued for, so a follow-up call without `since` keeps the same window, and,
 * for list_recent_work, the row the page ended on — (date, agent, rank among that agent's rows
 * of that date) — so the next page starts after that row by a binary search (O(page), not
 * O(offset)) and stays where it was when rows are added or removed before it. The Python
 * engine's cursors (base64 of {"offset": N}) are accepted too, for peers; since ours carry the
 * offset as well, an engine reading ours pages on by offset.
 */
import * as z from 'zod';
import { lazy } from '../lazy.js';

/** The last row of a page: its date as written, its agent, its rank in that (date, agent) group. */
export interface RowKey {
  date: string;
  agent: string;
  rank: number;
}

export interface CursorState {
  offset: number;
  cutoff: string | null;
  after?: RowKey | null;
}

export function encodeCursor(state: CursorState): string {
  const body: Record<string, unknown> = { offset: state.offset };
  if (state.cutoff) body.since = state.cutoff;
  if (state.after) body.after = [state.after.date, state.after.agent, state.after.rank];
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
}

/** What a cursor decodes to: an offset, and the cutoff day and last row ours carry. */
const cursorBody = lazy(() =>
  z.object({
    offset: z.number().int().min(0),
    since: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/)
      .optional(),
    after: z.tuple([z.string().max(10_000), z.string().max(10_000), z.number().int().min(1)]).optional(),
  }),
);

/** Decodes a cursor, or returns null when it is not one of ours or the engine's. */
export function decodeCursor(cursor: string): CursorState | null {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(cursor)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8'));
  } catch {
    return null;
  }
  const body = cursorBody().safeParse(parsed);
  if (!body.success) return null;
  const { offset, since, after } = body.data;
  return {
    offset,
    cutoff: since ?? null,
    after: after ? { date: after[0], agent: after[1], rank: after[2] } : null,
  };
}
