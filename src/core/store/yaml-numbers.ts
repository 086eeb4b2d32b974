/**
 * Numbers and explicitly tagged scalars as PyYAML's `safe_load` constructs them, for the
 * manifest reader in yaml.ts (which alone loads a YAML package): integers of any size with every
 * digit (a JavaScript number where it holds the integer exactly, else a PyInt), floats as PyFloat
 * (so `2.0` stays a float, `-0.0` keeps its sign, and each prints as Python's `str()` does), and
 * the text of an explicit `!!int`, `!!float`, `!!bool` or `!!null` read by PyYAML's constructor
 * for that tag (`!!float 3` is 3.0) rather than refused. A text PyYAML's constructor raises on is
 * `undefined`: the document does not load, for the engine either.
 *
 * How they are written back is the writer's (`pyYamlFloat`: PyYAML's `represent_float`), so a
 * commit keeps every value it was not asked to change as the engine would write it.
 */
import { PyFloat, PyInt } from '../python-str.js';

/** PyYAML's implicit int resolver (YAML 1.1): the plain scalars it reads as integers. */
export const PY_INT_IMPLICIT =
  /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;

/**
 * PyYAML's implicit float resolver: a bare point needs a digit after it and no sign (`.5` is a
 * float, `-.5` and `._5` text), an exponent needs its sign (`1e3` is text), `.nan` takes no sign.
 */
export const PY_FLOAT_IMPLICIT =
  /^(?:[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;

/** What PyYAML's `int()` accepts after its prefix: the digits of each base. */
const DIGITS: Record<2 | 8 | 10 | 16, RegExp> = { 2: /^[01]+$/, 8: /^[0-7]+$/, 10: /^[0-9]+$/, 16: /^[0-9a-f]+$/i };

function digitsIn(text: string, base: 2 | 8 | 10 | 16): bigint | undefined {
  if (!DIGITS[base].test(text)) return undefined;
  const prefix = base === 2 ? '0b' : base === 8 ? '0o' : base === 16 ? '0x' : '';
  return BigInt(prefix + text);
}

/** `sign` and `rest` of a scalar as PyYAML splits them (one leading `-` or `+`). */
function signed(text: string): { sign: 1n | -1n; rest: string } {
  const sign = text.startsWith('-') ? -1n : 1n;
  return { sign, rest: /^[-+]/.test(text) ? text.slice(1) : text };
}

/**
 * PyYAML's `construct_yaml_int` on a scalar's text (underscores dropped, `0b`, `0x`, a leading
 * `0` for octal, `a:b:c` in base 60), exactly; undefined where it raises.
 */
export function pyYamlInt(source: string): bigint | undefined {
  const { sign, rest } = signed(source.replaceAll('_', ''));
  if (rest === '') return undefined;
  let value: bigint | undefined;
  if (rest === '0') value = 0n;
  else if (rest.startsWith('0b')) value = digitsIn(rest.slice(2), 2);
  else if (rest.startsWith('0x')) value = digitsIn(rest.slice(2), 16);
  else if (rest.startsWith('0')) value = digitsIn(rest, 8);
  else if (rest.includes(':')) {
    value = 0n;
    for (const part of rest.split(':')) {
      const digit = digitsIn(part, 10);
      if (digit === undefined) return undefined;
      value = value * 60n + digit;
    }
  } else value = digitsIn(rest, 10);
  return value === undefined ? undefined : sign * value;
}

/** An integer as the reader keeps it: a number where that holds it exactly, else a PyInt. */
export function exactInt(value: bigint): number | PyInt {
  const small = Number(value);
  return Number.isSafeInteger(small) ? small : new PyInt(value);
}

/** Python's `float()` of text (underscores already gone, lower case): decimal forms and the words. */
const PY_FLOAT_TEXT = /^(?:\d+\.?\d*(?:e[-+]?\d+)?|\.\d+(?:e[-+]?\d+)?|inf|infinity|nan)$/;

function pythonFloat(text: string): number | undefined {
  const trimmed = text.trim();
  const { rest } = signed(trimmed);
  if (!PY_FLOAT_TEXT.test(rest)) return undefined;
  const negative = trimmed.startsWith('-');
  const magnitude = rest === 'nan' ? NaN : rest.startsWith('inf') ? Infinity : Number(rest);
  return negative ? -magnitude : magnitude;
}

/** PyYAML's `construct_yaml_float` on a scalar's text; undefined where it raises. */
export function pyYamlFloat(source: string): PyFloat | undefined {
  const text = source.replaceAll('_', '').toLowerCase();
  const { sign, rest } = signed(text);
  const factor = sign === -1n ? -1 : 1;
  if (rest === '.inf') return new PyFloat(factor * Infinity);
  if (rest === '.nan') return new PyFloat(NaN);
  if (rest.includes(':')) {
    let value = 0;
    for (const part of rest.split(':')) {
      const digit = pythonFloat(part);
      if (digit === undefined) return undefined;
      value = value * 60 + digit;
    }
    return new PyFloat(factor * value);
  }
  if (rest === '') return undefined;
  const value = pythonFloat(text);
  return value === undefined ? undefined : new PyFloat(value);
}

/** PyYAML's `construct_yaml_bool`: any case of yes/no/true/false/on/off; undefined otherwise. */
export function pyYamlBool(source: string): boolean | undefined {
  const value = source.toLowerCase();
  if (['yes', 'true', 'on'].includes(value)) return true;
  if (['no', 'false', 'off'].includes(value)) return false;
  return undefined;
}

/**
 * A float as PyYAML's `represent_float` writes it: `.nan`, `.inf`, `-.inf`, else Python's repr
 * in lower case with `.0` put before an exponent that has no point (`1.0e+16`), so YAML 1.1
 * reads it back as a float.
 */
export function pyYamlFloatText(value: PyFloat): string {
  const number = value.value;
  if (Number.isNaN(number)) return '.nan';
  if (!Number.isFinite(number)) return number > 0 ? '.inf' : '-.inf';
  const repr = value.toString().toLowerCase();
  return !repr.includes('.') && repr.includes('e') ? repr.replace('e', '.0e') : repr;
}
