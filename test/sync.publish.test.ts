/**
 * What a push publishes, in isolation: rows at or below the level, the L5 fields only, texts
 * redacted, and YAML that reads back as the same data here and in PyYAML, whatever the text.
 */
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseYaml } from '../src/core/store/yaml.js';
import { REDACTED } from '../src/core/trust/redaction.js';
import { publishedDocument, publishedYaml } from '../src/sync/publish.js';

describe('publishedDocument', () => {
  const doc = {
    spec_version: '0.1',
    agent: { id: 'codex', type: 'code-assistant', token: 'x' },
    custom: 'dropped',
    capabilities: ['code', 42, { nested: true }],
    known_entities: [
      { name: 'Orbit', summary: 'ok', visibility: ' Public ', extra: 'dropped' },
      { name: 'Team', visibility: 'team' },
      { name: 'Secret', summary: 'DB_PASSWORD=hunter2' },
      { name: 'Odd', visibility: 'internal' },
      'not a row',
    ],
    recent_sessions: [{ date: '2026-11-30', key_actions: 'one action', visibility: 'private' }],
    notes: [{ date: '2026-11-30', text: 'see https://example.com/x?token=abc', tags: 'release' }],
  };

  it('keeps the rows a level allows, the L5 fields only, every text redacted', () => {
    expect(publishedDocument(doc, 'codex', 'public')).toEqual({
      spec_version: '0.1',
      agent: { id: 'codex', type: 'code-assistant' },
      capabilities: ['code', '42'],
      known_entities: [
        { name: 'Orbit', summary: 'ok', visibility: 'public' },
        { name: 'Secret', summary: REDACTED, visibility: 'public' },
      ],
      recent_sessions: [],
      notes: [{ date: '2026-11-30', text: 'see [link]', tags: ['release'], visibility: 'public' }],
    });
    const team = publishedDocument(doc, 'codex', 'team');
    expect((team.known_entities as { name: string }[]).map((row) => row.name)).toEqual(['Orbit', 'Team', 'Secret']);
  });

  it('is written as YAML that reads back as the same data, here and in PyYAML', () => {
    const texts = fc.string({ unit: 'binary', maxLength: 40 });
    const samples = fc.sample(
      fc.record({
        name: texts,
        summary: texts,
        aliases: fc.array(texts, { maxLength: 3 }),
      }),
      { numRuns: 150, seed: 27 },
    );
    const published = {
      spec_version: '0.1',
      agent: { id: 'codex' },
      known_entities: samples.map((row) => ({ ...row, visibility: 'public' })),
      recent_sessions: [],
      notes: [],
    };
    const text = publishedYaml(published);
    expect(parseYaml(text)).toEqual(published);
    const fromPython = execFileSync(
      'python3',
      ['-c', 'import sys, yaml, json; print(json.dumps(yaml.safe_load(sys.stdin.read())))'],
      { input: text, encoding: 'utf8' },
    );
    expect(JSON.parse(fromPython)).toEqual(published);
  });
});
