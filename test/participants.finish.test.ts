/**
 * What every export goes through before it is written (finish.ts): the federation filter, the
 * access filter at the export's level, redaction, empty values left out and the row lists
 * re-added as [] — the conformance README's "Absent vs empty" and "federation filter".
 */
import { describe, expect, it } from 'vitest';
import { finishManifest } from '../src/participants/finish.js';

const manifest = () => ({
  spec_version: '0.1',
  agent: { id: 'x', type: 'other' },
  capabilities: [],
  known_entities: [
    { name: 'Open', summary: 'public row' },
    { name: 'Crew', visibility: 'team', tags: [] },
    { name: 'Mine', visibility: 'private' },
    { name: 'Tagged', tags: ['health'] },
    { name: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789' },
    { name: 'Leaky', summary: 'DB_PASSWORD=hunter2', aliases: ['fine', 'api_key here'] },
  ],
  visibility_policy: { default: 'public', private_tags: ['health'], team_tags: [] },
});

describe('finishing a manifest', () => {
  it('at team: private and privately tagged rows dropped, credentials redacted, empties left out', () => {
    const { manifest: out, counts } = finishManifest(manifest(), 'team');
    expect(out).toEqual({
      spec_version: '0.1',
      agent: { id: 'x', type: 'other' },
      known_entities: [
        { name: 'Open', summary: 'public row' },
        { name: 'Crew', visibility: 'team' },
        // The value goes; prose that only names a credential ('api_key here') stays.
        { name: 'Leaky', summary: 'DB_PASSWORD=[redacted]', aliases: ['fine', 'api_key here'] },
      ],
      visibility_policy: { default: 'public', private_tags: ['health'] },
      recent_sessions: [],
    });
    expect(counts).toEqual({ entities: 3, sessions: 0, filtered: 2, redacted: 2 });
  });

  it('at public: team rows go too; at private, private rows still never leave (federation filter)', () => {
    expect(finishManifest(manifest(), 'public').manifest.known_entities).toHaveLength(2);
    const names = (finishManifest(manifest(), 'private').manifest.known_entities as { name: string }[]).map(
      (e) => e.name,
    );
    expect(names).toEqual(['Open', 'Crew', 'Leaky']);
  });

  it('re-adds both row lists as [] after the policy when a participant left them out', () => {
    const { manifest: out } = finishManifest({ spec_version: '0.1', visibility_policy: { default: 'team' } }, 'team');
    expect(Object.keys(out)).toEqual(['spec_version', 'visibility_policy', 'known_entities', 'recent_sessions']);
    expect(out.known_entities).toEqual([]);
  });
});
