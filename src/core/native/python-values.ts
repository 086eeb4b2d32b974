/**
 * Python's numbers and order on the values agents' stores hold (SQLite cells, JSON values):
 * `float(value)`, `round(x, 1)`, string order by code point. One module for the exporters and
 * the turn compiler, which read the same rows. `str()`, `repr()`, truthiness and the floats
 * `json.loads` keeps (PyFloat) are the core root's python-str.ts, which the commit merge and the
 * registry share; dates are python-dates.ts.
 */
import { pyStrip } from './scrub.js';

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

/** Python's default string ordering (by code point): python-text.ts. */
export { compareCodePoints } from './python-text.js';
