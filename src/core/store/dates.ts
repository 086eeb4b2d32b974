/**
 * Calendar filters (spec §6). A `since` value names a calendar day as written: a time or an
 * offset after it never moves the filter to another day. Anything that is not a real day in
 * an accepted form is reported and treated as absent, so a typo widens nothing silently:
 * the caller falls back to the cursor's saved cutoff or the default window.
 */
import { loggedValue, UsageError } from '../errors.js';
import type { Warn } from './warn.js';
import { pyDateFromIsoformat } from '../python-str.js';

const DEFAULT_WINDOW_DAYS = 14;

const SINCE_FORM = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** The calendar day (YYYY-MM-DD) a `since` value names, or null when it is not valid. */
export function parseCalendarDay(input: string): string | null {
  const match = SINCE_FORM.exec(input);
  // A basic or week date (`20261201`, `2026-W49-1`), which the engine's fromisoformat reads too.
  if (!match) return pyDateFromIsoformat(input) ?? null;
  const [, y, mo, d, hh, mm, ss, zone] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hh !== undefined && (Number(hh) > 23 || Number(mm) > 59)) return null;
  if (ss !== undefined && Number(ss) > 59) return null;
  if (zone && zone !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    if (digits.length !== 4 || Number(digits.slice(0, 2)) > 23 || Number(digits.slice(2)) > 59) return null;
  }
  return `${y}-${mo}-${d}`;
}

/** Local calendar day of a moment, as YYYY-MM-DD. */
export function localDay(moment: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${String(moment.getFullYear()).padStart(4, '0')}-${pad(moment.getMonth() + 1)}-${pad(moment.getDate())}`;
}

/** How far ahead of this machine's clock another machine's row may be dated (time zones, skew). */
const FOREIGN_FUTURE_SLACK_MS = 24 * 60 * 60 * 1000;

/**
 * The last calendar day a row from another machine (a peer's answer, a pulled manifest) may
 * carry: tomorrow, by this machine's clock. A row dated later would sort above every real one,
 * forever; it is dropped. Compared as text, as the merges sort, so nothing that sorts after
 * tomorrow (`"9999"`, `"z"`) gets through either.
 */
export function latestForeignDay(now: Date): string {
  return localDay(new Date(now.getTime() + FOREIGN_FUTURE_SLACK_MS));
}

/** The first day of the default window: today (local) minus DEFAULT_WINDOW_DAYS. */
export function defaultCutoff(now: Date): string {
  return localDay(new Date(now.getFullYear(), now.getMonth(), now.getDate() - DEFAULT_WINDOW_DAYS));
}

/** Every form a `since` may take: the engine's (a day, an ISO datetime) and the relative ones. */
export const SINCE_FORMS = 'YYYY-MM-DD, an ISO datetime, today, yesterday, 7d (days ago) or 2w (weeks ago)';

/**
 * The local calendar day a relative `since` names (`today`, `yesterday`, `7d`, `2w`, any
 * case), or null when it is not one. The one grammar of the CLI's `--since` and of the tools'
 * `since` where the engine would have ignored the value.
 */
export function relativeSinceDay(input: string, now: Date): string | null {
  const text = input.trim().toLowerCase();
  const daysAgo = (days: number) => localDay(new Date(now.getFullYear(), now.getMonth(), now.getDate() - days));
  if (text === 'today') return daysAgo(0);
  if (text === 'yesterday') return daysAgo(1);
  const relative = /^(\d{1,4})([dw])$/.exec(text);
  return relative ? daysAgo(Number(relative[1]) * (relative[2] === 'w' ? 7 : 1)) : null;
}

/**
 * A `--since` as people type it: the one grammar of every command that has the flag, reads and
 * exports alike. The engine's forms (a day, an ISO datetime) pass through as written (trimmed),
 * so --json echoes them as the MCP tool would and an export cuts where it always did; the
 * relative forms (`relativeSinceDay`) become the local calendar day they name, by `now`.
 * Anything else is a usage error, with the same words on every command: on the command line a
 * typo must not silently widen the query to the default window.
 */
export function parseSince(input: string, now: Date = new Date()): string {
  const text = input.trim();
  if (parseCalendarDay(text)) return text;
  const day = relativeSinceDay(text, now);
  if (day) return day;
  throw new UsageError(`expected ${SINCE_FORMS}, not ${JSON.stringify(input.slice(0, 60))}`);
}

/** The calendar day a `since` names: the engine's forms as written, else a relative one; or null. */
export function sinceDay(since: string, now: Date): string | null {
  return parseCalendarDay(since) ?? relativeSinceDay(since, now);
}

/** What a caller is told of a `since` that names no day, and what was used instead. */
export function ignoredSince(since: string, used: string): string {
  return `since ${loggedValue(since)} is not a date (expected ${SINCE_FORMS}); ${used}`;
}

/**
 * Resolves the cutoff day for a listing: a valid `since` wins (the engine's forms as written,
 * else a relative one); otherwise the cutoff saved in the cursor; otherwise the default
 * window. A `since` that is neither is told (`tell`: the caller's notice, else stderr), never thrown.
 */
export function resolveCutoff(
  since: string | null | undefined,
  savedCutoff: string | null | undefined,
  now: Date,
  tell: Warn,
): string {
  if (since !== null && since !== undefined) {
    const day = sinceDay(since, now);
    if (day) return day;
    tell(
      ignoredSince(
        since,
        savedCutoff
          ? `the cursor's window (from ${savedCutoff}) was used`
          : `the last ${DEFAULT_WINDOW_DAYS} days were used`,
      ),
    );
  }
  return savedCutoff ?? defaultCutoff(now);
}

