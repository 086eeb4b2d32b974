/**
 * Python's `str()`, `repr()` and truthiness of the values Bourdon reads the engine's way: JSON
 * (participants/python-json.ts keeps floats as PyFloat and large integers as bigint), SQLite
 * cells, YAML (front matter, manifests, the registry) and commit inputs. One definition for the
 * exporters, the native readers, the commit merge and the registry, so a leaf of the core root:
 * every part may import it.
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
