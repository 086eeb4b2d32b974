/**
 * The manifest emitter (src/core/store/yaml-emit.ts) writes what the `yaml` package writes with
 * our options, byte for byte, on generated manifests full of hostile strings (quotes, colons,
 * `#`, leading spaces, YAML 1.1 look-alikes, document markers, line separators, controls, long
 * lines, empty strings) and numbers (-0, 1e21, NaN, the PyInt/PyFloat a manifest is read with);
 * and python3's PyYAML reads what it wrote as the data written.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PyFloat, PyInt } from '../src/core/python-str.js';
import { emitManifestYaml, NON_TEXT_TESTS } from '../src/core/store/yaml-emit.js';
import {
  packageNonTextTests,
  parseYaml,
  readsBackPlain,
  stringifyYaml,
  stringifyYamlOwn,
  stringifyYamlPackage,
} from '../src/core/store/yaml.js';
import { provenText, stringifyManifest, stringifyYamlPiecewise } from '../src/core/store/yaml-proof.js';
import { sameValue } from '../src/core/writes/merge.js';
import type { RawObject } from '../src/core/store/manifest.js';
import { pyYamlLoad } from './helpers/pyyaml.js';

const LOOK_ALIKES = [
  'yes',
  'no',
  'on',
  'off',
  'Yes',
  'NO',
  'On',
  'OFF',
  'y',
  'n',
  'Y',
  'true',
  'False',
  'TRUE',
  '~',
  'null',
  'Null',
  'NULL',
  '',
  ' ',
  '1e3',
  '1.0e+3',
  '1E3',
  '0x1F',
  '0o17',
  '017',
  '0b101',
  '1_000',
  '-1',
  '+1',
  '.5',
  '-.5',
  '1.',
  '.inf',
  '-.Inf',
  '.NaN',
  '1:20',
  '190:20:30.15',
  '2026-01-01',
  '2026-01-01T10:00:00Z',
  '2026-1-1 1:00:00',
  '=',
  '<<',
  '-',
  '?',
  '- a',
  '? a',
  'a: b',
  'a:',
  'a #b',
  '#a',
  'a#b',
  '---',
  '...',
  '--- a',
  '%YAML',
  '@x',
  '`x',
  '!x',
  '&x',
  '*x',
  '|',
  '>',
  '[a]',
  '{a}',
  'a, b',
  "it's",
  '"q"',
  `'"both"'`,
  'a\tb',
  'a\nb',
  'a\n',
  '\ra',
  ' lead',
  'trail ',
  'back\\slash',
  '\u2028',
  '\u0085',
  '\u00a0',
  '\ufeff',
  '\u0000',
  '\u001b',
  '\ud800',
  '\u{1f600}',
  'é',
  '0',
  '00',
  '-0',
  '+0',
  '0.0',
  '1,000',
  'x'.repeat(300),
];

/** Documents of `text` strings and `num` numbers, in a manifest's shape and in any shape. */
function documents(text: fc.Arbitrary<string>, num: fc.Arbitrary<unknown>) {
  const leaf = fc.oneof({ weight: 6, arbitrary: text }, { weight: 2, arbitrary: num }, fc.boolean(), fc.constant(null));
  const { tree } = fc.letrec((tie) => ({
    tree: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      { weight: 3, arbitrary: leaf },
      fc.array(tie('tree'), { maxLength: 4 }),
      fc.dictionary(text, tie('tree'), { maxKeys: 4 }),
    ),
  }));
  const manifest = fc.record({
    spec_version: fc.constant('0.1'),
    agent: fc.record({ id: text, role_narrative: text }),
    recent_sessions: fc.array(
      fc.record({ date: text, cwd: text, project_focus: fc.array(text, { maxLength: 3 }), n: num }),
      { maxLength: 4 },
    ),
    extra: fc.dictionary(text, tree, { maxKeys: 4 }),
  });
  return fc.oneof(manifest, tree);
}

const hostile = fc.oneof(
  fc.constantFrom(...LOOK_ALIKES),
  fc
    .array(fc.constantFrom(...LOOK_ALIKES, 'a', ' ', ':', '#', "'", '"', '-', '1'), { maxLength: 5 })
    .map((p) => p.join('')),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ maxLength: 40 }),
);
const numbers = fc.oneof(
  fc.integer(),
  fc.constantFrom(-0, 0, 1e21, 1e16, 2 ** 53, -(2 ** 53), 0.5, 1e-7, NaN, Infinity, -Infinity, 3.14),
  fc.double(),
  fc.double().map((v) => new PyFloat(v)),
  fc.bigInt().map((v) => new PyInt(v)),
);
/** One-line printable strings and look-alikes: what the emitter writes itself. */
// eslint-disable-next-line no-control-regex -- control characters are what it leaves out
const oneLine = /^[^\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff\ud800-\udfff]*$/u;
const printable = fc.oneof(
  fc.constantFrom(...LOOK_ALIKES.filter((text) => oneLine.test(text))),
  fc
    .array(fc.constantFrom(...LOOK_ALIKES.filter((text) => oneLine.test(text)), 'a', ' ', ':', '#', "'", '"', '-'), {
      maxLength: 5,
    })
    .map((p) => p.join('')),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }).filter((text) => oneLine.test(text)),
);
const integers = fc.oneof(
  fc.integer(),
  fc.constantFrom(0, 2 ** 53 - 1),
  fc.double().map((v) => new PyFloat(v)),
  fc.bigInt().map((v) => new PyInt(v)),
);
const anyDocument = documents(hostile, numbers);
const plainDocument = documents(printable, integers);

