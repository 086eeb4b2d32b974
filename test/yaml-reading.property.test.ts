/**
 * One YAML reading: what PyYAML's `safe_load` (the engine's reader) makes of a manifest is what
 * `parseYaml` makes of it, merge keys and anchors included; the documented differences (YAML 1.2
 * core scalars: D7, D10, D13) are the only ones; what we write reads back as written.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_EXPANDED_NODES, parseYaml, stringifyYaml } from '../src/core/store/yaml.js';
import { CONFORMANCE_DIR, REPO_ROOT } from './helpers/fixtures.js';
import { at } from './helpers/items.js';
import { pyYamlLoad, type PyYamlResult } from './helpers/pyyaml.js';
import { PyFloat, PyInt, pyStr } from '../src/core/python-str.js';
import { sameValue } from '../src/core/writes/merge.js';

const tricky = fc.constantFrom(
  'yes',
  'no',
  'on',
  'off',
  'true',
  'False',
  'null',
  '~',
  '',
  ' ',
  '2026-06-01',
  '2026-06-01T10:00:00+02:00',
  '0o17',
  '0x1F',
  '012',
  '1e3',
  '-.5',
  '+.5',
  '0b_',
  '.inf',
  '-.inf',
  '.nan',
  '1_000',
  '+1',
  '-0',
  '3.14',
  "it's",
  'a: b',
  '- x',
  '#not a comment',
  '&anchor',
  '*alias',
  '!tag',
  '@at',
  '`tick`',
  '%percent',
  'line1\nline2',
  'tab\there',
  'naïve café',
  '日本語',
  '🙂 emoji',
  '"quoted"',
  "'single'",
  '[flow]',
  '{map}',
  '? key',
  '|',
  '>',
);
// eslint-disable-next-line no-control-regex -- the characters a generated text must not hold
const UNCARRIED = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]/g;
const text = fc.oneof(
  tricky,
  fc.string(),
  fc
    .string({ unit: 'binary' })
    // Characters YAML cannot carry raw, and those PyYAML refuses or reads as line breaks
    // (U+0085, U+2028, U+2029, U+FEFF), which the writer's escaping test covers.
    .map((s) => s.replace(UNCARRIED, '')),
);
const scalar = fc.oneof(
  text,
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
  fc.boolean(),
  fc.constant(null),
);
const value = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, scalar, tie('list'), tie('map')),
  list: fc.array(tie('node'), { maxLength: 4 }),
  map: fc.dictionary(
    text.filter((key) => key !== '__proto__'),
    tie('node'),
    { maxKeys: 4 },
  ),
})).map;

/** Ours against PyYAML's, where a PyYAML date must be the text of that date (D10, D13). */
function expectSameReading(ours: unknown, theirs: unknown, where: string): void {
  if (theirs !== null && typeof theirs === 'object' && '$date' in theirs) {
    expect(typeof ours, where).toBe('string');
    const iso = (theirs as { $date: string }).$date;
    expect(new Date(ours as string).getTime() || Date.parse(`${ours as string}T00:00:00Z`), where).toBe(
      Date.parse(iso.length === 10 ? `${iso}T00:00:00Z` : iso.includes('+') || iso.endsWith('Z') ? iso : `${iso}Z`),
    );
    return;
  }
  if (theirs !== null && typeof theirs === 'object' && '$inf' in theirs) {
    expect(ours, where).toBeInstanceOf(PyFloat);
    expect((ours as PyFloat).value, where).toBe((theirs as { $inf: boolean }).$inf ? Infinity : -Infinity);
    return;
  }
  if (theirs !== null && typeof theirs === 'object' && '$nan' in theirs) {
    expect(ours, where).toBeInstanceOf(PyFloat);
    expect((ours as PyFloat).value, where).toBeNaN();
    return;
  }
  // A float is a float (`2.0` is not `2`), printed as Python prints it; a long integer keeps every digit.
  if (theirs !== null && typeof theirs === 'object' && '$float' in theirs) {
    expect(ours, where).toBeInstanceOf(PyFloat);
    expect(pyStr(ours), where).toBe((theirs as { $float: string }).$float);
    return;
  }
  if (theirs !== null && typeof theirs === 'object' && '$int' in theirs) {
    expect(ours, where).toBeInstanceOf(PyInt);
    expect(pyStr(ours), where).toBe((theirs as { $int: string }).$int);
    return;
  }
  if (Array.isArray(theirs)) {
    expect(Array.isArray(ours), where).toBe(true);
    expect((ours as unknown[]).length, where).toBe(theirs.length);
    theirs.forEach((item, i) => expectSameReading((ours as unknown[])[i], item, `${where}[${i}]`));
    return;
  }
  if (theirs !== null && typeof theirs === 'object') {
    expect(ours !== null && typeof ours === 'object' && !Array.isArray(ours), where).toBe(true);
    expect(Object.keys(ours as object).sort(), where).toEqual(Object.keys(theirs).sort());
    for (const [key, item] of Object.entries(theirs))
      expectSameReading((ours as Record<string, unknown>)[key], item, `${where}.${key}`);
    return;
  }
  expect(ours, where).toEqual(theirs);
}

