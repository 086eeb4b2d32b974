/**
 * Python's `str()`, `repr()` and truthiness of the values Bourdon reads the engine's way: JSON
 * (participants/kit/python-json.ts keeps floats as PyFloat and large integers as bigint), SQLite
 * cells, YAML (front matter; manifests keep floats as PyFloat and integers past 2^53 as PyInt),
 * the registry and commit inputs; and Python 3.11's `date.fromisoformat`, the date grammar the
 * store and the native readers share. One definition for the exporters, the native readers, the
 * store, the commit merge and the registry, so a leaf of the core root: every part may import it.
 */

/**
 * A value of a Python type JavaScript has none for (a float `json.loads` keeps, a YAML
 * timestamp): it gives its own `str()`, `repr()` and truth, so this module needs no part above
 * the root to print or test it.
 */
export abstract class PythonObject {
  /** Python's `str()`. */
  abstract toString(): string;
  /** Python's `repr()`. */
  abstract repr(): string;
  /** Python's `bool()`. */
  abstract truthy(): boolean;
}

/** A JSON number Python reads as a float, with the text `str()` gives it. */
export class PyFloat extends PythonObject {
  constructor(readonly value: number) {
    super();
  }

  /** Python's `repr(float)`: the shortest round-trip digits, `.0` on whole numbers, exponents outside 1e-4 to 1e16. */
  toString(): string {
    const value = this.value;
    if (Number.isNaN(value)) return 'nan';
    if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
    if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
    const scientific = value.toExponential();
    const e = scientific.indexOf('e');
    const mantissa = scientific.slice(0, e);
    const exponent = Number(scientific.slice(e + 1));
    const negative = mantissa.startsWith('-');
    const digits = mantissa.replace('-', '').replace('.', '');
    let text: string;
    if (exponent >= -4 && exponent < 16) {
      if (exponent < 0) text = `0.${'0'.repeat(-exponent - 1)}${digits}`;
      else if (digits.length <= exponent + 1) text = `${digits}${'0'.repeat(exponent + 1 - digits.length)}.0`;
      else text = `${digits.slice(0, exponent + 1)}.${digits.slice(exponent + 1)}`;
    } else {
      const body = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
      text = `${body}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
    }
    return negative ? `-${text}` : text;
  }

  repr(): string {
    return this.toString();
  }

  /** NaN is true, as in Python. */
  truthy(): boolean {
    return this.value !== 0;
  }

  /** In JSON: the number, or its text where JSON has none (`nan`, `inf`, `-inf`). */
  toJSON(): number | string {
    return Number.isFinite(this.value) ? this.value : this.toString();
  }
}

/**
 * An integer too large for a JavaScript number to hold exactly (a YAML `12345678901234567890`):
 * kept whole, printed with every digit. In JSON it is its digits as text, never a number a
 * reader would round.
 */
export class PyInt extends PythonObject {
  constructor(readonly value: bigint) {
    super();
  }

  toString(): string {
    return this.value.toString();
  }

  repr(): string {
    return this.toString();
  }

  truthy(): boolean {
    return this.value !== 0n;
  }

  toJSON(): string {
    return this.toString();
  }
}

/** Whether a value is a number as Python reads one: a JavaScript number, a bigint, a PyFloat or a PyInt. */
export function isPyNumber(value: unknown): value is number | bigint | PyFloat | PyInt {
  return typeof value === 'number' || typeof value === 'bigint' || value instanceof PyFloat || value instanceof PyInt;
}

/**
 * Python's `==` between two numbers (`2 == 2.0`, exact for integers of any size); NaN equals
 * NaN here, as a value read back equals the value written.
 */
export function samePyNumber(a: number | bigint | PyFloat | PyInt, b: number | bigint | PyFloat | PyInt): boolean {
  const exact = (value: typeof a): bigint | number =>
    value instanceof PyInt ? value.value : value instanceof PyFloat ? value.value : value;
  const x = exact(a);
  const y = exact(b);
  if (typeof x === 'bigint' || typeof y === 'bigint') {
    const whole = (value: bigint | number) =>
      typeof value === 'bigint' ? value : Number.isInteger(value) ? BigInt(value) : undefined;
    return whole(x) !== undefined && whole(x) === whole(y);
  }
  return x === y || (Number.isNaN(x) && Number.isNaN(y));
}

/**
 * A plain JavaScript number as Python prints it. SQLite (sql.js) and YAML give integers and
 * floats both as numbers: a whole number below 1e16 prints as the integer it almost always is
 * (a SQLite INTEGER, a YAML `3`; a float `3.0` cannot be told from it); anything else, a
 * fraction, a magnitude past 1e16, NaN or an infinity, can only be a float (exact integers that
 * large arrive as bigint) and prints as Python's float repr.
 */
function pyNumber(value: number): string {
  return Number.isInteger(value) && Math.abs(value) < 1e16 ? value.toFixed(0) : new PyFloat(value).toString();
}

/** Python's `repr()` of a value: strings quoted the way Python picks, everything else as `str()`. */
export function pyRepr(value: unknown): string {
  if (typeof value === 'string') {
    const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
    const escaped = value
      .replaceAll('\\', '\\\\')
      .replaceAll('\n', '\\n')
      .replaceAll('\r', '\\r')
      .replaceAll('\t', '\\t');
    return quote + (quote === "'" ? escaped.replaceAll("'", "\\'") : escaped) + quote;
  }
  if (value instanceof PythonObject) return value.repr();
  return pyStr(value);
}

/**
 * `str(value)`: `None`, `True`, `3`, `1.5`, `[1, 'a']`, `{'k': 'v'}`, a PythonObject's own
 * text; a BLOB (SQLite) or `!!binary` (YAML) as its UTF-8 text, as the engine decodes them.
 */
export function pyStr(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return pyNumber(value);
  if (typeof value === 'bigint' || value instanceof PythonObject) return value.toString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  if (typeof value === 'object') {
    const pairs = Object.entries(value).map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`);
    return `{${pairs.join(', ')}}`;
  }
  return String(value);
}