/** Only the strings, integers, booleans and null of a generated tree (what JSON carries exactly). */
const jsonOnly = (value: unknown): boolean => {
  if (typeof value === 'number') return Number.isSafeInteger(value) && !Object.is(value, -0);
  if (value instanceof PyFloat || value instanceof PyInt) return false;
  if (typeof value === 'object' && value !== null) return Object.values(value).every(jsonOnly);
  return true;
};

describe('the manifest emitter', () => {
  it('quotes exactly the strings the yaml package quotes: its tests, copied', () => {
    expect(NON_TEXT_TESTS.map(String)).toEqual(packageNonTextTests().map(String));
  });

  it('writes what the yaml package writes, byte for byte, or hands the value to it', () => {
    let emitted = 0;
    let total = 0;
    fc.assert(
      fc.property(fc.oneof(anyDocument, plainDocument), (doc) => {
        total += 1;
        const own = stringifyYamlOwn(doc);
        if (own !== undefined) emitted += 1;
        expect(stringifyYaml(doc)).toBe(stringifyYamlPackage(doc));
        if (own !== undefined) expect(own).toBe(stringifyYamlPackage(doc));
      }),
      { numRuns: 4000, seed: 55 },
    );
    // The oracle means something only if the emitter writes a good share itself.
    expect(emitted / total).toBeGreaterThan(0.3);
  }, 120_000);

  it('writes every string of a hostile one-key mapping as the package does', () => {
    for (const text of LOOK_ALIKES) {
      for (const doc of [{ k: text }, { [text || 'e']: 'v' }, [text], { k: [text, { [text || 'e']: text }] }]) {
        const own = stringifyYamlOwn(doc);
        if (own !== undefined) expect(own, JSON.stringify(doc)).toBe(stringifyYamlPackage(doc));
      }
    }
  });

  it('writes what PyYAML reads back as the data written', () => {
    const docs = fc
      .sample(fc.oneof(anyDocument, plainDocument), { numRuns: 1500, seed: 7 })
      .filter((doc) => jsonOnly(doc) && stringifyYamlOwn(doc) !== undefined);
    expect(docs.length).toBeGreaterThan(100);
    const texts = docs.map((doc) => stringifyYamlOwn(doc)!);
    const read = pyYamlLoad(texts);
    const wrong = read.flatMap((answer, i) =>
      JSON.stringify(answer) === JSON.stringify({ value: docs[i] })
        ? []
        : [{ written: docs[i], read: answer, text: texts[i] }],
    );
    expect(wrong.slice(0, 3)).toEqual([]);
  }, 120_000);

  // serialiseManifest skips parsing back a text yaml-emit.ts wrote whole with the manifest
  // reader's check of every token it wrote plain (docs/writes.md): these hold what that relies on.
  it('writes a proven text only where the manifest reader reads it back as the data written', () => {
    let proven = 0;
    fc.assert(
      fc.property(fc.oneof(anyDocument, plainDocument), (doc) => {
        if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return;
        const text = stringifyManifest(doc as RawObject);
        expect(text).toBe(stringifyYamlPackage(doc));
        if (!provenText(doc as RawObject, text)) return;
        proven += 1;
        expect(sameValue(parseYaml(text), doc)).toBe(true);
      }),
      { numRuns: 4000, seed: 56 },
    );
    expect(proven).toBeGreaterThan(500);
  }, 120_000);

  it("keeps every plain token to what the reader reads back, even without the package's quoting tests", () => {
    // The reader's check stands on its own: with no quoting tests, yes/1e3/~/2026-01-01 would be
    // written plain; the check refuses each (undefined: the package writes it, parsed back whole).
    expect(readsBackPlain('plain text', 'plain text')).toBe(true);
    expect(readsBackPlain('yes', 'yes')).toBe(false);
    expect(emitManifestYaml({ k: 'yes' }, [], readsBackPlain)).toBeUndefined();
    let written = 0;
    fc.assert(
      fc.property(fc.oneof(anyDocument, plainDocument), (doc) => {
        const text = emitManifestYaml(doc, [], readsBackPlain);
        if (text === undefined) return;
        written += 1;
        expect(sameValue(parseYaml(text), doc)).toBe(true);
      }),
      { numRuns: 3000, seed: 57 },
    );
    expect(written).toBeGreaterThan(200);
  }, 120_000);

  it('proves a manifest written a row at a time only when its text is the whole text, read back as written', () => {
    const rows = fc.array(
      fc.dictionary(printable, fc.oneof(printable, integers, fc.array(printable, { maxLength: 3 }))),
      {
        maxLength: 6,
      },
    );
    let proven = 0;
    fc.assert(
      fc.property(
        fc.record({ agent: fc.record({ id: hostile }), known_entities: rows, recent_sessions: rows }),
        (doc) => {
          const text = stringifyYamlPiecewise(doc);
          expect(text).toBe(stringifyYamlPackage(doc));
          if (!provenText(doc, text)) return;
          proven += 1;
          expect(text).toBe(emitManifestYaml(doc));
          expect(sameValue(parseYaml(text), doc)).toBe(true);
        },
      ),
      { numRuns: 1500, seed: 58 },
    );
    expect(proven).toBeGreaterThan(300);
  }, 120_000);
});
