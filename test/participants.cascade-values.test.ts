/**
 * Cascade's memory file, values the participants README says pass through raw, and an entity
 * the file marks private (issue 50), through the real binary: an export is never refused whole
 * for one value, and what it writes the store reads back.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';

const MEMORY = `---
entities:
  - name: Tide
    type: 2
    summary: 42
    aliases: [3, tide-app]
    tags: [1, ops]
  - name: Ledger
    summary: kept to myself
    visibility: " Private "
  - name: Dock
    summary: shared
    visibility: team
sessions:
  - date: 2026-04-28
    cwd: 5173
    key_actions: [7, shipped]
---
`;

let home: string;
let library: string;

beforeAll(() => {
  home = tempDir('privacy-cascade-home-');
  library = path.join(tempDir('privacy-cascade-lib-'), 'library');
  fs.mkdirSync(path.join(home, '.cascade-bourdon'));
  fs.writeFileSync(path.join(home, '.cascade-bourdon', 'memory.md'), MEMORY);
});

afterAll(() => {
  for (const dir of [home, path.dirname(library)]) fs.rmSync(dir, { recursive: true, force: true });
});

const run = (args: string[]) => runCli([...args, '--library', library], { env: { HOME: home }, timeoutMs: 60_000 });

describe('cascade: raw values are written as the README says, never refusing the export', () => {
  it('a number for cwd (and type, summary, list items) is written and read back as text; a number tag alone is left out', async () => {
    const exported = await run(['cascade', 'export']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).not.toMatch(/does not fit the L5 model at|nothing was written/);
    // The one value the store could not read back (a tag that is a number) is named, once.
    expect(exported.stderr).toContain(
      'left out a value that does not fit the L5 model (known_entities[0].tags[0]: expected text, found a number)',
    );
    const written = fs.readFileSync(path.join(library, 'agents', 'cascade.l5.yaml'), 'utf8');
    expect(written).toMatch(/cwd: 5173\n/);
    expect(written).toMatch(/type: 2\n/);

    const recent = await run(['recent', '--since', '2026-04-01', '--json']);
    expect(recent.code, recent.stderr).toBe(0);
    expect(recent.stderr).toBe('');
    const sessions = (JSON.parse(recent.stdout) as { sessions: Record<string, unknown>[] }).sessions;
    expect(sessions).toEqual([
      expect.objectContaining({ agent: 'cascade', cwd: '5173', key_actions: ['7', 'shipped'] }),
    ]);
    const found = await run(['find', 'Tide', '--json']);
    const [match] = (JSON.parse(found.stdout) as { matches: Record<string, unknown>[] }).matches;
    expect(match).toMatchObject({ name: 'Tide', types: ['2'], summaries: { cascade: '42' }, tags: ['ops'] });
  });

  it('an entity the file marks private (any case, trimmed) is left out; one marked team is exported', async () => {
    const written = fs.readFileSync(path.join(library, 'agents', 'cascade.l5.yaml'), 'utf8');
    expect(written).not.toContain('Ledger');
    expect(written).not.toContain('kept to myself');
    expect(written).toContain('Dock');
  });

  it('a float keeps its kind as the engine writes it (2.0, 1500.0), and -.5 or y stay text (issue 55)', async () => {
    const floats = tempDir('privacy-cascade-floats-');
    fs.mkdirSync(path.join(floats, '.cascade-bourdon'));
    fs.writeFileSync(
      path.join(floats, '.cascade-bourdon', 'memory.md'),
      '---\nentities:\n  - name: Tide\n    type: 2.0\n    summary: 1.5e+3\n    aliases: [.5, -.5, y, 12345678901234567890]\n---\n',
    );
    const out = path.join(floats, 'out.yaml');
    const exported = await runCli(['cascade', 'export', '--out', out], { env: { HOME: floats }, timeoutMs: 60_000 });
    expect(exported.code, exported.stderr).toBe(0);
    const written = fs.readFileSync(out, 'utf8');
    expect(written).toContain('    type: 2.0\n');
    expect(written).toContain('    summary: 1500.0\n');
    expect(written).toContain("      - 0.5\n      - '-.5'\n      - 'y'\n      - 12345678901234567890\n");
  });
});
