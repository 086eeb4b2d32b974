/**
 * The fast parser (js-yaml) and the careful one (yaml) must read every core-schema document the
 * same way, and what we write must read back as written, by either parser.
 */
import fc from 'fast-check';
import * as jsYaml from 'js-yaml';
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseYaml, parseYamlCareful, parseYamlFast, stringifyYaml } from '../src/core/store/yaml.js';

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
const text = fc.oneof(
  tricky,
  fc.string(),
  fc
    .string({ unit: 'binary' })
    // eslint-disable-next-line no-control-regex -- strips what YAML cannot carry
    .map((s) => s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ud800-\udfff\ufffe\uffff]/g, '')),
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

describe('YAML read paths agree', () => {
  it('what we write reads back as written, through both parsers', () => {
    fc.assert(
      fc.property(value, (doc) => {
        const written = stringifyYaml(doc);
        expect(parseYamlFast(written)).toEqual(doc);
        expect(parseYamlCareful(written)).toEqual(doc);
      }),
      { numRuns: 300 },
    );
  });

  it('documents written by other tools read the same through both parsers', () => {
    fc.assert(
      fc.property(value, (doc) => {
        for (const written of [YAML.stringify(doc), jsYaml.dump(doc), JSON.stringify(doc)]) {
          expect(parseYamlFast(written)).toEqual(parseYamlCareful(written));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('aliases go through the careful parser, which refuses a billion-laughs document', () => {
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x"]',
      ...Array.from({ length: 8 }, (_, i) => {
        const prev = String.fromCharCode(97 + i);
        const next = String.fromCharCode(98 + i);
        return `${next}: &${next} [*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev}]`;
      }),
    ].join('\n');
    expect(() => parseYaml(bomb)).toThrow();
    expect(parseYaml('base: &b {x: 1}\nother: *b\n')).toEqual({ base: { x: 1 }, other: { x: 1 } });
  });

  it('rejects duplicate keys and custom tags on both paths', () => {
    expect(() => parseYamlFast('a: 1\na: 2\n')).toThrow();
    expect(() => parseYamlCareful('a: 1\na: 2\n')).toThrow();
    expect(() => parseYamlFast('a: !!python/object {}\n')).toThrow();
  });
});
