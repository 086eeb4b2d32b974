/**
 * One redaction rule for every read surface, the one the exports follow: secret values
 * redacted, prose that only names a credential kept (issue 54, item 9). The same row reads the
 * same in `summary`, `find`, `workstreams` and `list-notes`; an entity whose name a participant
 * scrubbed whole is not exported (docs/participants.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { finishManifest } from '../src/participants/finish.js';
import { REDACTED } from '../src/core/trust/redaction.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';
import { at } from './helpers/items.js';

const PROSE = 'Rotated the staging api_key (see vault)';

describe('the same row on every read surface', () => {
  it('summary, find, workstreams and list-notes show the prose as it is; a value is redacted', async () => {
    const library = tempDir('bourdon-one-rule-');
    fs.mkdirSync(path.join(library, 'agents'));
    fs.writeFileSync(
      path.join(library, 'agents', 'codex.l5.yaml'),
      [
        'spec_version: "0.1"',
        'agent: {id: codex, type: code-assistant}',
        'last_updated: "2026-11-30T10:00:00Z"',
        'known_entities:',
        `  - {name: Orbit, type: project, summary: "${PROSE}"}`,
        'recent_sessions:',
        `  - {date: "2026-11-29", project_focus: [Orbit], key_actions: ["${PROSE}"]}`,
        'notes:',
        `  - {date: "2026-11-29", text: "${PROSE}; DB_PASSWORD=hunter2", project_focus: [Orbit]}`,
        '',
      ].join('\n'),
    );
    const json = async (args: string[]) => {
      const result = await runCli([...args, '--json', '--library', library]);
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout) as Record<string, unknown>;
    };
    const found = (await json(['find', 'Orbit'])) as { matches: { summaries: Record<string, string> }[] };
    expect(found.matches[0]?.summaries.codex).toBe(PROSE);
    const summary = (await json(['summary', 'Orbit'])) as { recent_sessions: { key_actions: string[] }[] };
    expect(summary.recent_sessions[0]?.key_actions).toEqual([PROSE]);
    const workstreams = (await json(['workstreams', '--since', '2000-01-01'])) as {
      workstreams: { recent_actions: string[] }[];
    };
    expect(at(workstreams.workstreams, 0).recent_actions).toContain(PROSE);
    const notes = (await json(['list-notes', '--since', '2000-01-01'])) as { notes: { text: string }[] };
    expect(notes.notes[0]?.text).toBe(`${PROSE}; DB_PASSWORD=[redacted]`);
  });
});

describe('an entity whose name was scrubbed whole', () => {
  it('is left out of the export and counted as redacted, as one whose name holds a secret', () => {
    const { manifest, counts } = finishManifest(
      {
        spec_version: '0.1',
        agent: { id: 'codex', type: 'code-assistant' },
        known_entities: [
          { name: REDACTED, type: 'topic', summary: `Codex thread: ${REDACTED}`, visibility: 'team' },
          { name: 'Orbit', type: 'project', summary: PROSE, visibility: 'team' },
        ],
        recent_sessions: [],
      },
      'team',
    );
    expect((manifest.known_entities as { name: string }[]).map((entity) => entity.name)).toEqual(['Orbit']);
    expect((manifest.known_entities as { summary: string }[])[0]?.summary).toBe(PROSE);
    expect(counts.redacted).toBe(1);
  });
});
