/**
 * Dates as the engine reads the ones agents wrote: Python's `datetime.fromisoformat` (3.11, after
 * the engine's `Z` → `+00:00`) ported step by step, an ISO timestamp's own calendar date and
 * instant from it, an epoch in seconds or milliseconds as a UTC date, and the instant used to
 * order records of the same day.
 */
import { codePointPrefix, pyStrip } from './scrub.js';
import { calendarDate, formatDay, pyDateFromIsoformat, pyStr } from '../python-str.js';
import { pyFloat } from './python-values.js';

// `datetime.fromisoformat` as CPython 3.11 implements it, step by step: the whole grammar
// (calendar and week dates, compact and extended times, offsets); its date part,
// `date.fromisoformat`, is python-str.ts's, which the store reads manifest dates with. The one ISO reader here: the
// codex rules' dates and sort instants, the turn compiler's dates, cursor's sessions, cascade's
// --since and openclaw's instants all read through it.

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/**
 * CPython's `parse_hh_mm_ss_ff` over `text`: `HH[:?MM[:?SS]]` with the first separator setting
 * the style, then a fraction after `.`/`,` (or, in the compact style, directly). Returns the
 * components (and the fraction in microseconds), or undefined when malformed; `trailing` is true
 * when characters were left over.
 */
function scanClock(text: string): { values: [number, number, number]; micro: number; trailing: boolean } | undefined {
  const values: [number, number, number] = [0, 0, 0];
  let at = 0;
  let separated = true;
  let fraction = false;
  for (let i = 0; i < 3; i++) {
    if (!isDigit(text[at]) || !isDigit(text[at + 1])) return undefined;
    values[i] = Number(text.slice(at, at + 2));
    at += 2;
    const c = text[at];
    at += 1;
    if (i === 0) separated = c === ':';
    if (at >= text.length) return { values, micro: 0, trailing: at === text.length && c !== undefined };
    if (separated && c === ':') continue;
    if (c === '.' || c === ',') {
      fraction = true;
      break;
    }
    if (separated) return undefined;
    at -= 1;
  }
  if (!fraction && at >= text.length) return { values, micro: 0, trailing: false };
  const digits = Math.min(6, text.length - at);
  for (let i = at; i < at + digits; i++) if (!isDigit(text[i])) return undefined;
  const micro = digits ? Number(text.slice(at, at + digits).padEnd(6, '0')) : 0;
  at += digits;
  while (isDigit(text[at])) at++;
  return { values, micro, trailing: at < text.length };
}

/**
 * A time (with an optional `+HH:MM`-style offset) as CPython's `parse_isoformat_time` accepts it:
 * microseconds since midnight and the offset in microseconds (null when naive), or undefined.
 */
function parseTime(text: string): { micros: number; offset: number | null } | undefined {
  const sign = /[+-]/.exec(text);
  const clock = scanClock(sign ? text.slice(0, sign.index) : text);
  if (!clock || (!sign && clock.trailing)) return undefined;
  const [hour, minute, second] = clock.values;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const micros = (hour * 3600 + minute * 60 + second) * 1e6 + clock.micro;
  if (!sign) return { micros, offset: null };
  const offset = scanClock(text.slice(sign.index + 1));
  if (!offset || offset.trailing) return undefined;
  const span = (offset.values[0] * 3600 + offset.values[1] * 60 + offset.values[2]) * 1e6 + offset.micro;
  // A timezone's offset must be under a day.
  if (span >= 86_400e6) return undefined;
  return { micros, offset: sign[0] === '-' ? -span : span };
}

/**
 * Where CPython's `fromisoformat` expects the date/time separator (`_find_isoformat_datetime_separator`):
 * the date's form is told by characters 4 and 5, and week dates by how many digits follow.
 */
function separatorAt(text: string): number {
  if (text.length === 7) return 7;
  if (text[4] === '-') {
    if (text[5] !== 'W') return 10;
    if (text.length < 8) return -1;
    if (text.length > 8 && text[8] === '-') {
      if (text.length === 9) return -1;
      return text.length > 10 && isDigit(text[10]) ? 8 : 10;
    }
    return 8;
  }
  if (text[4] === 'W') {
    let end = 7;
    while (end < text.length && isDigit(text[end])) end++;
    if (end < 9) return end;
    return end % 2 === 0 ? 7 : 8;
  }
  return 8;
}

/** The date part and the time part (undefined when there is none) of an ISO string, as CPython splits it. */
function isoParts(
  value: string,
): { date: string; time: { micros: number; offset: number | null } | undefined } | undefined {
  // Positions count code points; a non-ASCII one can only stand as the date/time separator.
  const text = Array.from(value.replaceAll('Z', '+00:00'), (c) => (c.length > 1 || c > '\x7f' ? '\x80' : c)).join('');
  const separator = separatorAt(text);
  if (separator < 0 || separator > text.length) return undefined;
  const date = pyDateFromIsoformat(text.slice(0, separator));
  if (!date) return undefined;
  if (text.length === separator) return { date, time: undefined };
  const time = parseTime(text.slice(separator + 1));
  return time ? { date, time } : undefined;
}