/**
 * The calendar day a stored date or datetime names as written ("2026-06-01T10:00:00Z" →
 * "2026-06-01"; an offset never moves it), or null when it names no real day ("2026-13-01",
 * "2026-09-31", "soon").
 */
export function dayOf(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const match = /^(\d{4})-(\d{2})-(\d{2})(?=$|[Tt ])/.exec(value);
  // The other forms Python 3.11's date.fromisoformat reads, as the engine does: `20261204`, `2026-W49-5`.
  if (!match) return pyDateFromIsoformat(value) ?? null;
  const [day, y, m, d] = match;
  const year = Number(y);
  const month = Number(m);
  const date = Number(d);
  if (year < 1 || month < 1 || month > 12 || date < 1 || date > daysInMonth(year, month)) return null;
  return day;
}

/** An instant as UTC to the second (`2026-01-02T03:04:05Z`), as registry rows and staged files record it. */
export function utcSeconds(moment: Date): string {
  return moment.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * "today", "yesterday", "3 days ago", "in 2 days" for a YYYY-MM-DD day (or ISO datetime). A
 * value that names no real day ("2024-13-45", "soon") is shown as written, never rolled over
 * into another month.
 */
export function relativeDay(value: string | null | undefined, now = new Date()): string {
  if (!value) return '-';
  const day = dayOf(value);
  if (day === null) return value;
  const parsed = Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10)));
  const today = Date.UTC(now.getFullYear(), now.getMonth(), now.getDate());
  const days = Math.round((today - parsed) / 86_400_000);
  if (days === 0) return 'today';
  if (days === 1) return 'yesterday';
  if (days === -1) return 'tomorrow';
  if (days < 0) return `in ${-days} days`;
  if (days < 60) return `${days} days ago`;
  if (days < 730) return `${Math.round(days / 30)} months ago`;
  return `${Math.round(days / 365)} years ago`;
}

/**
 * The clock SOURCE_DATE_EPOCH freezes (whole seconds since 1970, the reproducible-builds
 * convention): its instant, or undefined when unset. A malformed value is refused rather than
 * ignored. Exports stamp with it; the server answers as of it (docs/cli.md).
 */
export function sourceDateEpoch(env: Readonly<Record<string, string | undefined>>): Date | undefined {
  const raw = env.SOURCE_DATE_EPOCH;
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d{1,12}$/.test(raw.trim())) {
    throw new UsageError(
      `SOURCE_DATE_EPOCH must be a whole number of seconds since 1970-01-01 (got ${JSON.stringify(raw)})`,
    );
  }
  return new Date(Number(raw.trim()) * 1000);
}

/** The microseconds within its millisecond of each Date `preciseNow` made (a Date holds milliseconds). */
const subMillisecond = new WeakMap<Date, number>();

/**
 * Now, to the microsecond: the Date (milliseconds) and, through `microsecondsOf`, the microseconds
 * within that millisecond, from the high-resolution clock. The engine stamps writes with
 * `datetime.now()`, which has microseconds; a stamp padded from milliseconds (`.025000`) would
 * say a precision it does not have. When the two clocks disagree (the wall clock was stepped
 * since the process started), the wall clock wins and the microseconds are unknown (0).
 */
export function preciseNow(): Date {
  const wall = Date.now();
  const exact = performance.timeOrigin + performance.now();
  if (Math.abs(exact - wall) > 1) return new Date(wall);
  const millis = Math.floor(exact);
  const date = new Date(millis);
  subMillisecond.set(date, Math.min(999, Math.floor((exact - millis) * 1000)));
  return date;
}

/** The microseconds within its millisecond of a Date `preciseNow` made; 0 for any other. */
export function microsecondsOf(date: Date): number {
  return subMillisecond.get(date) ?? 0;
}

/** Now (to the microsecond), or the instant SOURCE_DATE_EPOCH freezes: checked once, when the clock is made. */
export function environmentClock(env: Readonly<Record<string, string | undefined>>): () => Date {
  const frozen = sourceDateEpoch(env);
  return frozen ? () => new Date(frozen.getTime()) : preciseNow;
}
