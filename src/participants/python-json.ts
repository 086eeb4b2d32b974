/**
 * JSON as Python's `json.loads` reads it, where JavaScript's JSON.parse loses what `str()` of the
 * value shows: a float that is a whole number (`2.0` is `'2.0'` in Python, `2` in JavaScript), an
 * exponent (`1e16` → `'1e+16'`), an integer past 2^53 (exact in Python), and the `NaN`,
 * `Infinity` and `-Infinity` literals Python accepts. Floats come back as PyFloat, large integers
 * as bigint; core/python-str.ts's `pyStr` and `truthy` understand both. A text without any such
 * number is read by JSON.parse itself (the common case costs one scan).
 */
import { PyFloat } from '../core/python-str.js';

export { PyFloat };

/** A number token JSON.parse would read differently from Python, or one of Python's extra literals. */
const PYTHON_ONLY = /"(?:[^"\\]|\\.)*"|(-?(?:\d+\.\d+(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+|\d{16,})|NaN|-?Infinity)/g;

function needsPythonReading(text: string): boolean {
  for (const match of text.matchAll(PYTHON_ONLY)) if (match[1] !== undefined || match[0][0] !== '"') return true;
  return false;
}

/** Parses JSON as Python's `json.loads` does; throws SyntaxError on text it refuses. */
export function parsePythonJson(text: string): unknown {
  if (!needsPythonReading(text)) return JSON.parse(text) as unknown;
  return new Reader(text).document();
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
    if (depth > 1000) this.fail();
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