function valueOf(result: PyYamlResult, text = ''): unknown {
  if ('error' in result) throw new Error(`PyYAML refused a document we expected it to read: ${result.error}\n${text}`);
  return result.value;
}

// Manifest-shaped documents that share fields through anchors and merge keys, as Python tools write them.
const word = fc.constantFrom('alpha', 'Beta', 'gamma delta', 'x-1', 'naïve', '日本', 'a b c', 'Payroll');
const level = fc.constantFrom('public', 'team', 'private');
const field = fc.oneof(
  fc.record({ key: fc.constant('visibility'), value: level.map((v) => v) }),
  fc.record({ key: fc.constant('type'), value: word }),
  fc.record({ key: fc.constant('summary'), value: word }),
  fc.record({
    key: fc.constant('tags'),
    value: fc.array(word, { maxLength: 3 }).map((tags) => `[${tags.join(', ')}]`),
  }),
);
const fieldSet = fc.uniqueArray(field, { selector: (f) => f.key, maxLength: 4 });
const merge = fc.oneof(
  fc.constant({ kind: 'none' as const }),
  fc.record({ kind: fc.constant('one' as const), anchor: fc.nat(3) }),
  fc.record({ kind: fc.constant('list' as const), anchors: fc.uniqueArray(fc.nat(3), { minLength: 1, maxLength: 4 }) }),
  fc.record({ kind: fc.constant('inline' as const), fields: fieldSet }),
);
const entity = fc.record({ name: word, merge, explicit: fieldSet, mergeFirst: fc.boolean() });
const mergedManifest = fc
  .record({ anchors: fc.array(fieldSet, { minLength: 4, maxLength: 4 }), entities: fc.array(entity, { maxLength: 6 }) })
  .map(({ anchors, entities }) => {
    const lines = anchors.map(
      (fields, i) => `shared${i}: &a${i} {${fields.map((f) => `${f.key}: ${f.value}`).join(', ')}}`,
    );
    lines.push('known_entities:');
    if (entities.length === 0) lines.push('  []');
    for (const e of entities) {
      const mergeLine =
        e.merge.kind === 'one'
          ? `<<: *a${e.merge.anchor}`
          : e.merge.kind === 'list'
            ? `<<: [${e.merge.anchors.map((a) => `*a${a}`).join(', ')}]`
            : e.merge.kind === 'inline'
              ? `<<: {${e.merge.fields.map((f) => `${f.key}: ${f.value}`).join(', ')}}`
              : undefined;
      const own = [`name: ${e.name}`, ...e.explicit.map((f) => `${f.key}: ${f.value}`)];
      const keys = mergeLine === undefined ? own : e.mergeFirst ? [mergeLine, ...own] : [...own, mergeLine];
      lines.push(...keys.map((line, i) => `${i === 0 ? '  - ' : '    '}${line}`));
    }
    return `${lines.join('\n')}\n`;
  });

