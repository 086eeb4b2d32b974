/**
 * Doctor reports exactly the manifest rows the queries leave out: which rows are read is the
 * store's rule, and doctor asks the store rather than saying it again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runDoctor } from '../src/core/admin/doctor.js';
import { createContext } from '../src/core/context.js';
import { configPaths } from '../src/core/store/config.js';
import { LibraryStore } from '../src/core/store/library.js';
import { invoke } from '../src/core/operations/invoke.js';
import { findEntityOperation, listNotesOperation } from '../src/core/operations/read-operations.js';
import { tempDir } from './helpers/fixtures.js';

const MANIFEST = `spec_version: "0.1"
agent:
  id: rows
  type: code-assistant
last_updated: "2026-11-30T10:00:00Z"
known_entities:
  - name: 42
    summary: a name YAML reads as a number
  - summary: no name at all
recent_sessions:
  - date: 2026-11-31
    cwd: /tmp
  - cwd: /tmp
notes:
  - date: 2026-11-30
    text: 7
  - date: 2026-11-30
    title: no text
  - date: someday
    text: no valid date
`;

describe('doctor and the queries read the same rows', () => {
  it('reports the rows the queries leave out, and none that they read', async () => {
    const library = tempDir('bourdon-doctor-rows-');
    const home = tempDir('bourdon-doctor-home-');
    fs.mkdirSync(path.join(library, 'agents'));
    fs.writeFileSync(path.join(library, 'agents', 'rows.l5.yaml'), MANIFEST);

    const report = await runDoctor({ libraryRoot: library, config: configPaths({ BOURDON_HOME: home }), env: {} });
    const schema = report.checks.find((check) => check.id === 'schema')!;
    expect(schema.verdict).toBe('fail');
    expect(schema.details).toEqual([
      'agents/rows.l5.yaml: known_entities[1] has no name (ignored)',
      'agents/rows.l5.yaml: recent_sessions[0] has no valid date (YYYY-MM-DD): undated, it is left out wherever a date window applies',
      'agents/rows.l5.yaml: recent_sessions[1] has no date and is not listed',
      'agents/rows.l5.yaml: notes[1] needs a valid date and a text: it is not listed',
      'agents/rows.l5.yaml: notes[2] needs a valid date and a text: it is not listed',
    ]);

    // What doctor did not report, the queries answer.
    const ctx = createContext(new LibraryStore(library, { warn: () => {} }));
    const found = await invoke(findEntityOperation, ctx, { name: '42' });
    expect('matches' in found && found.matches.map((match) => match.name)).toEqual(['42']);
    const notes = await invoke(listNotesOperation, ctx, { since: '2026-11-01' });
    expect('notes' in notes && notes.notes.map((note) => note.text)).toEqual(['7']);
  });
});
