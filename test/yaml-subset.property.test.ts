/**
 * The manifest reader (`yaml-subset.ts`) answers exactly what js-yaml answers, or hands the
 * document over (undefined) and js-yaml decides; and it does read what manifests are written as:
 * our own writer's output, PyYAML's, and hand-written files.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import * as jsYaml from 'js-yaml';
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { readYamlSubset } from '../src/core/store/yaml-subset.js';
import { parseYaml, stringifyYaml } from '../src/core/store/yaml.js';

const REPO = path.resolve(import.meta.dirname, '..');

/**
 * Reads `text` with the subset reader, from a string and from its bytes; when it answers, js-yaml
 * must load the same text without error and to the same value.
 */
function readAndCompare(text: string): 'read' | 'handed over' {
  const value = readYamlSubset(text);
  const bytes = Buffer.from(text, 'utf8');
  // (A lone surrogate has no UTF-8 form: those bytes are another text.)
  if (bytes.toString('utf8') === text) expect(readYamlSubset(bytes)).toStrictEqual(value);
  if (value === undefined) return 'handed over';
  let expected: unknown;
  try {
    expected = jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA, json: false });
  } catch (error) {
    throw new Error(`read a document js-yaml rejects:\n${text}`, { cause: error });
  }
  expect(value).toStrictEqual(expected);
  return 'read';
}

/** Strings that stress quoting, folding and scalar resolution. */
const tricky = fc.constantFrom(
  'yes',
  'no',
  'true',
  'False',
  'TRUE',
  'null',
  'Null',
  '~',
  '',
  ' ',
  '2026-06-01',
  '2026-06-01T10:00:00+02:00',
  '0o17',
  '0x1F',
  '0b101',
  '012',
  '1e3',
  '1E-3',
  '.5',
  '5.',
  '.inf',
  '-.Inf',
  '.NaN',
  '1_000',
  '+1',
  '-0',
  '3.14',
  '12345678901234567890',
  '9'.repeat(400),
  "it's",
  'a: b',
  'a:b',
  'key:',
  '- x',
  '-x',
  '-',
  '--- x',
  '...',
  '#not a comment',
  'a #b',
  'a#b',
  '&anchor',
  '*alias',
  '!tag',
  '@at',
  '`tick`',
  '%percent',
  '"quoted"',
  "'single'",
  '[flow]',
  'x [y], z',
  '{map}',
  '? key',
  '|',
  '>',
  '\\back\\slash',
  'naïve café',
  '日本語',
  '🙂 emoji',
  ' leading',
  'trailing ',
  '  both  ',
  'a  two  spaces',
);
/** Printable text without line breaks, tabs or the characters the reader always hands over. */
const lineText = fc
  .string({ unit: 'binary', maxLength: 40 })
  // eslint-disable-next-line no-control-regex -- strips what the reader leaves to js-yaml
  .map((s) => s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]/g, ''));
const words = fc
  .array(fc.oneof(fc.constantFrom('memory', 'sync', 'a', "it's", 'x: y', '#tag', '-', '"q"'), lineText), {
    minLength: 1,
    maxLength: 30,
  })
  .map((parts) => parts.join(' '));
/** Any string YAML can carry, line breaks and tabs included (the reader may hand those over). */
const anyText = fc
  .string({ unit: 'binary' })
  // eslint-disable-next-line no-control-regex -- strips what YAML cannot carry
  .map((s) => s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ud800-\udfff\ufffe\uffff]/g, ''));

/** Text over several lines, as a summary may be (our writer uses a literal block for it). */
const paragraphs = fc
  .tuple(
    fc.array(
      words.filter((line) => line.trim() !== '' && !line.startsWith(' ')),
      { minLength: 2, maxLength: 4 },
    ),
    fc.constantFrom('\n', '\n\n', ''),
    fc.nat({ max: 2 }),
  )
  .map(([lines, separator, trailing]) => lines.join(separator || '\n') + '\n'.repeat(trailing));
const manifestText = fc.oneof(tricky, lineText, words, paragraphs);
const keyText = fc
  .oneof(fc.constantFrom('name', 'type', 'summary', 'tags', 'visibility', 'date'), tricky, lineText)
  .filter((key) => key !== '__proto__');
const number = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
);

