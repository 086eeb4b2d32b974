/**
 * JSON as Python's `json.loads` reads it, where JavaScript's JSON.parse loses what `str()` of the
 * value shows: a float that is a whole number (`2.0` is `'2.0'` in Python, `2` in JavaScript), an
 * exponent (`1e16` → `'1e+16'`), an integer past 2^53 (exact in Python), and the `NaN`,
 * `Infinity` and `-Infinity` literals Python accepts. Floats come back as PyFloat, large integers
 * as bigint; core/python-str.ts's `pyStr` and `truthy` understand both. A text without any such
 * number is read by JSON.parse itself (the common case costs one scan).
 */
import { PyFloat } from '../../core/python-str.js';

export { PyFloat };

/** A JSON number token at a position (sticky): its fraction and exponent captured. */
const NUMBER_TOKEN = /-?(\d+)(\.\d+)?([eE][+-]?\d+)?/y;
/** A JSON number exactly as the grammar has it (sticky), as the Reader reads one. */
const STRICT_NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
/** What may follow a number token in valid JSON: whitespace, `,`, `]`, `}`, or the end. */
const AFTER_VALUE = /[\s,\]}]|$/y;
/** Python's literals JSON has not. */
const PYTHON_LITERALS = new Set(['NaN', 'Infinity', '-Infinity']);
/** Nesting past which the Reader reads the text itself (it refuses past MAX_JSON_DEPTH). */
const DEEP = 900;

/**
 * The text's numbers JSON.parse would read differently from Python (a fraction, an exponent, 16
 * digits or more) and Python's extra literals (`NaN`, `Infinity`, `-Infinity`), each replaced by
 * a string JSON.parse reads as U+0000 and the index of its value in `values`: null when there is
 * none (JSON.parse reads the text as it is, however deep), `reader` when there is and the Reader
 * must read the text, as it read every such text before (nesting near its limit, a token not
 * exactly JSON's, or an escaped U+0000 in a string, which a marker could be mistaken for). A plain scan, one pass, no regular expression over a string: a 9 MB string
 * value overflowed the stack of the alternation that matched strings, and the answer was taken
 * for "not JSON".
 */
function pythonTokens(text: string): { text: string; values: unknown[] } | null | 'reader' {
  const length = text.length;
  const values: unknown[] = [];
  const parts: string[] = [];
  let copied = 0;
  let depth = 0;
  /** A token of Python's seen; the Reader to read the text (then only: see the header). */
  let special = false;
  let reader = false;
  const replace = (start: number, end: number, value: unknown) => {
    parts.push(text.slice(copied, start), `"\\u0000${values.length}"`);
    values.push(value);
    copied = end;
  };
  for (let at = 0; at < length;) {
    const c = text.charCodeAt(at);
    if (c === 0x22) {
      // A string: to its closing quote, an escape skipping the character it escapes.
      for (at++; at < length;) {
        const d = text.charCodeAt(at);
        if (d === 0x5c && text.startsWith('u0000', at + 1)) reader = true;
        at += d === 0x5c ? 2 : 1;
        if (d === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > DEEP) reader = true;
      at++;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
      at++;
    } else if (c === 0x4e || c === 0x49 || (c === 0x2d && text.charCodeAt(at + 1) === 0x49)) {
      special = true;
      const word = LITERALS.find(([name]) => PYTHON_LITERALS.has(name) && text.startsWith(name, at));
      const end = at + (word?.[0].length ?? 1);
      AFTER_VALUE.lastIndex = end;
      if (word && AFTER_VALUE.test(text)) replace(at, end, word[1]);
      else reader = true;
      at = end;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      NUMBER_TOKEN.lastIndex = at;
      const number = NUMBER_TOKEN.exec(text);
      if (!number) at++;
      else if (number[2] === undefined && number[3] === undefined && (number[1] ?? '').length < 16)
        at = NUMBER_TOKEN.lastIndex;
      else {
        special = true;
        STRICT_NUMBER.lastIndex = at;
        const strict = STRICT_NUMBER.exec(text);
        AFTER_VALUE.lastIndex = STRICT_NUMBER.lastIndex;
        if (strict && strict[0] === number[0] && AFTER_VALUE.test(text))
          replace(at, NUMBER_TOKEN.lastIndex, numberValue(strict));
        else reader = true;
        at = NUMBER_TOKEN.lastIndex;
      }
    } else at++;
  }
  if (!special) return null;
  if (reader) return 'reader';
  parts.push(text.slice(copied));
  return { text: parts.join(''), values };
}

/** A number token's value as Python reads it: a float as a PyFloat, an integer exact. */
function numberValue(number: RegExpExecArray): unknown {
  if (number[1] !== undefined || number[2] !== undefined) return new PyFloat(Number(number[0]));
  const integer = Number(number[0]);
  return Number.isSafeInteger(integer) ? integer : BigInt(number[0]);
}

/** `value` (JSON.parse's) with each marker string of pythonTokens replaced by its value, in place. */
function withValues(value: unknown, values: readonly unknown[]): unknown {
  if (typeof value === 'string') return value.charCodeAt(0) === 0 ? values[Number(value.slice(1))] : value;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = withValues(value[i], values);
    return value;
  }
  const entries = value as Record<string, unknown>;
  for (const key of Object.keys(entries)) {
    const item = entries[key];
    if (typeof item !== 'object' && (typeof item !== 'string' || item.charCodeAt(0) !== 0)) continue;
    const read = withValues(item, values);
    // `__proto__` is a key here, as JSON.parse made it: an assignment would set the prototype.
    if (key === '__proto__')
      Object.defineProperty(entries, key, { value: read, enumerable: true, writable: true, configurable: true });
    else entries[key] = read;
  }
  return value;
}

