/**
 * Reading a paged listing (list_recent_work, list_notes, list_workstreams) past its first page:
 * follows `next_cursor` and merges the rows into one answer. The CLI's `--all` and the page's
 * timelines both read through it.
 */
import { failed } from '../payload.js';

/** What a paged listing answers besides its rows. */
export interface PageEnvelope {
  has_more?: boolean;
  next_cursor?: string | null;
  error?: string;
}

export interface FollowOptions {
  /** Start from this cursor (a previous page's next_cursor) instead of the first page. */
  cursor?: string;
  /** Stop after the page that brings the rows to this many (bounded work); default: no bound. */
  maxRows?: number;
}

/**
 * The pages from `cursor` on merged into one payload: the rows of `field` concatenated, the other
 * fields from the last page read. Read to the end, it says `has_more: false` and no cursor; cut
 * short by `maxRows`, it keeps the last page's `has_more` and `next_cursor`, so the caller can
 * say there is more and where it goes on. The first page that errs is the answer.
 */
export async function followPages<O extends PageEnvelope>(
  field: string,
  fetch: (cursor: string | undefined) => Promise<O>,
  options: FollowOptions = {},
): Promise<O> {
  const max = options.maxRows ?? Number.POSITIVE_INFINITY;
  let payload = await fetch(options.cursor);
  if (failed(payload)) return payload;
  const rowsOf = (page: O): unknown[] => {
    const rows: unknown = Reflect.get(page, field);
    return Array.isArray(rows) ? rows : [];
  };
  const rows = [...rowsOf(payload)];
  while (payload.has_more && typeof payload.next_cursor === 'string' && rows.length < max) {
    payload = await fetch(payload.next_cursor);
    if (failed(payload)) return payload;
    rows.push(...rowsOf(payload));
  }
  const more = Boolean(payload.has_more) && typeof payload.next_cursor === 'string';
  return Object.assign({}, payload, {
    cursor: null,
    [field]: rows,
    next_cursor: more ? payload.next_cursor : null,
    has_more: more,
  });
}