function valueOf(text: fc.Arbitrary<string>) {
  const scalar = fc.oneof(text, number, fc.boolean(), fc.constant(null));
  return fc.letrec((tie) => ({
    node: fc.oneof({ depthSize: 'small' }, scalar, tie('list'), tie('map')),
    list: fc.array(tie('node'), { maxLength: 4 }),
    map: fc.dictionary(keyText, tie('node'), { maxKeys: 4 }),
  })).map;
}
/** Manifest-shaped documents: a mapping of entity-like rows, each of scalars and short lists. */
const manifestDoc = fc.record({
  spec_version: fc.constant('0.1'),
  agent: fc.dictionary(keyText, manifestText, { maxKeys: 4 }),
  known_entities: fc.array(
    fc.dictionary(
      keyText,
      fc.oneof(manifestText, number, fc.boolean(), fc.constant(null), fc.array(manifestText, { maxLength: 3 })),
      { maxKeys: 6 },
    ),
    { maxLength: 4 },
  ),
  extra: valueOf(manifestText),
});

/** Writers and options; the last two put the whole document in flow style, which is not ours. */
const writers: [string, (value: unknown) => string][] = [
  ['stringifyYaml', stringifyYaml],
  ['yaml, folded at 40', (value) => YAML.stringify(value, { lineWidth: 40, minContentWidth: 0 })],
  [
    'yaml, double quotes folded at 30',
    (value) => YAML.stringify(value, { defaultStringType: 'QUOTE_DOUBLE', lineWidth: 30, minContentWidth: 0 }),
  ],
  [
    'yaml, indentless sequences',
    (value) => YAML.stringify(value, { singleQuote: true, indentSeq: false, lineWidth: 30, minContentWidth: 0 }),
  ],
  ['js-yaml', (value) => jsYaml.dump(value)],
  ['js-yaml, flow from level 2, width 30', (value) => jsYaml.dump(value, { flowLevel: 2, lineWidth: 30 })],
  [
    'js-yaml, double quotes everywhere',
    (value) => jsYaml.dump(value, { quoteStyle: 'double', forceQuotes: true, seqNoIndent: true }),
  ],
  ['yaml, flow collections', (value) => YAML.stringify(value, { collectionStyle: 'flow' })],
  ['JSON', (value) => JSON.stringify(value, null, 2)],
];

