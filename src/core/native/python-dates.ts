/**
 * Dates as the codex rules read them: an ISO timestamp's own calendar date (Python's
 * `datetime.fromisoformat(...).date()`, after `Z` → `+00:00`), an epoch in seconds or
 * milliseconds as a UTC date, and the instant used to order records of the same day.
 */
import { codePointPrefix, pyStrip } from './scrub.js';
import { pyFloat, pyStr } from './python-values.js';

interface IsoParts {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  /** Milliseconds since the epoch; a timestamp without an offset is read as UTC. */
  readonly instant: number;
}

const DATE_EXTENDED = /^(\d{4})-(\d{2})-(\d{2})/;
const DATE_BASIC = /^(\d{4})(\d{2})(\d{2})/;
const TIME =
  /^(\d{2})(?:(:?)(\d{2})(?:\2(\d{2})(?:[.,](\d+))?)?)?(?:Z|([+-])(\d{2})(?::?(\d{2})(?::?(\d{2})(?:\.\d+)?)?)?)?$/;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** `datetime.fromisoformat` (Python 3.11 forms: extended or basic date, any one-character separator). */
function parseIso(text: string): IsoParts | undefined {
  const extended = DATE_EXTENDED.exec(text);
  const match = extended ?? DATE_BASIC.exec(text);
  if (!match) return undefined;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  const rest = text.slice(match[0].length);
  if (rest === '') return { year, month, day, instant: Date.UTC(year, month - 1, day) };
  // One separator character (a code point), then a time.
  const separator = codePointPrefix(rest, 1);
  const time = TIME.exec(rest.slice(separator.length));
  if (!time) return undefined;
  const hour = Number(time[1]);
  const minute = time[3] === undefined ? 0 : Number(time[3]);
  const second = time[4] === undefined ? 0 : Number(time[4]);
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const fraction = time[5] === undefined ? 0 : Number(`0.${time[5]}`);
  let offsetMinutes = 0;
  if (time[6] !== undefined) {
    const offsetHours = Number(time[7]);
    const offsetMins = time[8] === undefined ? 0 : Number(time[8]);
    if (offsetHours > 23 || offsetMins > 59) return undefined;
    offsetMinutes = (time[6] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const local = Date.UTC(year, month - 1, day, hour, minute, second) + fraction * 1000;
  return { year, month, day, instant: local - offsetMinutes * 60_000 };
}

function formatDay(year: number, month: number, day: number): string {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** The engine's `_timestamp_to_iso_date`: the date as written, or the first ten characters of a dashed prefix. */
export function isoDateOf(timestamp: string): string | undefined {
  if (!timestamp) return undefined;
  const parts = parseIso(timestamp.replaceAll('Z', '+00:00'));
  if (parts) return formatDay(parts.year, parts.month, parts.day);
  const head = codePointPrefix(timestamp, 10);
  const chars = Array.from(head);
  if (chars.length >= 10 && chars[4] === '-' && chars[7] === '-') return head;
  return undefined;
}

const MAX_PYTHON_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
/** 0001-01-01T00:00:00Z, the earliest instant Python's datetime holds. */
const MIN_PYTHON_MS = -62_135_596_800_000;

/** The engine's `_epoch_to_iso_date`: seconds, or milliseconds above 1e10, as a UTC date. */
export function epochDate(value: unknown): string | undefined {
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
  const parts = parseIso(updatedAt.replaceAll('Z', '+00:00'));
  return parts ? parts.instant / 1000 : 0;
}

/** A calendar date `YYYY-MM-DD` that exists (Python's `date.fromisoformat` on the engine's dates). */
export function isCalendarDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return false;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
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
  if (number === undefined) {
    const parts = parseIso(text.replaceAll('Z', '+00:00'));
    return parts ? formatDay(parts.year, parts.month, parts.day) : '';
  }
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
  const parts = parseIso(text.replaceAll('Z', '+00:00'));
  return parts ? formatDay(parts.year, parts.month, parts.day) : undefined;
}
