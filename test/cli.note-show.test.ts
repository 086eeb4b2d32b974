/**
 * `bourdon note show <agent>:<n>` on the real binary and the demo library: the ID list-notes
 * shows opens that note whole (where list-notes cut it to 80 columns), its --json is the
 * list_notes row plus id and visibility, a note above the level asked for is refused, texts stay
 * redacted, and an id keeps naming its note after another note is added.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { NoteRef } from '../src/core/operations/notes.js';
import { runCli } from './helpers/cli.js';
import { demoLibrary } from './helpers/demo.js';
import { at, defined } from './helpers/items.js';

let library: string;
let home: string;

beforeAll(async () => {
  ({ library, home } = await demoLibrary('bourdon-note-show'));
});

const cli = (args: string[], env: Record<string, string> = {}) =>
  runCli([...args, '--library', library], { env: { BOURDON_HOME: home, NO_COLOR: '1', ...env }, timeoutMs: 60_000 });

/** The ID column of list-notes' table, by row. */
async function listedIds(extra: string[] = []): Promise<string[]> {
  const listed = await cli(['list-notes', '--since', '30d', '--access-level', 'team', ...extra], { COLUMNS: '80' });
  expect(listed.code, listed.stderr).toBe(0);
  const [header, ...rows] = listed.stdout.trimEnd().split('\n');
  expect(header).toMatch(/^WHEN\s+ID\s+NOTE\s+TAGS$/);
  const column = defined(header, 'a header').indexOf('ID');
  return rows.map((row) => row.slice(column).split(/\s+/)[0]!);
}

describe('note show', () => {
  it('every ID list-notes shows opens its note whole, the text list-notes cut included', async () => {
    const ids = await listedIds();
    expect(ids.length).toBeGreaterThan(1);
    const listed = await cli(['list-notes', '--since', '30d', '--access-level', 'team', '--json']);
    const rows = (JSON.parse(listed.stdout) as { notes: NoteRef[] }).notes;
    expect(ids).toHaveLength(rows.length);
    for (const [i, id] of ids.entries()) {
      const shown = await cli(['note', 'show', id, '--access-level', 'team']);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout.split('\n')[0]).toBe(`Note ${id}`);
      // The whole text, which the 80-column table cut: the same note as the listing's row.
      const row = at(rows, i, 'a listed note');
      expect(shown.stdout).toContain(row.text);
      expect(shown.stdout).toContain(`Agent      ${row.agent}`);
    }
    const cut = await cli(['list-notes', '--since', '30d', '--access-level', 'team'], { COLUMNS: '80' });
    expect(cut.stdout).not.toContain('codex is adding a tiebreak by device id.');
    const whole = await cli(['note', 'show', 'claude-code:1']);
    expect(whole.stdout).toContain('codex is adding a tiebreak by device id.');
  });

  it('--json: the list_notes row, with its id and visibility, from either path', async () => {
    const shown = await cli(['note', 'show', 'claude-code:1', '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    const payload = JSON.parse(shown.stdout) as { id: string; access_level: string; note: Record<string, unknown> };
    const listed = await cli(['list-notes', '--since', '30d', '--agent', 'claude-code', '--json']);
    const row = (JSON.parse(listed.stdout) as { notes: NoteRef[] }).notes[0];
    expect(payload).toEqual({
      id: 'claude-code:1',
      access_level: 'public',
      include_private: false,
      note: { id: 'claude-code:1', ...row, visibility: 'public' },
    });
    const slow = await cli(['note', 'show', 'claude-code:1', '--json'], { BOURDON_NO_FAST_PATH: '1' });
    expect(slow.stdout).toBe(shown.stdout);
  });

  it('a note above the level asked for is refused, and shown at its level', async () => {
    const added = await cli([
      'note',
      'add',
      'codex',
      'Team-only: the watch build slips a week',
      '--visibility',
      'team',
    ]);
    expect(added.code, added.stderr).toBe(0);
    const ids = await listedIds(['--agent', 'codex']);
    const id = at(ids, 0, 'a listed id');
    const refused = await cli(['note', 'show', id]);
    // Not visible at this level (5), told apart from a note that does not exist (4): docs/errors.md.
    expect(refused.code).toBe(5);
    expect(refused.stderr).toBe(`bourdon: note ${id} is not visible at access level public\n`);
    const json = await cli(['note', 'show', id, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: `note ${id} is not visible at access level public` });
    const shown = await cli(['note', 'show', id, '--access-level', 'team']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('Team-only: the watch build slips a week');
    expect(shown.stdout).toContain('Visibility team');
  });

  it('a credential in a note stays redacted, as list-notes shows it', async () => {
    const secret = 'password=hunter2-rotate-me';
    const added = await cli(['note', 'add', 'cursor', `Staging login is ${secret}`]);
    expect(added.code, added.stderr).toBe(0);
    const ids = await listedIds(['--agent', 'cursor']);
    const shown = await cli(['note', 'show', at(ids, 0, 'a listed id'), '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).not.toContain('hunter2');
    expect((JSON.parse(shown.stdout) as { note: NoteRef }).note.text).toContain('[redacted');
  });

  it('an id keeps naming its note after another note is added to the manifest', async () => {
    const before = await cli(['note', 'show', 'claude-code:1', '--json']);
    const added = await cli(['note', 'add', 'claude-code', 'A later note']);
    expect(added.code, added.stderr).toBe(0);
    const after = await cli(['note', 'show', 'claude-code:1', '--json']);
    expect(after.stdout).toBe(before.stdout);
    const second = await cli(['note', 'show', 'claude-code:2']);
    expect(second.stdout).toContain('A later note');
  });
});
