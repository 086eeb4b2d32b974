/**
 * Python's reading of the values agents' stores hold (SQLite cells, JSON values): `str(value)`,
 * truthiness for the engine's `x or y` chains, and `float(value)`. Shared by the exporters and
 * the turn compiler, which read the same Codex rows.
 */
import { pyStrip } from './scrub.js';

/** `str(value)` for the JSON and SQLite values the engine stringifies. */
export function pyStr(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return String(value);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

/** Python truthiness for the `x or y` chains the engine writes. */
export function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return false;
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
