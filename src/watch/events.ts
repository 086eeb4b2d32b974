/**
 * What the watch says: one event per thing it did, as `bourdon watch` prints it (one line,
 * `12:04 exported cursor: 3 entities changed`) or, under `--json`, as one JSON object a line.
 */
export type WatchEventKind =
  | 'watching'
  | 'caught up'
  | 'exported'
  | 'staged'
  | 'unchanged'
  | 'nothing'
  | 'failed'
  | 'pushed'
  | 'pulled'
  | 'sync failed'
  | 'sync working'
  | 'warning'
  | 'stopped';

export interface WatchEvent {
  /** ISO 8601. */
  readonly at: string;
  readonly event: WatchEventKind;
  /** The agent it is about, when one. */
  readonly agent?: string;
  /** The line, without the time. */
  readonly message: string;
  /** More detail for `--json` (counts, version, paths). */
  readonly [detail: string]: unknown;
}

/** The event's line: local time (hours and minutes), then the message. */
export function eventLine(event: WatchEvent): string {
  const at = new Date(event.at);
  const time = `${String(at.getHours()).padStart(2, '0')}:${String(at.getMinutes()).padStart(2, '0')}`;
  return `${time} ${event.message}`;
}
