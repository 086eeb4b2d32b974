/**
 * Python's reading of the values agents' stores hold (SQLite cells, JSON values): `str(value)`,
 * truthiness for the engine's `x or y` chains, `float(value)`, `round(x, 1)`, string order by
 * code point, and the floats Python's `json.loads` keeps (PyFloat). One module for the
 * exporters and the turn compiler, which read the same rows. Dates are python-dates.ts.
 */
import { pyStrip } from './scrub.js';

/** A JSON number Python reads as a float, with the text `str()` gives it. */
export class PyFloat {
  constructor(readonly value: number) {}

  /** Python's `repr(float)`: the shortest round-trip digits, `.0` on whole numbers, exponents outside 1e-4 to 1e16. */
  toString(): string {
    const value = this.value;
    if (Number.isNaN(value)) return 'nan';
    if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
    if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
    const [mantissa, exponentText] = value.toExponential().split('e');
    const exponent = Number(exponentText);
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

/**
 * `str(value)` for the JSON and SQLite values the engine stringifies (`None`, `True`,
 * `[1, 'a']`, `{'k': 'v'}`); a BLOB as its UTF-8 text.
 */
export function pyStr(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return Number.isInteger(value) ? value.toFixed(0) : String(value);
  // Numbers as participants/python-json.ts reads them: floats and integers past 2^53 keep Python's text.
  if (value instanceof PyFloat || typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  if (typeof value === 'object') {
    const pairs = Object.entries(value as Record<string, unknown>).map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`);
    return `{${pairs.join(', ')}}`;
  }
  return String(value);
}

/** Python truthiness for the `x or y` chains the engine writes: None, False, 0, 0.0, '', [] and {} are false. */
export function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return false;
  if (value instanceof PyFloat) return value.value !== 0;
  if (typeof value === 'bigint') return value !== 0n;
  if (Array.isArray(value)) return value.length > 0;
  if (value instanceof Uint8Array) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

const PY_FLOAT = /^[+-]?(?:(?:\d(?:_?\d)*)(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?$/;

/** `float(value)`, or undefined where Python raises. */
export function pyFloat(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  let text: string;
  if (typeof value === 'string') text = value;
  else if (value instanceof Uint8Array) text = Buffer.from(value).toString('latin1');
  else return undefined;
  text = pyStrip(text);
  if (PY_FLOAT.test(text)) return Number(text.replaceAll('_', ''));
  const lower = text.toLowerCase().replace(/^[+-]/, '');
  if (lower === 'inf' || lower === 'infinity') return text.startsWith('-') ? -Infinity : Infinity;
  if (lower === 'nan') return NaN;
  return undefined;
}

/**
 * Python's `round(x, 1)`: the nearest tenth of the exact value, an exact half to the even tenth.
 * `toFixed` rounds by the exact value too but takes a half up; a half is exact only for odd
 * multiples of 0.25.
 */
export function roundTenth(value: number): number {
  if (Number.isInteger(value * 4) && !Number.isInteger(value * 2)) {
    const scaled = Math.floor(value * 10);
    return (scaled % 2 === 0 ? scaled : scaled + 1) / 10;
  }
  return Number(value.toFixed(1));
}

/** Python's default string ordering (by code point; JavaScript's compares UTF-16 units). */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const left = [...a];
  const right = [...b];
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const difference = left[i].codePointAt(0)! - right[i].codePointAt(0)!;
    if (difference !== 0) return difference;
  }
  return left.length - right.length;
}
