/**
 * Issue 52 item 5: the CLI's colour goes through chalk's detection of the colour level, through
 * the real binary: FORCE_COLOR turns it on where no terminal is (a pipe, a CI log) and
 * FORCE_COLOR=0 off on a terminal; TERM=dumb turns it off; a 256-colour or truecolor terminal
 * shows the same palette; NO_COLOR wins over everything; `--json` is never coloured. Whatever
 * the level, a sequence carried by data is shown escaped, never as a code.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';
import { runInPty } from './helpers/pty.js';

/** Our bold around the entity's name, as `find` shows it with colour on. */
const BOLD_NAME = '\u001b[1mOrbit\u001b[22m';
// eslint-disable-next-line no-control-regex -- any escape character at all
const ANY_ESCAPE = /\u001b/;

let library: string;
let home: string;
beforeAll(() => {
  library = tempDir('bourdon-colour-');
  home = tempDir('bourdon-colour-home-');
  fs.mkdirSync(path.join(library, 'agents'));
  fs.writeFileSync(
    path.join(library, 'agents', 'codex.l5.yaml'),
    JSON.stringify({
      spec_version: '0.1',
      agent: { id: 'codex', type: 'code-assistant', role_narrative: 'Role' },
      known_entities: [{ name: 'Orbit', type: 'project', summary: 'Summary s\u001b[31mred\u001b[39me', tags: ['t'] }],
    }),
  );
});

const piped = (env: Record<string, string | undefined>, extra: string[] = []) =>
  runCli(['find', 'orbit', '--library', library, ...extra], {
    env: { BOURDON_HOME: home, NO_COLOR: undefined, FORCE_COLOR: undefined, ...env },
  });

async function onTerminal(env: Record<string, string | undefined>): Promise<string> {
  const result = await runInPty(['find', 'orbit', '--library', library], [], {
    env: { BOURDON_HOME: home, NO_COLOR: undefined, FORCE_COLOR: undefined, ...env },
  });
  expect(result.code, result.output).toBe(0);
  return result.output;
}

describe('colour as chalk detects it', () => {
  it('is off through a pipe, and FORCE_COLOR turns it on there, data still escaped', async () => {
    const plain = await piped({});
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).not.toMatch(ANY_ESCAPE);
    const forced = await piped({ FORCE_COLOR: '1' });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toContain(BOLD_NAME);
    expect(forced.stdout).toContain('s\\u001b[31mred\\u001b[39me');
    expect(forced.stdout).not.toContain('s\u001b[31mred');
  }, 60_000);

  it('NO_COLOR wins over FORCE_COLOR, and --json is never coloured', async () => {
    const both = await piped({ FORCE_COLOR: '3', NO_COLOR: '1' });
    expect(both.code, both.stderr).toBe(0);
    expect(both.stdout).toContain('Orbit');
    expect(both.stdout).not.toMatch(ANY_ESCAPE);
    const json = await piped({ FORCE_COLOR: '3' }, ['--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).not.toMatch(ANY_ESCAPE);
    expect(JSON.parse(json.stdout)).toBeTruthy();
  }, 60_000);

  it('is on on a terminal, the same palette at 256 colours and truecolor; off with TERM=dumb or FORCE_COLOR=0', async () => {
    expect(await onTerminal({ TERM: 'xterm' })).toContain(BOLD_NAME);
    expect(await onTerminal({ TERM: 'xterm-256color' })).toContain(BOLD_NAME);
    expect(await onTerminal({ TERM: 'xterm-256color', COLORTERM: 'truecolor' })).toContain(BOLD_NAME);
    const dumb = await onTerminal({ TERM: 'dumb' });
    expect(dumb).toContain('Orbit');
    expect(dumb).not.toContain('\u001b[1m');
    const off = await onTerminal({ TERM: 'xterm-256color', FORCE_COLOR: '0' });
    expect(off).toContain('Orbit');
    expect(off).not.toContain('\u001b[1m');
  }, 90_000);
});