/**
 * Parses JSON as Python's `json.loads` does; throws SyntaxError on text it refuses. JSON.parse
 * reads it, with the numbers and literals it would read otherwise put in afterwards
 * (pythonTokens); the Reader below reads what that cannot.
 */
export function parsePythonJson(text: string): unknown {
  const tokens = pythonTokens(text);
  if (tokens === null) return JSON.parse(text) as unknown;
  if (tokens === 'reader') return new Reader(text).document();
  return withValues(JSON.parse(tokens.text) as unknown, tokens.values);
}

/** parsePythonJson's answer by the Reader alone: what test/python-json.property.test.ts compares it with. */
export function parsePythonJsonByReader(text: string): unknown {
  return new Reader(text).document();
}

/** JSON nested deeper than Python reads (its recursion limit), refused as Python refuses it. */
export const MAX_JSON_DEPTH = 1000;

/** The refusal of JSON nested past MAX_JSON_DEPTH: valid JSON, but not read. */
export class NestedTooDeep extends SyntaxError {
  constructor() {
    super(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
const WHITESPACE = /[ \t\n\r]*/y;
const LITERALS: readonly [string, unknown][] = [
  ['true', true],
  ['false', false],
  ['null', null],
  ['NaN', new PyFloat(NaN)],
  ['Infinity', new PyFloat(Infinity)],
  ['-Infinity', new PyFloat(-Infinity)],
];

/** A recursive-descent reader; strings are handed to JSON.parse, so their escapes are the standard's. */
class Reader {
  private at = 0;

  constructor(private readonly text: string) {}

  document(): unknown {
    const value = this.value(0);
    this.space();
    if (this.at !== this.text.length) this.fail();
    return value;
  }

  private fail(): never {
    throw new SyntaxError(`unexpected character at position ${this.at}`);
  }

  private space(): void {
    WHITESPACE.lastIndex = this.at;
    WHITESPACE.exec(this.text);
    this.at = WHITESPACE.lastIndex;
  }

  private value(depth: number): unknown {
    // Python's json refuses nesting past its recursion limit too; this keeps the stack bounded.
    if (depth > MAX_JSON_DEPTH) throw new NestedTooDeep();
    this.space();
    const c = this.text[this.at];
    if (c === '{') return this.object(depth);
    if (c === '[') return this.array(depth);
    if (c === '"') return this.string();
    for (const [word, value] of LITERALS) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return value;
      }
    }
    NUMBER.lastIndex = this.at;
    const number = NUMBER.exec(this.text);
    if (!number) this.fail();
    this.at = NUMBER.lastIndex;
    if (number[1] !== undefined || number[2] !== undefined) return new PyFloat(Number(number[0]));
    const integer = Number(number[0]);
    return Number.isSafeInteger(integer) ? integer : BigInt(number[0]);
  }

  private string(): string {
    let end = this.at + 1;
    while (end < this.text.length && this.text[end] !== '"') end += this.text[end] === '\\' ? 2 : 1;
    if (end >= this.text.length) this.fail();
    const value = JSON.parse(this.text.slice(this.at, end + 1)) as string;
    this.at = end + 1;
    return value;
  }

  private array(depth: number): unknown[] {
    this.at++;
    const items: unknown[] = [];
    this.space();
    if (this.text[this.at] === ']') {
      this.at++;
      return items;
    }
    for (;;) {
      items.push(this.value(depth + 1));
      this.space();
      const c = this.text[this.at++];
      if (c === ']') return items;
      if (c !== ',') this.fail();
    }
  }

  private object(depth: number): Record<string, unknown> {
    this.at++;
    const entries: Record<string, unknown> = {};
    this.space();
    if (this.text[this.at] === '}') {
      this.at++;
      return entries;
    }
    for (;;) {
      this.space();
      if (this.text[this.at] !== '"') this.fail();
      const key = this.string();
      this.space();
      if (this.text[this.at++] !== ':') this.fail();
      // A repeated key keeps its last value, as in Python; defineProperty so `__proto__` is a key.
      Object.defineProperty(entries, key, {
        value: this.value(depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      this.space();
      const c = this.text[this.at++];
      if (c === '}') return entries;
      if (c !== ',') this.fail();
    }
  }
}