/** The calendar date written in an ISO string (after the engine's `Z` → `+00:00`), or undefined. */
export function isoCalendarDate(value: string): string | undefined {
  return isoParts(value)?.date;
}

/**
 * The instant an ISO string names, in milliseconds since 1970 (fractional below a millisecond),
 * as `datetime.fromisoformat` (Python 3.11, after `Z` → `+00:00`) reads it, a value without an
 * offset taken as UTC; undefined when Python would refuse it.
 */
export function isoInstant(value: string): number | undefined {
  const parts = isoParts(value);
  if (!parts) return undefined;
  // pyDateFromIsoformat always answers `YYYY-MM-DD`.
  const year = Number(parts.date.slice(0, 4));
  const month = Number(parts.date.slice(5, 7));
  const day = Number(parts.date.slice(8, 10));
  const midnight = new Date(Date.UTC(2000, month - 1, day));
  midnight.setUTCFullYear(year);
  const micros = parts.time ? parts.time.micros - (parts.time.offset ?? 0) : 0;
  return midnight.getTime() + micros / 1000;
}

/** The engine's `_timestamp_to_iso_date`: the date as written, or the first ten characters of a dashed prefix. */
export function isoDateOf(timestamp: string): string | undefined {
  if (!timestamp) return undefined;
  const date = isoCalendarDate(timestamp);
  if (date) return date;
  const head = codePointPrefix(timestamp, 10);
  const chars = Array.from(head);
  if (chars.length >= 10 && chars[4] === '-' && chars[7] === '-') return head;
  return undefined;
}

const MAX_PYTHON_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
/** 0001-01-01T00:00:00Z, the earliest instant Python's datetime holds. */
const MIN_PYTHON_MS = -62_135_596_800_000;

/** The engine's `_epoch_to_iso_date`: seconds, or milliseconds above 1e10, as a UTC date. */
function epochDate(value: unknown): string | undefined {
  let number = pyFloat(value);
  if (number === undefined || Number.isNaN(number) || number <= 0) return undefined;
  if (number > 10_000_000_000) number /= 1000;
  const ms = number * 1000;
  if (!Number.isFinite(ms) || ms > MAX_PYTHON_MS) return undefined;
  const date = new Date(ms);
  return formatDay(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate());
}

/** The first dated value among `keys` (epoch first, then ISO), as the engine dates a thread row. */
export function firstDate(row: Readonly<Record<string, unknown>>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = row[key];
    if (value === null || value === undefined) continue;
    const date = epochDate(value) ?? isoDateOf(pyStr(value));
    if (date) return date;
  }
  return undefined;
}

/** The instant part of the engine's record sort key: an epoch (ms above 1e10), an ISO instant, else 0. */
export function sortInstant(updatedAt: string): number {
  const number = pyFloat(updatedAt);
  if (number !== undefined) return number > 10_000_000_000 ? number / 1000 : number;
  const instant = isoInstant(updatedAt);
  return instant === undefined ? 0 : instant / 1000;
}

/** A calendar date `YYYY-MM-DD` that exists (Python's `date.fromisoformat` on the engine's dates). */
export function isCalendarDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  return match !== null && calendarDate(+match[1]!, +match[2]!, +match[3]!) !== undefined;
}

/**
 * The turn compiler's `_date_from_state_timestamp`: a number is an epoch (milliseconds above
 * 1e10) read as a UTC date; other text an ISO timestamp's own date; '' when neither (or a date
 * Python cannot hold).
 */
export function stateTimestampDate(value: string): string {
  const text = pyStrip(value);
  if (!text) return '';
  let number = pyFloat(text);
  if (number === undefined) return isoCalendarDate(text) ?? '';
  if (number > 10_000_000_000) number /= 1000;
  const ms = number * 1000;
  if (!Number.isFinite(ms) || ms > MAX_PYTHON_MS || ms < MIN_PYTHON_MS) return '';
  const date = new Date(ms);
  return formatDay(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate());
}

/**
 * The turn compiler's `_parse_date`: the day a date text names — its first ten characters when
 * they are dashed like `YYYY-MM-DD`, else an ISO timestamp's own date — or undefined.
 */
export function calendarDayOf(value: string): string | undefined {
  const text = pyStrip(value);
  if (!text) return undefined;
  const chars = Array.from(codePointPrefix(text, 10));
  if (chars.length >= 10 && chars[4] === '-' && chars[7] === '-') {
    const head = chars.join('');
    return isCalendarDate(head) ? head : undefined;
  }
  return isoCalendarDate(text);
}
