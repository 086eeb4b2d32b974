/**
 * Paging cursors. Ours are opaque base64url JSON that remember the offset and the cutoff
 * day they were issued for, so a follow-up call without `since` keeps the same window.
 * The Python engine's cursors (base64 of {"offset": N}) are accepted too, for peers.
 */
interface CursorState {
  offset: number;
  cutoff: string | null;
}

export function encodeCursor(state: CursorState): string {
  const body: Record<string, unknown> = { offset: state.offset };
  if (state.cutoff) body.since = state.cutoff;
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
}

/** Decodes a cursor, or returns null when it is not one of ours or the engine's. */
export function decodeCursor(cursor: string): CursorState | null {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(cursor)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8'));
  } catch {
    return null;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  const { offset, since } = parsed as Record<string, unknown>;
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) return null;
  if (since !== undefined && (typeof since !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(since))) return null;
  return { offset, cutoff: typeof since === 'string' ? since : null };
}