describe('YAML reading', () => {
  it('reads merge keys and anchors as PyYAML does (explicit keys win, a list merges in order)', () => {
    const documents = fc.sample(mergedManifest, { numRuns: 400, seed: 25 });
    const theirs = pyYamlLoad(documents, { kinds: true });
    documents.forEach((text, i) =>
      expectSameReading(parseYaml(text), valueOf(at(theirs, i)), `document ${i}:\n${text}`),
    );
  });

  it('serves the label a merge key sets: the row is private, and no `<<` key is left', () => {
    const text =
      'hidden: &hid {visibility: private, type: secret}\nknown_entities:\n  - <<: *hid\n    name: Payroll\n    summary: private via merge key\n';
    expect(parseYaml(text)).toEqual({
      hidden: { visibility: 'private', type: 'secret' },
      known_entities: [{ visibility: 'private', type: 'secret', name: 'Payroll', summary: 'private via merge key' }],
    });
    // A block mapping merged without any alias, and an explicit key that overrides a merged one.
    expect(parseYaml('row:\n  <<:\n    visibility: private\n    tags: [a]\n  visibility: team\n')).toEqual({
      row: { visibility: 'team', tags: ['a'] },
    });
  });

  it('reads every YAML fixture as PyYAML does, refusing what it refuses (dates are the text written)', () => {
    const files = [
      ...['library', 'library-edge'].flatMap((lib) =>
        fs
          .readdirSync(path.join(CONFORMANCE_DIR, lib, 'agents'))
          .map((f) => path.join(CONFORMANCE_DIR, lib, 'agents', f)),
      ),
      ...fs
        .readdirSync(path.join(REPO_ROOT, 'test', 'fixtures', 'yaml-written'))
        .map((f) => path.join(REPO_ROOT, 'test', 'fixtures', 'yaml-written', f)),
    ].filter((f) => f.endsWith('.yaml'));
    const texts = files.map((f) => fs.readFileSync(f, 'utf8'));
    const theirs = pyYamlLoad(texts, { kinds: true });
    let refused = 0;
    texts.forEach((text, i) => {
      const result = at(theirs, i);
      const file = at(files, i);
      if ('error' in result) {
        expect(() => parseYaml(text), file).toThrow();
        refused += 1;
      } else expectSameReading(parseYaml(text), result.value, file);
    });
    expect(refused).toBeGreaterThan(0); // the broken fixtures
    expect(refused).toBeLessThan(files.length / 4);
  });

  it('what we write reads back as written, and PyYAML reads it the same', () => {
    const documents = fc.sample(value, { numRuns: 300, seed: 7 });
    const written = documents.map((doc) => stringifyYaml(doc));
    const theirs = pyYamlLoad(written, { kinds: true });
    documents.forEach((doc, i) => {
      const text = at(written, i);
      // Read back as written, a number as the same number (a fraction now a float: Python's ==).
      expect(sameValue(parseYaml(text), doc), text).toBe(true);
      expectSameReading(parseYaml(text), valueOf(at(theirs, i), JSON.stringify(text)), text);
    });
  });

  it('refuses a billion-laughs document before anything walks it', () => {
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x"]',
      ...Array.from({ length: 8 }, (_, i) => {
        const prev = String.fromCharCode(97 + i);
        const next = String.fromCharCode(98 + i);
        return `${next}: &${next} [${Array(9).fill(`*${prev}`).join(',')}]`;
      }),
    ].join('\n');
    expect(() => parseYaml(bomb)).toThrow(`aliases expand to more than ${MAX_EXPANDED_NODES} nodes`);
    expect(parseYaml('base: &b {x: 1}\nother: *b\n')).toEqual({ base: { x: 1 }, other: { x: 1 } });
  });

  it('reads an empty stream as null and refuses duplicate keys, custom tags and several documents', () => {
    expect(parseYaml('')).toBeNull();
    expect(parseYaml('# only a comment\n')).toBeNull();
    expect(() => parseYaml('a: 1\na: 2\n')).toThrow(/duplicated mapping key/);
    expect(() => parseYaml('a: !!python/object {}\n')).toThrow();
    expect(() => parseYaml('a: 1\n---\nb: 2\n')).toThrow(/single document/);
  });
});
