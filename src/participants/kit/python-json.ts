/**
 * JSON as Python's `json.loads` reads it, where JavaScript's JSON.parse loses what `str()` of the
 * value shows: a float that is a whole number (`2.0` is `'2.0'` in Python, `2` in JavaScript), an
 * exponent (`1e16` → `'1e+16'`), an integer past 2^53 (exact in Python), and the `NaN`,
 * `Infinity` and `-Infinity` literals Python accepts. Floats come back as PyFloat, large integers
 * as bigint; core/python-str.ts's `pyStr` and `truthy` understand both. A text without any such
 * number is read by JSON.parse itself after one pass of a regular expression (MAYBE_PYTHON).
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
/**
 * Every text in which pythonTokens finds a token of Python's has one of these somewhere (a
 * fraction, an exponent, 16 digits, `NaN`, `Infinity`): a text without is read by JSON.parse
 * at once, without the scan. Anywhere, strings included: one native pass, no string skipped. The
 * 16 digits are the first digit's third branch: a pattern of three alternatives, not four, runs
 * in half the time on text full of digits (1.8 MB of sessions: 6.5-16 → 4.1-4.4 ms).
 */
const MAYBE_PYTHON = /\d(?:\.\d|[eE][+-]?\d|\d{15})|NaN|Infinity/;
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
  /** The first backslash at or after the scan's position, once it has been looked for. */
  let backslash = -1;
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
      // A string: to its closing quote, an escape skipping the character it escapes. Both found
      // by indexOf (the next backslash kept until passed: the scan stays one pass of the text).
      for (at++; ;) {
        let quote = text.indexOf('"', at);
        if (quote < 0) quote = length;
        if (backslash < at) {
          backslash = text.indexOf('\\', at);
          if (backslash < 0) backslash = length;
        }
        if (backslash >= quote) {
          at = quote + 1;
          break;
        }
        if (text.startsWith('u0000', backslash + 1)) reader = true;
        at = backslash + 2;
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
  // No number JSON.parse reads otherwise, no Python literal anywhere, not even in a string: the
  // scan would find none either (a bare N or I is no JSON token, and JSON.parse refuses it).
  // A refusal goes the long way, so that the error is the one it always was.
  if (!MAYBE_PYTHON.test(text))
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // Read below.
    }
  const tokens = pythonTokens(text);
  if (tokens === null) return JSON.parse(text) as unknown;
  if (tokens === 'reader') return new Reader(text).document();
  return withValues(JSON.parse(tokens.text) as unknown, tokens.values);
}

/**
 * A text read for its shape alone: refused where parsePythonJson refuses it as not JSON, its
 * numbers read as JSON.parse reads them (`2.0` is 2, a large integer inexact). For values no one
 * keeps — the elements past what a reader takes, which must still be JSON and may not nest too
 * deep — without the scan for Python's numbers: JSON.parse alone, unless `NaN` or `Infinity` is
 * anywhere (Python's literals, which JSON.parse refuses). Nesting is the caller's to check.
 */
export function parseJsonShape(text: string): unknown {
  if (text.includes('NaN') || text.includes('Infinity')) return parsePythonJson(text);
  return JSON.parse(text) as unknown;
}

/** Whitespace as JSON (and Python's json) has it. */
const isJsonSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** About how many characters of a list pythonJsonBatches reads at once: one JSON.parse, its objects dead young. */
const BATCH_CHARS = 16 * 1024;

/**
 * `text` read a batch of elements at a time, when it is a list and nothing else (`[a, b, …]`) or,
 * with `key`, an object of that one key holding one (`{"sessions": […]}`, the key written without
 * escapes): a reader of a large list may so use each batch and drop it, instead of holding the
 * whole list (openclaw). null for any other shape, to be read whole. The list is cut between two
 * objects (`}, {`, found by a regular expression) about every BATCH_CHARS characters, each batch
 * read by parsePythonJson as a list of its own: whatever the cuts, the whole text is JSON exactly
 * when every batch is, and its elements are theirs in order. A batch that is not JSON throws
 * SyntaxError (a cut inside a string is one): read the text whole then, which says what is wrong.
 * A batch is as deep as the whole text but for one level: a reader that takes the values must
 * refuse elements nested near MAX_JSON_DEPTH (openclaw reads whole any list with a field nested
 * more than 32 levels). `exact`, asked before each batch, false once the reader keeps no more
 * values: the batches left are read by parseJsonShape (openclaw's 10,000 memories, of which it
 * keeps 100: the scan cost 45 of its 200 ms). `batchChars` is BATCH_CHARS but in tests.
 */
export function pythonJsonBatches(
  text: string,
  key?: string,
  { exact = () => true, batchChars = BATCH_CHARS }: { exact?: () => boolean; batchChars?: number } = {},
): Iterable<unknown[]> | null {
  let from = 0;
  const expect = (word: string) => {
    while (from < text.length && isJsonSpace(text.charCodeAt(from))) from++;
    if (!text.startsWith(word, from)) return false;
    from += word.length;
    return true;
  };
  if (key !== undefined && !(expect('{') && expect(JSON.stringify(key)) && expect(':'))) return null;
  if (!expect('[')) return null;
  let to = text.length;
  const expectEnd = (c: number) => {
    while (to > from && isJsonSpace(text.charCodeAt(to - 1))) to--;
    if (to <= from || text.charCodeAt(to - 1) !== c) return false;
    to--;
    return true;
  };
  if (key !== undefined && !expectEnd(0x7d)) return null;
  if (!expectEnd(0x5d)) return null;
  return batches(text, from, to, batchChars, exact);
}

function* batches(
  text: string,
  from: number,
  to: number,
  batchChars: number,
  exact: () => boolean,
): Generator<unknown[]> {
  const cuts = /\}[ \t\n\r]*,[ \t\n\r]*\{/g;
  for (let start = from; start < to;) {
    cuts.lastIndex = Math.min(start + batchChars, to);
    const cut = cuts.exec(text);
    const end = cut === null || cuts.lastIndex > to ? to : cut.index + 1;
    const batch = `[${text.slice(start, end)}]`;
    yield (exact() ? parsePythonJson(batch) : parseJsonShape(batch)) as unknown[];
    start = end === to ? to : cuts.lastIndex - 1;
  }
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
