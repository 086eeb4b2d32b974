/**
 * JSON as Python reads it (src/participants/kit/python-json.ts): JSON.parse reads the text with
 * Python's numbers and literals put in afterwards, which must give exactly what the reader that
 * reads every token itself gives — the same values (floats as PyFloat, large integers as bigint,
 * NaN and Infinity), keys in the same order, `__proto__` as a key, the last of a repeated key —
 * and refuse exactly the texts it refuses, in the same way (too deep, or not JSON).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  NestedTooDeep,
  parsePythonJson,
  parseJsonShape,
  parsePythonJsonByReader,
  pythonJsonBatches,
  PyFloat,
} from '../src/participants/kit/python-json.js';

/** A value as a comparable tree: PyFloat, bigint, key order and own `__proto__` spelled out. */
function shape(value: unknown): unknown {
  if (value instanceof PyFloat) return { float: Object.is(value.value, -0) ? '-0' : String(value.value) };
  if (typeof value === 'bigint') return { bigint: String(value) };
  if (Array.isArray(value)) return value.map(shape);
  if (value !== null && typeof value === 'object') {
    if (Object.getPrototypeOf(value) !== Object.prototype) return { prototype: 'changed' };
    return Object.keys(value).map((key) => [key, shape((value as Record<string, unknown>)[key])]);
  }
  return value;
}

/** A value with its numbers as JSON.parse gives them (PyFloat and bigint as numbers, -0 as 0), as a comparable tree. */
function loose(value: unknown): unknown {
  const number = (n: number) => (Object.is(n, -0) ? 0 : n);
  if (value instanceof PyFloat) return number(value.value);
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number') return number(value);
  if (Array.isArray(value)) return value.map(loose);
  if (value !== null && typeof value === 'object')
    return Object.keys(value).map((key) => [key, loose((value as Record<string, unknown>)[key])]);
  return value;
}

function answer(read: (text: string) => unknown, text: string): unknown {
  try {
    return { value: shape(read(text)) };
  } catch (error) {
    return {
      refused: error instanceof NestedTooDeep ? 'too deep' : error instanceof SyntaxError ? 'syntax' : String(error),
    };
  }
}

const NUMBERS = [
  '0',
  '-0',
  '1',
  '-1',
  '1.0',
  '-0.0',
  '2.5',
  '1e16',
  '1E+2',
  '1e-7',
  '-1.5e300',
  '1e400',
  '123456789012345',
  '1234567890123456',
  '12345678901234567890',
  '-9007199254740993',
  'NaN',
  'Infinity',
  '-Infinity',
  '01',
  '1.',
  '.5',
  '-',
  '1e',
  '0x10',
  '+1',
  '-NaN',
  'Infinit',
  'NaNa',
  '1.0.0',
  '00.5',
];
const KEYS = ['a', 'b', '__proto__', 'constructor', '1', '0', 'a', 'é', '\\u0000x', '\\u00000', 'N', 'I'];
const STRINGS = ['', 'x', 'NaN', '1.5', '\\u0000', '\\u00001', '\\\\u0000', '\\"', 'a\\nb', '\\ud800', '-Infinity'];

const space = fc.constantFrom('', ' ', '\n', '\t ', '\r\n');
const { value } = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...NUMBERS),
    fc.constantFrom('true', 'false', 'null'),
    fc.constantFrom(...STRINGS).map((text) => `"${text}"`),
    fc
      .array(
        fc.tuple(space, tie('value'), space).map((p) => p.join('')),
        { maxLength: 4 },
      )
      .map((items) => `[${items.join(',')}]`),
    fc
      .array(fc.tuple(fc.constantFrom(...KEYS), space, tie('value')), { maxLength: 4 })
      .map((pairs) => `{${pairs.map(([key, s, v]) => `"${key}"${s}:${v}`).join(',')}}`),
  ),
}));
/** A text, sometimes damaged: a character dropped, doubled or swapped for one of JSON's. */
const texts = fc.oneof(
  { weight: 3, arbitrary: value },
  fc
    .tuple(value, fc.nat(), fc.constantFrom('', ',', ']', '}', '[', '{', '"', '1', '.', 'e', ' ', 'N'))
    .map(([text, at, put]) => {
      const i = text.length === 0 ? 0 : at % text.length;
      return text.slice(0, i) + put + text.slice(i + 1);
    }),
);

