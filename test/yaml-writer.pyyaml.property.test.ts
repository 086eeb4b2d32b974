/**
 * What we write, PyYAML (the engine's reader) reads back exactly: manifests of random strings
 * over the whole of Unicode — controls, DEL, C1 controls, NEL, U+2028/U+2029, U+FEFF, lone
 * surrogates, non-characters, astral characters — written by `stringifyYaml` as a commit
 * writes them (UTF-8 bytes), read by `yaml.safe_load` in one python3 process for the batch,
 * and compared with what was written, value for value. Our own reader must agree too.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseYaml, stringifyYaml } from '../src/core/store/yaml.js';
import { pyYamlLoad } from './helpers/pyyaml.js';
import { at } from './helpers/items.js';

/** The characters PyYAML refuses or reads differently when written raw, and their neighbours. */
const HOSTILE = [
  '\u2028',
  '\u2029',
  '\u0085',
  '\u007f',
  '\ufeff',
  '\u0000',
  '\u0001',
  '\u0008',
  '\u000b',
  '\u000c',
  '\r',
  '\t',
  '\n',
  '\u001b',
  '\u0080',
  '\u009f',
  '\u00a0',
  '\ud800',
  '\udfff',
  '\ufffe',
  '\uffff',
  '\ufdd0',
  '\u{1f600}',
  '\u{10ffff}',
  '\u200b',
  '\u202e',
  ' ',
  ':',
  '#',
  "'",
  '"',
  '\\',
];

const hostileText = fc
  .array(fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ unit: 'binary', maxLength: 4 })), { maxLength: 12 })
  .map((parts) => parts.join(''));
const anyText = fc.oneof(hostileText, fc.string({ unit: 'binary', maxLength: 30 }), fc.string({ unit: 'grapheme' }));

/** A manifest-shaped document: every string field, list item and key drawn from anyText. */
const manifest = fc.record({
  spec_version: fc.constant('0.1'),
  agent: fc.record({ id: fc.constant('a'), role_narrative: anyText }),
  known_entities: fc.array(
    fc.record({ name: anyText, summary: anyText, aliases: fc.array(anyText, { maxLength: 3 }) }),
    { maxLength: 3 },
  ),
  recent_sessions: fc.array(
    fc.record({ date: fc.constant('2026-06-01'), key_actions: fc.array(anyText, { maxLength: 3 }) }),
    { maxLength: 2 },
  ),
  extra: fc.dictionary(anyText, anyText, { maxKeys: 3 }),
});

describe('the YAML writer against PyYAML', () => {
  it('PyYAML reads back every string exactly, whatever characters it holds', () => {
    const docs = fc.sample(manifest, { numRuns: 1500, seed: 24 });
    // Every hostile character on its own too, in a value and in a key.
    for (const ch of HOSTILE) docs.push({ ...at(docs, 0), extra: { [`k${ch}`]: `v${ch}`, plain: ch } });
    const texts = docs.map((doc) => stringifyYaml(doc));
    const read = pyYamlLoad(texts);
    let disagreements = 0;
    const firstFew: unknown[] = [];
    read.forEach((answer, i) => {
      // JSON carries lone surrogates as \\udXXX both ways, so the comparison is exact.
      const written = JSON.parse(JSON.stringify(docs[i])) as unknown;
      const text = at(texts, i);
      const same = 'value' in answer && JSON.stringify(answer.value) === JSON.stringify(written);
      if (!same) {
        disagreements++;
        if (firstFew.length < 3) firstFew.push({ written, read: answer, text });
      }
      const ours = parseYaml(text);
      if (JSON.stringify(ours) !== JSON.stringify(written) && firstFew.length < 3)
        firstFew.push({ ours, written, text });
    });
    expect(firstFew).toEqual([]);
    expect(disagreements).toBe(0);
  }, 120_000);
});
