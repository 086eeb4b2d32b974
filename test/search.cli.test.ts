/**
 * `bourdon search` as a person sees it (a terminal: each result in two lines within 80 columns,
 * the matching words highlighted) and the "did you mean" that find, query and summary add when
 * they find nothing — never naming a row the level hides. `--json` of find is unchanged.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { ANSI, runInPty, stripAnsi } from './helpers/pty.js';
import { REPO_ROOT, tempDir } from './helpers/fixtures.js';
import { displayWidth } from '../src/cli/width.js';

const LIBRARY = path.join(REPO_ROOT, 'test', 'fixtures', 'search', 'library');
const home = tempDir('bourdon-search-cli-');
const cli = (args: string[]) => runCli([...args, '--library', LIBRARY], { env: { BOURDON_HOME: home } });

describe('bourdon search on a terminal', () => {
  it('fits every line in 80 columns on a wide terminal and highlights the matching words', async () => {
    const run = await runInPty(['search', 'orchard login', '--access-level', 'team', '--library', LIBRARY], [], {
      columns: 200,
      env: { BOURDON_HOME: home, NO_COLOR: undefined },
      separateStderr: true,
    });
    expect(run.code).toBe(0);
    const lines = stripAnsi(run.output).split(/\r?\n/).filter(Boolean);
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(80);
    expect(stripAnsi(run.output)).toMatch(/^session +claude-code-2, 2026-04-28/m);
    // The matching words are bold yellow, and no `**` mark is left.
    // eslint-disable-next-line no-control-regex -- the colour codes are what it checks
    expect(run.output).toMatch(/\u001b\[1m\u001b\[33mlogin\u001b\[39m\u001b\[22m/);
    expect(run.output.replace(ANSI, '')).not.toContain('**');
  });

  it('says when nothing matches, and refuses an unknown kind in one line', async () => {
    const none = await cli(['search', 'qxzvw']);
    expect(none.stdout.trim()).toBe('Nothing matches "qxzvw".');
    const bad = await cli(['search', 'tide', '--kind', 'planet']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/unknown kind "planet" \(use entity, session, note, workstream\)/);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('did you mean', () => {
  it('find, query and summary that find nothing suggest the best search results', async () => {
    const find = await cli(['find', 'tidewatr']);
    expect(find.stdout).toContain('No agent knows about "tidewatr".');
    expect(find.stdout).toMatch(/Did you mean "Tidewater"/);
    const query = await cli(['query', 'copilot', 'ledgrline', '--access-level', 'team']);
    expect(query.stdout).toMatch(/Did you mean "Ledgerline"\?/);
    const summary = await cli(['summary', 'tidewatr']);
    expect(summary.stdout).toMatch(/Did you mean "Tidewater"/);
  });

  it('never suggests a row the level hides, and leaves --json as it was', async () => {
    const team = await cli(['find', 'salary bands', '--access-level', 'team']);
    expect(team.stdout).not.toContain('Payroll export');
    const privately = await cli(['find', 'salary bands', '--access-level', 'private']);
    expect(privately.stdout).toMatch(/Did you mean "Payroll export"\?/);
    const json = await cli(['find', 'tidewatr', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({
      name: 'tidewatr',
      access_level: 'public',
      include_private: false,
      matches: [],
    });
  });
});
