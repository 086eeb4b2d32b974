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
    { name: 'Leaky', summary: 'DB_PASSWORD=hunter2', aliases: ['fine', 'token ghp_abcdefghijklmnopqrstuvwxyz0123'] },
    { name: 'Prose', summary: 'Rotated the staging api_key; the password-protected share moved' },
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
        {
          name: 'Leaky',
          summary: '[redacted credential-like text]',
          aliases: ['fine', '[redacted credential-like text]'],
        },
        // Prose that names a secret, without its value, is the participant's to scrub (the engine keeps it).
        { name: 'Prose', summary: 'Rotated the staging api_key; the password-protected share moved' },
      ],
      visibility_policy: { default: 'public', private_tags: ['health'] },
      recent_sessions: [],
    });
    expect(counts).toEqual({ entities: 4, sessions: 0, filtered: 2, redacted: 3 });
  });

  it('at public: team rows go too; at private, private rows still never leave (federation filter)', () => {
    expect(finishManifest(manifest(), 'public').manifest.known_entities).toHaveLength(3);
    const names = (finishManifest(manifest(), 'private').manifest.known_entities as { name: string }[]).map(
      (e) => e.name,
    );
    expect(names).toEqual(['Open', 'Crew', 'Leaky', 'Prose']);
  });

  it('re-adds both row lists as [] after the policy when a participant left them out', () => {
    const { manifest: out } = finishManifest({ spec_version: '0.1', visibility_policy: { default: 'team' } }, 'team');
    expect(Object.keys(out)).toEqual(['spec_version', 'visibility_policy', 'known_entities', 'recent_sessions']);
    expect(out.known_entities).toEqual([]);
  });
});
