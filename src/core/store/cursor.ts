/**
 * Paging cursors. Ours are opaque base64url JSON that remember the offset and the cutoff
 * day they were issued for, so a follow-up call without `since` keeps the same window.
 * The Python engine's cursors (base64 of {"offset": N}) are accepted too, for peers.
 */
import * as z from 'zod';
import { lazy } from '../lazy.js';

interface CursorState {
  offset: number;
  cutoff: string | null;
}

export function encodeCursor(state: CursorState): string {
  const body: Record<string, unknown> = { offset: state.offset };
  if (state.cutoff) body.since = state.cutoff;
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
}

/** What a cursor decodes to: an offset, and the cutoff day ours carry. */
const cursorBody = lazy(() =>
  z.object({
    offset: z.number().int().min(0),
    since: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/)
      .optional(),
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
  return body.success ? { offset: body.data.offset, cutoff: body.data.since ?? null } : null;
}