describe('JSON as Python reads it', () => {
  it('gives what the reader gives, token by token, on any text', () => {
    fc.assert(
      fc.property(texts, (text) => {
        expect(answer(parsePythonJson, text)).toEqual(answer(parsePythonJsonByReader, text));
      }),
      { numRuns: 5000, seed: 55 },
    );
  });

  it('read for its shape alone, refuses what it refuses as not JSON and gives its values with plain numbers', () => {
    let read = 0;
    fc.assert(
      fc.property(texts, (text) => {
        const exact = answer(parsePythonJson, text) as { value?: unknown; refused?: string };
        const plain = answer(parseJsonShape, text) as { value?: unknown; refused?: string };
        // Too deep is the caller's to check (openclaw reads whole a list nested more than 32 levels).
        if (exact.refused === 'too deep') return;
        expect(plain.refused).toBe(exact.refused);
        if (exact.refused !== undefined) return;
        read++;
        expect(loose(parseJsonShape(text))).toEqual(loose(parsePythonJson(text)));
      }),
      { numRuns: 4000, seed: 60 },
    );
    expect(read).toBeGreaterThan(1000);
  });

  it('reads deep text as JSON.parse does, and refuses it as the reader does once a float is in it', () => {
    // Before: JSON.parse read a text without Python's numbers (the openclaw exporter skips a field
    // nested too deep), the reader one with them (refusing nesting past its limit). Still so.
    for (const depth of [899, 900, 901, 999, 1000, 1001, 1002, 2500]) {
      for (const inner of ['', '1', '"x"']) {
        const text = '['.repeat(depth) + inner + ']'.repeat(depth);
        expect(answer(parsePythonJson, text), `${depth} ${inner}`).toEqual({ value: shape(JSON.parse(text)) });
      }
      for (const inner of ['1.5', 'NaN', '"\\u0000", 1.5']) {
        const text = '['.repeat(depth) + inner + ']'.repeat(depth);
        expect(answer(parsePythonJson, text), `${depth} ${inner}`).toEqual(answer(parsePythonJsonByReader, text));
      }
    }
  });

  it('reads a large list of objects with floats as the reader does', () => {
    const items = Array.from(
      { length: 2000 },
      (_, n) => `{"name": "m${n}", "tags": ["a", ${n % 2 ? '1.0' : '2'}], "big": ${n + 1}1234567890123456}`,
    );
    const text = `[${items.join(', ')}]`;
    expect(shape(parsePythonJson(text))).toEqual(shape(parsePythonJsonByReader(text)));
  });

  it('read batch by batch, a list gives the elements of the whole text whatever the cuts, or throws to be read whole', () => {
    // Objects whose strings hold the cut's own `}, {`, elements of every kind, damage anywhere.
    const object = fc
      .array(fc.tuple(fc.constantFrom(...KEYS, 'cut'), space, fc.oneof(value, fc.constant('"a}, {b"'))), {
        maxLength: 3,
      })
      .map((pairs) => `{${pairs.map(([key, s, v]) => `"${key}"${s}:${v}`).join(',')}}`);
    const list = fc
      .array(fc.tuple(space, fc.oneof({ weight: 3, arbitrary: object }, value), space), { maxLength: 8 })
      .map((items) => `[${items.map((p) => p.join('')).join(',')}]`);
    const wrapped = fc.tuple(fc.boolean(), space, list).map(([keyed, s, text]) => ({
      keyed,
      text: keyed ? `${s}{"sessions"${s}:${s}${text}}${s}` : `${s}${text}${s}`,
    }));
    const damaged = fc.oneof(
      { weight: 3, arbitrary: wrapped },
      fc
        .tuple(wrapped, fc.nat(), fc.constantFrom('', ',', ']', '}', '[', '{', '"', '1.5', ' ', '}, {'))
        .map(([{ keyed, text }, at, put]) => {
          const i = text.length === 0 ? 0 : at % text.length;
          return { keyed, text: text.slice(0, i) + put + text.slice(i + 1) };
        }),
    );
    let batched = 0;
    fc.assert(
      fc.property(damaged, fc.integer({ min: 1, max: 40 }), fc.nat(6), ({ keyed, text }, size, exactBatches) => {
        // The first `exactBatches` batches read exactly, the rest for their shape (a reader that
        // took all it keeps): the same elements, the later ones with plain numbers.
        let asked = 0;
        const exact = () => asked++ < exactBatches;
        const batches = pythonJsonBatches(text, keyed ? 'sessions' : undefined, { batchChars: size, exact });
        if (batches === null) return;
        let read: unknown[] = [];
        let exactly = 0;
        try {
          for (const batch of batches) {
            read = [...read, ...batch];
            if (asked <= exactBatches) exactly = read.length;
          }
        } catch (error) {
          expect(error).toBeInstanceOf(SyntaxError);
          return;
        }
        batched++;
        const whole = parsePythonJson(text) as Record<string, unknown>;
        const list = (keyed ? whole.sessions : whole) as unknown[];
        expect(shape(read.slice(0, exactly))).toEqual(shape(list.slice(0, exactly)));
        expect(loose(read)).toEqual(loose(list));
      }),
      { numRuns: 4000, seed: 55 },
    );
    expect(batched).toBeGreaterThan(500);
  });

  it('cuts a large list of objects into batches that together are the whole', () => {
    const items = Array.from(
      { length: 3000 },
      (_, n) => `{"name": "m${n}", "summary": "a } b", "tags": ["a", ${n % 2 ? '1.0' : '2'}]}`,
    );
    for (const text of [`[${items.join(', ')}]`, `{"memories": [\n${items.join(',\n')}\n]}`]) {
      const batches = [...(pythonJsonBatches(text) ?? pythonJsonBatches(text, 'memories') ?? [])];
      expect(batches.length).toBeGreaterThan(3);
      const whole = parsePythonJson(text);
      expect(shape(batches.flat())).toEqual(
        shape(Array.isArray(whole) ? whole : (whole as { memories: unknown }).memories),
      );
    }
    expect(pythonJsonBatches('{"memories": [], "other": 1}', 'memories')).toBeNull();
    expect(pythonJsonBatches('{"memories": [1]}')).toBeNull();
    expect(pythonJsonBatches('"[1]"')).toBeNull();
  });
});
