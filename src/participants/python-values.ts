/**
 * The few Python value semantics the engine reads JSON records with (Cursor's rows, session dates): truthiness,
 * `str()` of a JSON value, code-point ordering, and the calendar date of an ISO string
 * (`datetime.fromisoformat`, Python 3.11 grammar; epoch numbers are ../values.ts). Matching them keeps the
 * port's output equal to the engine's on the odd values real databases hold.
 */

import { PyFloat } from './python-json.js';

/** Python's truthiness of a JSON value: null, false, 0, 0.0, '', [] and {} are false. */
export function pyTruthy(value: unknown): boolean {
  if (value instanceof PyFloat) return value.value !== 0;
  if (Array.isArray(value)) return value.length > 0;
  if (value !== null && typeof value === 'object') return Object.keys(value).length > 0;
  return Boolean(value);
}

function pyRepr(value: unknown): string {
  if (typeof value === 'string') {
    const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
    const escaped = value
      .replaceAll('\\', '\\\\')
      .replaceAll('\n', '\\n')
      .replaceAll('\r', '\\r')
      .replaceAll('\t', '\\t');
    return quote + (quote === "'" ? escaped.replaceAll("'", "\\'") : escaped) + quote;
  }
  return pyStr(value);
}

/** Python's `str()` of a JSON value (`None`, `True`, `[1, 'a']`, `{'k': 'v'}`). */
export function pyStr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isInteger(value) ? value.toFixed(0) : String(value);
  // Numbers as python-json.ts reads them: floats and integers past 2^53 keep Python's text.
  if (value instanceof PyFloat || typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  if (typeof value === 'object') {
    const pairs = Object.entries(value as Record<string, unknown>).map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`);
    return `{${pairs.join(', ')}}`;
  }
  return String(value);
}

/** Python's default string ordering (by code point; JavaScript's compares UTF-16 units). */
export function compareCodePoints(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const difference = left[i].codePointAt(0)! - right[i].codePointAt(0)!;
    if (difference !== 0) return difference;
  }
  return left.length - right.length;
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');
const isLeap = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function calendarDate(year: number, month: number, day: number): string | undefined {
  if (year < 1 || month < 1 || month > 12 || day < 1) return undefined;
  const days = month === 2 && isLeap(year) ? 29 : DAYS_IN_MONTH[month - 1];
  return day > days ? undefined : `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
}

/** The date of ISO week `week`, weekday `day` (1 = Monday), as Python's `fromisoformat` checks it. */
function weekDate(year: number, week: number, day: number): string | undefined {
  if (year < 1 || day < 1 || day > 7 || week < 1 || week > 53) return undefined;
  const jan1 = new Date(Date.UTC(year, 0, 1));
  jan1.setUTCFullYear(year);
  const jan1Weekday = (jan1.getUTCDay() + 6) % 7; // Monday = 0
  if (week === 53 && !(jan1Weekday === 3 || (jan1Weekday === 2 && isLeap(year)))) return undefined;
  // Week 1 is the week holding January 4th.
  const mondayOfWeek1 = 4 - ((jan1Weekday + 3) % 7) - 1;
  const result = new Date(jan1.getTime() + (mondayOfWeek1 + (week - 1) * 7 + (day - 1)) * 86_400_000);
  const y = result.getUTCFullYear();
  if (y < 1 || y > 9999) return undefined;
  return `${pad(y, 4)}-${pad(result.getUTCMonth() + 1, 2)}-${pad(result.getUTCDate(), 2)}`;
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/**
 * CPython's `parse_hh_mm_ss_ff` over `text`: `HH[:?MM[:?SS]]` with the first separator setting
 * the style, then a fraction after `.`/`,` (or, in the compact style, directly). Returns the
 * components (and the fraction in microseconds), or undefined when malformed; `trailing` is true
 * when characters were left over.
 */
function scanClock(text: string): { values: number[]; micro: number; trailing: boolean } | undefined {
  const values = [0, 0, 0];
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

const CALENDAR_DATE = /^(\d{4})(-?)(\d{2})\2(\d{2})$/;
const WEEK_DATE = /^(\d{4})(-?)W(\d{2})(?:\2(\d))?$/;

function parseDatePart(text: string): string | undefined {
  const calendar = CALENDAR_DATE.exec(text);
  if (calendar) return calendarDate(+calendar[1], +calendar[3], +calendar[4]);
  const week = WEEK_DATE.exec(text);
  if (week) return weekDate(+week[1], +week[3], week[4] === undefined ? 1 : +week[4]);
  return undefined;
}

/** The date part and the time part (undefined when there is none) of an ISO string, as CPython splits it. */
function isoParts(
  value: string,
): { date: string; time: { micros: number; offset: number | null } | undefined } | undefined {
  // Positions count code points; a non-ASCII one can only stand as the date/time separator.
  const text = Array.from(value.replaceAll('Z', '+00:00'), (c) => (c.length > 1 || c > '\x7f' ? '\x80' : c)).join('');
  const separator = separatorAt(text);
  if (separator < 0 || separator > text.length) return undefined;
  const date = parseDatePart(text.slice(0, separator));
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
  const [year, month, day] = parts.date.split('-').map(Number);
  const midnight = new Date(Date.UTC(2000, month - 1, day));
  midnight.setUTCFullYear(year);
  const micros = parts.time ? parts.time.micros - (parts.time.offset ?? 0) : 0;
  return midnight.getTime() + micros / 1000;
}