describe('the manifest YAML reader', () => {
  it('reads what our writer writes for manifest-shaped data, as js-yaml does', () => {
    fc.assert(
      fc.property(manifestDoc, (doc) => {
        const written = stringifyYaml(doc);
        expect(readAndCompare(written)).toBe('read');
        expect(parseYaml(written)).toEqual(doc);
      }),
      { numRuns: Number(process.env.RUNS ?? 300) },
    );
  });

  it('answers as js-yaml does, or hands over, for documents written by other tools and options', () => {
    const read = new Map<string, number>();
    fc.assert(
      fc.property(valueOf(fc.oneof(manifestText, anyText)), (doc) => {
        for (const [name, write] of writers) {
          if (readAndCompare(write(doc)) === 'read') read.set(name, (read.get(name) ?? 0) + 1);
        }
      }),
      { numRuns: Number(process.env.RUNS ?? 300) },
    );
    // The reader must be in use for every block-style writer, not handing everything over.
    for (const [name] of writers.slice(0, -2)) expect(read.get(name) ?? 0, name).toBeGreaterThan(50);
  });

  it('never reads a damaged document differently from js-yaml', () => {
    const base = fc.oneof(
      manifestDoc.map((doc) => stringifyYaml(doc)),
      manifestDoc.map((doc) => YAML.stringify(doc, { lineWidth: 30, minContentWidth: 0, indentSeq: false })),
      manifestDoc.map((doc) => jsYaml.dump(doc, { quoteStyle: 'double', lineWidth: 30, flowLevel: 2 })),
      fc.constantFrom(...fixtureTexts().map(([, text]) => text)),
    );
    const edit = fc.record({
      at: fc.nat(),
      remove: fc.nat({ max: 2 }),
      insert: fc.constantFrom(
        '',
        ':',
        ': ',
        '-',
        '- ',
        '#',
        ' #',
        "'",
        '"',
        ' ',
        '  ',
        '\n',
        '\n  ',
        '\t',
        '\r\n',
        '[',
        ']',
        ',',
        '{',
        '}',
        '\\',
        '&a ',
        '*a',
        '!',
        '|',
        '>',
        '? ',
        '---\n',
        '...\n',
        '\ufeff',
        '\u0085',
        'é',
      ),
    });
    fc.assert(
      fc.property(base, fc.array(edit, { minLength: 1, maxLength: 3 }), (text, edits) => {
        let damaged = text;
        for (const { at, remove, insert } of edits) {
          const position = at % (damaged.length + 1);
          damaged = damaged.slice(0, position) + insert + damaged.slice(position + remove);
        }
        readAndCompare(damaged);
      }),
      { numRuns: Number(process.env.RUNS ?? 1500) },
    );
  });

  it('reads every manifest fixture and demo template as js-yaml does', () => {
    const texts = fixtureTexts();
    expect(texts.length).toBeGreaterThan(20);
    for (const [file, text] of texts) {
      // broken.l5.yaml is the conformance library's invalid manifest: js-yaml's error stands.
      const expected = path.basename(file) === 'broken.l5.yaml' ? 'handed over' : 'read';
      expect(readAndCompare(text), file).toBe(expected);
    }
  });

  it('reads the forms hand-written and PyYAML manifests use', () => {
    const documents = [
      'a: 1\n',
      '\ufeffa: 1\n',
      '---\na: 1\n',
      '--- # a comment\na: 1\n',
      '# comment\n\na: x # trailing\n# end',
      'a:\n- 1\n- two\nb: 3\n',
      'a:\n  - x: 1\n    y: [p, "q", \'r\']\n  -\n  - - nested\n    - list\n',
      'a: ~\nb: null\nc:\nd: {}\ne: []\nf: [ ]\ng: { }\n',
      'n: [0o17, 0x1F, 0b101, 012, +12, -0, 1_000, .inf, -.Inf, .NaN, 1e3, .5, 5., 3.14]\n',
      'b: [true, True, TRUE, false, yes, no, on, off]\n',
      'long: this plain scalar is folded\n  over two lines\n\n  and a paragraph\nnext: 1\n',
      "q: 'single, folded\n  over lines, with ''quotes''\n\n  and a break'\n",
      'd: "escapes \\x41\\u00e9\\U0001F642 \\t\\n\\\\ \\" \\/ \\N\\_\\L\\P\\0\\a\\b\\e\\v\\f\\r\\ "\n',
      'd: "an escaped \\\n  line break, then a fold\n  here"\n',
      "k:\n  plain value on its own line\nl:\n  'quoted one'\n",
      "'quoted key': 1\n\"double key\": 2\n'true': 3\nurl: http://x.org/a#b\n",
      'flow: [a,\n  b, "c\n  d"]\n',
      'l: |-\n  line one\n\n  line two\nm: |+\n  kept\n\n',
      '- |\n  first\n   more indented\n  # not a comment\n- a: | # comment\n    x\n  b: 1\n',
    ];
    for (const text of documents) expect(readAndCompare(text), text).toBe('read');
  });

  it('hands over what it does not read exactly, and parseYaml still answers as js-yaml or yaml', () => {
    const documents: [string, unknown][] = [
      ['a: &x 1\nb: *x\n', { a: 1, b: 1 }],
      ['a: !!str 1\n', { a: '1' }],
      ['a: |2\n   indented\n', { a: ' indented\n' }],
      ['a: >\n  folded\n', { a: 'folded\n' }],
      ['a: 1\r\nb: 2\r\n', { a: 1, b: 2 }],
      ['a:\n\t- x\n', undefined],
      ['? complex\n: key\n', { complex: 'key' }],
      ['1: one\n', { 1: 'one' }],
      ['null: x\n', { null: 'x' }],
      ['%YAML 1.2\n---\na: 1\n', { a: 1 }],
      ['a: 1\n...\n', { a: 1 }],
      ['a: {b: 1}\n', { a: { b: 1 } }],
      ['just a scalar\n', 'just a scalar'],
      ['', undefined],
    ];
    for (const [text, value] of documents) {
      expect(readYamlSubset(text), text).toBeUndefined();
      if (value === undefined) continue;
      expect(parseYaml(text)).toStrictEqual(value);
    }
    // js-yaml's errors stay the user's errors.
    expect(() => parseYaml('a: 1\na: 2\n')).toThrow(/duplicated mapping key/);
    expect(() => parseYaml('a: b: c\n')).toThrow();
    expect(() => parseYaml('a: [1, 2\n')).toThrow();
    const proto = parseYaml('__proto__: x\n') as Record<string, unknown>;
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.hasOwn(proto, '__proto__')).toBe(true);
  });
});

/** Every YAML manifest under test/fixtures and the demo templates, with its path. */
function fixtureTexts(): [string, string][] {
  const found: [string, string][] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.ya?ml(\.in)?$/.test(entry.name)) found.push([full, fs.readFileSync(full, 'utf8')]);
    }
  };
  walk(path.join(REPO, 'test', 'fixtures'));
  walk(path.join(REPO, 'demo', 'templates'));
  return found;
}
