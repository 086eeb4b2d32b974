/**
 * `stringifyYamlPiecewise` writes a manifest a key and a row at a time (an export's memory,
 * bench/README.md "Participant exports"): its text must be `stringifyYaml`'s, byte for byte,
 * for any manifest-shaped data — hostile strings, multi-line text (block scalars), keys YAML 1.1
 * would read as booleans, nested lists, numbers, empty lists — and for data that shares an
 * object (the whole-document writer anchors it), and whatever selections of the same rows share
 * one cache of row texts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringifyYaml } from '../src/core/store/yaml.js';
import { stringifyYamlPiecewise } from '../src/core/store/yaml-proof.js';

const TRICKY = ['\u2028', '\u0085', '\ufeff', '\u0000', '\t', '\n', '\n  indented', ' lead', 'yes', 'null', '=', ''];
const text = fc.oneof(
  fc.constantFrom(...TRICKY),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc
    .array(fc.constantFrom('line', '- item', '# not a comment', ' ', 'a: b'), { maxLength: 4 })
    .map((lines) => lines.join('\n')),
);
const value = fc.oneof(text, fc.integer(), fc.double({ noNaN: true }), fc.boolean(), fc.constant(null));
const row = fc.dictionary(
  fc.oneof(fc.constantFrom('date', 'summary', 'key_actions', 'on', 'no'), text),
  fc.oneof(value, fc.array(value, { maxLength: 3 }), fc.array(fc.array(value, { maxLength: 2 }), { maxLength: 2 })),
  { maxKeys: 5 },
);
const manifest = fc.record({
  spec_version: fc.constant('0.1'),
  agent: fc.record({ id: fc.constant('a'), role_narrative: text }),
  capabilities: fc.array(text, { maxLength: 3 }),
  recent_sessions: fc.array(row, { maxLength: 6 }),
  known_entities: fc.array(row, { maxLength: 6 }),
  yes: fc.array(fc.oneof(row, value), { maxLength: 3 }),
});

describe('stringifyYamlPiecewise', () => {
  it('writes what stringifyYaml writes, byte for byte', () => {
    fc.assert(
      fc.property(manifest, (doc) => {
        expect(stringifyYamlPiecewise(doc)).toBe(stringifyYaml(doc));
      }),
      { numRuns: 400, seed: 40 },
    );
  });

  it('writes selections of the same rows through one cache as stringifyYaml writes each', () => {
    fc.assert(
      fc.property(manifest, fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }), (doc, keep) => {
        const rowTexts = new WeakMap<object, string>();
        const selected = { ...doc, recent_sessions: doc.recent_sessions.filter((_, i) => keep[i]) };
        expect(stringifyYamlPiecewise(doc, rowTexts)).toBe(stringifyYaml(doc));
        expect(stringifyYamlPiecewise(selected, rowTexts)).toBe(stringifyYaml(selected));
      }),
      { numRuns: 200, seed: 41 },
    );
  });

  it('writes data sharing an object whole, anchors and aliases as stringifyYaml writes them', () => {
    const tags = ['team', 'ops'];
    const shared = { name: 'x', tags };
    const doc = { recent_sessions: [shared, { name: 'y', tags }], known_entities: [shared] };
    const written = stringifyYamlPiecewise(doc);
    expect(written).toBe(stringifyYaml(doc));
    expect(written).toContain('&a1');
  });

  it('leaves out a key whose value is undefined, as stringifyYaml does', () => {
    const doc = { spec_version: '0.1', gone: undefined, recent_sessions: [{ date: '2026-01-01' }] };
    expect(stringifyYamlPiecewise(doc)).toBe(stringifyYaml(doc));
    expect(stringifyYamlPiecewise({})).toBe(stringifyYaml({}));
  });
});