/**
 * Python truthiness, for the engine's `x or y` chains and flags: None, False, 0, 0.0, '', b'',
 * [] and {} are false; a PythonObject says itself (a timestamp is always true).
 */
export function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return false;
  if (typeof value === 'bigint') return value !== 0n;
  if (value instanceof PythonObject) return value.truthy();
  if (Array.isArray(value) || value instanceof Uint8Array) return value.length > 0;
  // A date or time (TOML's, as smol-toml reads it) is always true, as Python's are.
  if (value instanceof Date) return true;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

// Python 3.11's `date.fromisoformat`, the one ISO date grammar (native/python-dates.ts builds
// `datetime.fromisoformat` on it).

export function formatDay(year: number, month: number, day: number): string {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}
const isLeap = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function calendarDate(year: number, month: number, day: number): string | undefined {
  if (year < 1 || month < 1 || month > 12 || day < 1) return undefined;
  const days = month === 2 && isLeap(year) ? 29 : DAYS_IN_MONTH[month - 1]!;
  return day > days ? undefined : formatDay(year, month, day);
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
  return formatDay(y, result.getUTCMonth() + 1, result.getUTCDate());
}

const CALENDAR_DATE = /^(\d{4})(-?)(\d{2})\2(\d{2})$/;
const WEEK_DATE = /^(\d{4})(-?)W(\d{2})(?:\2(\d))?$/;

/**
 * Python 3.11's `date.fromisoformat`: `YYYY-MM-DD`, the basic `YYYYMMDD`, and week dates
 * (`2026-W49-5`, `2026W495`, `2026-W49`) as the `YYYY-MM-DD` they name; undefined where Python
 * raises (a day that does not exist, any other form). The date part of native/python-dates.ts's
 * `fromisoformat`, and how the store reads a manifest's dates.
 */
export function pyDateFromIsoformat(text: string): string | undefined {
  const calendar = CALENDAR_DATE.exec(text);
  if (calendar) return calendarDate(+calendar[1]!, +calendar[3]!, +calendar[4]!);
  const week = WEEK_DATE.exec(text);
  if (week) return weekDate(+week[1]!, +week[3]!, week[4] === undefined ? 1 : +week[4]);
  return undefined;
}
