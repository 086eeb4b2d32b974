/**
 * Issue 56, item 1: a merge commit keeps every value it was not asked to change exactly as the
 * engine would write it back. Manifests are generated with the value forms a hand or another
 * tool writes (integers of any size, hex and octal, float forms, NaN and infinities, booleans,
 * strings that look like numbers, explicit tags safe_load reads); one unrelated entity is
 * committed through the real operation; PyYAML (the engine's reader and writer) then reads what
 * we wrote, and compares it with the engine's own write-back of the same file: `safe_load`, the
 * JSON round trip commit_l5 copies the manifest with, the row appended, sessions sorted newest
 * first, `safe_dump` with the engine's options, read back. Every value but `last_updated` must be
 * the same Python value (`repr`: `2.0` is not `2`, `-0.0` is not `0.0`, NaN equals NaN).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createContext } from '../src/core/context.js';
import { LibraryStore } from '../src/core/store/library.js';
import { tempDir } from './helpers/fixtures.js';
import { commitToFederation } from './helpers/write-calls.js';

/** Scalars as a manifest's author writes them: the text goes into the YAML as it is. */
const scalar = fc.constantFrom(
  '12345678901234567890',
  '-98765432109876543210123',
  '9007199254740993',
  '42',
  '-0',
  '0x1F',
  '012',
  '1_000',
  '1.5e-07',
  '1.0e+16',
  '-0.0',
  '2.0',
  '0.1',
  '.5',
  '1e3',
  '6.02e+23',
  '.nan',
  '-.inf',
  '.inf',
  'yes',
  'off',
  'True',
  '~',
  'null',
  "'123'",
  "'1.0'",
  "'-0.0'",
  '"1e+16"',
  'plain text',
  '!!float 3',
  '!!float "3"',
  '!!int "7"',
  '!!str 12',
  '!!bool yes',
  '!!null ""',
);
const flowList = fc.array(scalar, { minLength: 1, maxLength: 4 }).map((items) => `[${items.join(', ')}]`);
const value = fc.oneof(scalar, scalar, flowList);
const fields = fc.uniqueArray(
  fc.record({ key: fc.constantFrom('summary', 'type', 'tags', 'aliases', 'weight', 'x_extra'), value }),
  { selector: (field) => field.key, maxLength: 4 },
);
const sessionFields = fc.uniqueArray(
  fc.record({ key: fc.constantFrom('cwd', 'key_actions', 'project_focus', 'score'), value }),
  { selector: (field) => field.key, maxLength: 3 },
);

const manifest = fc
  .record({
    entities: fc.array(fields, { maxLength: 4 }),
    sessions: fc.array(sessionFields, { maxLength: 3 }),
    top: value,
  })
  .map(({ entities, sessions, top }) => {
    const lines = ["spec_version: '0.1'", 'agent: {id: values, type: other}', `top_level_extra: ${top}`];
    // An empty list written `[]`: the engine's merge crashes on a null one (ours reads it as []).
    lines.push(entities.length ? 'known_entities:' : 'known_entities: []');
    entities.forEach((row, index) => {
      lines.push(`  - name: 'Entity ${index}'`);
      for (const { key, value: text } of row) lines.push(`    ${key}: ${text}`);
    });
    lines.push(sessions.length ? 'recent_sessions:' : 'recent_sessions: []');
    sessions.forEach((row, index) => {
      lines.push(`  - date: '2026-11-${String(10 + index)}'`);
      for (const { key, value: text } of row) lines.push(`    ${key}: ${text}`);
    });
    return `${lines.join('\n')}\n`;
  });

/** The row every commit adds. */
const ADDED = { name: 'Unrelated', type: 'topic' };

/**
 * For each [original, ours]: ours as PyYAML reads it, beside the engine's write-back of the
 * original, each with `last_updated` dropped, as the repr of every value; or the error.
 */
const COMPARE = `
import sys, json, yaml
out = []
for original, ours in json.load(sys.stdin):
    engine = json.loads(json.dumps(yaml.safe_load(original)))
    engine['known_entities'].append(${JSON.stringify(ADDED)})
    engine['recent_sessions'].sort(key=lambda s: str(s.get('date') or ''), reverse=True)
    engine['last_updated'] = 'x'
    engine = yaml.safe_load(yaml.safe_dump(engine, sort_keys=False, default_flow_style=False))
    mine = yaml.safe_load(ours)
    for doc in (engine, mine): doc.pop('last_updated', None)
    out.append([repr(engine), repr(mine)])
json.dump(out, sys.stdout)
`;

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
});

describe('a merge commit keeps what it was not asked to change', () => {
  it('every other value reads back as the engine writes it back (PyYAML the reference)', async () => {
    const texts = fc.sample(manifest, { numRuns: 40, seed: 56 });
    const pairs: [string, string][] = [];
    for (const text of texts) {
      const root = tempDir('values-roundtrip-');
      roots.push(root);
      fs.mkdirSync(path.join(root, 'agents'));
      const file = path.join(root, 'agents', 'values.l5.yaml');
      fs.writeFileSync(file, text);
      const ctx = createContext(new LibraryStore(root, { warn: () => {} }), { warn: () => {}, env: {} });
      const payload = await commitToFederation(ctx, { agent_id: 'values', entities: [ADDED] });
      expect(payload, text).toMatchObject({ entities_added: 1 });
      pairs.push([text, fs.readFileSync(file, 'utf8')]);
    }
    const compared = JSON.parse(
      execFileSync('python3', ['-c', COMPARE], { input: JSON.stringify(pairs) }).toString('utf8'),
    ) as [string, string][];
    compared.forEach(([engine, ours], index) => expect(ours, texts[index]).toBe(engine));
  }, 60_000);

  it('the forms of the issue, one by one', async () => {
    const text = [
      "spec_version: '0.1'",
      'agent: {id: values, type: other}',
      'known_entities:',
      '  - {name: Big, summary: 12345678901234567890, type: 1.5e-07}',
      '  - {name: Odd, summary: .nan, type: -.inf}',
      'recent_sessions:',
      "  - {date: '2026-11-20', cwd: 12345678901234567890, key_actions: [1.0e+16, -0.0, 2.0]}",
      '',
    ].join('\n');
    const root = tempDir('values-roundtrip-');
    roots.push(root);
    fs.mkdirSync(path.join(root, 'agents'));
    const file = path.join(root, 'agents', 'values.l5.yaml');
    fs.writeFileSync(file, text);
    const ctx = createContext(new LibraryStore(root, { warn: () => {} }), { warn: () => {}, env: {} });
    await commitToFederation(ctx, { agent_id: 'values', entities: [ADDED] });
    const written = fs.readFileSync(file, 'utf8');
    expect(written).toContain('summary: 12345678901234567890\n');
    expect(written).toContain('type: 1.5e-07\n');
    expect(written).toContain('summary: .nan\n');
    expect(written).toContain('type: -.inf\n');
    expect(written).toContain('cwd: 12345678901234567890\n');
    expect(written).toMatch(/- 1\.0e\+16\n\s+- -0\.0\n\s+- 2\.0\n/);
  });
});
