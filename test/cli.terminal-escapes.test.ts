/**
 * Issue 41: on a terminal, with colour on, no escape sequence from data reaches the terminal —
 * not a concealing or recolouring SGR code, not one identical to a code of the CLI's own palette,
 * not a palette change (OSC 4/10/11/104, ended by BEL or ST), not a C1 control (U+009B is a CSI
 * by itself) — in any command's output, stdout or stderr; each is shown escaped. The CLI's own
 * colours still reach the terminal. Through the real binary on a pseudo-terminal.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runInPty } from './helpers/pty.js';
import { tempDir } from './helpers/fixtures.js';

/** Sequences a row may carry, each with what must be shown in its place. */
const HOSTILE: readonly (readonly [raw: string, shown: string])[] = [
  ['\u001b[8m', '\\u001b[8m'], // conceal
  ['\u001b[41m', '\\u001b[41m'], // background
  ['\u001b[31m', '\\u001b[31m'], // red: one of the CLI's own codes
  ['\u001b[2m', '\\u001b[2m'], // dim: another
  ['\u001b[39m', '\\u001b[39m'], // the palette's own reset
  ['\u001b]4;1;rgb:00/00/00\u0007', '\\u001b]4;1;rgb:00/00/00\\u0007'], // OSC 4, ended by BEL
  ['\u001b]10;#000000\u001b\\', '\\u001b]10;#000000\\u001b\\'], // OSC 10, ended by ST
  ['\u001b]11;#000000\u0007', '\\u001b]11;#000000\\u0007'], // OSC 11
  ['\u001b]104\u0007', '\\u001b]104\\u0007'], // OSC 104: palette reset
  ['\u009b8m', '\\u009b8m'], // C1 CSI
  ['\u009d4;2;rgb:00/00/00\u009c', '\\u009d4;2;rgb:00/00/00\\u009c'], // C1 OSC and ST
];
const CARRIED = HOSTILE.map(([raw], i) => `s${i}${raw}e${i}`).join(' ');

let library: string;
let home: string;
beforeAll(() => {
  library = tempDir('bourdon-escapes-');
  home = tempDir('bourdon-escapes-home-');
  fs.mkdirSync(path.join(library, 'agents'));
  fs.writeFileSync(
    path.join(library, 'agents', 'codex.l5.yaml'),
    JSON.stringify({
      spec_version: '0.1',
      agent: { id: 'codex', type: 'code-assistant', role_narrative: `Role ${CARRIED}` },
      known_entities: [{ name: 'Orbit', type: 'project', summary: `Summary ${CARRIED}`, tags: [`tag ${CARRIED}`] }],
      recent_sessions: [
        { date: new Date().toISOString().slice(0, 10), project_focus: ['Orbit'], key_actions: [`Action ${CARRIED}`] },
      ],
    }),
  );
});

/** The command's terminal output, with colour on. */
async function onTerminal(args: string[]): Promise<string> {
  const result = await runInPty([...args, '--library', library], [], {
    env: { BOURDON_HOME: home, NO_COLOR: undefined, FORCE_COLOR: undefined },
  });
  expect(result.code, result.output).toBe(0);
  return result.output;
}

/** `recent` on a terminal over a library whose one manifest, named `fileName`, is malformed: its warning names the file. */
async function warningNaming(fileName: string): Promise<{ stderr: string }> {
  const folder = tempDir('bourdon-escapes-warning-');
  fs.mkdirSync(path.join(folder, 'agents'));
  fs.writeFileSync(path.join(folder, 'agents', fileName), 'x: [\n');
  return runInPty(['recent', '--library', folder], [], {
    env: { BOURDON_HOME: home, NO_COLOR: undefined, FORCE_COLOR: undefined },
    separateStderr: true,
  });
}

/** Each sequence, where the data put it (between `s<i>` and `e<i>`), shown escaped and not raw. */
function expectNeutralised(output: string, marker: string): void {
  expect(output).toContain(marker);
  HOSTILE.forEach(([raw, shown], i) => {
    expect(output, JSON.stringify(raw)).not.toContain(`s${i}${raw}e${i}`);
    expect(output, shown).toContain(`s${i}${shown}e${i}`);
  });
  // No C1 control and no ESC but those of plain colour codes (the CLI's own) reach the terminal.
  expect(output).not.toMatch(/[\u0080-\u009f]/);
  // eslint-disable-next-line no-control-regex -- escape sequences other than colour codes
  expect(output).not.toMatch(/\u001b(?!\[[0-9;]*m)/);
  // Our own codes are written plain: no stamp is left in them.
  // eslint-disable-next-line no-control-regex -- looking for a stamped code left in the output
  expect(output).not.toMatch(/\u001b\[\d{20,};/);
}

describe('escape sequences from data on a terminal', () => {
  it('`recognize` shows every sequence from data escaped, never raw', async () => {
    expectNeutralised(await onTerminal(['recognize', 'what about orbit?']), 'Summary');
  }, 30_000);

  it('`find` shows them escaped in a summary and tags, and its own colours still reach the terminal', async () => {
    const output = await onTerminal(['find', 'orbit']);
    expectNeutralised(output, 'Summary');
    expect(output).toContain('\u001b[1mOrbit\u001b[22m');
  }, 30_000);

  it('`recent` shows them escaped in a session table', async () => {
    expectNeutralised(await onTerminal(['recent', '--access-level', 'private']), 'Action');
  }, 30_000);

  it('`agents` shows them escaped in a role', async () => {
    expectNeutralised(await onTerminal(['agents']), 'Role');
  }, 30_000);

  it('a warning on stderr naming a file from data shows its sequences escaped', async () => {
    const result = await warningNaming('ev\u001b[31mil\u009b8m.l5.yaml');
    expect(result.stderr).toContain('ev\\u001b[31mil\\u009b8m.l5.yaml');
    // eslint-disable-next-line no-control-regex -- the point: no ESC and no C1 control on stderr
    expect(result.stderr).not.toMatch(/[\u001b\u0080-\u009f]/);
  }, 30_000);

  it('a tab in a warning on stderr shows as a space, while a sequence beside it is still escaped', async () => {
    const result = await warningNaming('two\twords\u001b[31m.l5.yaml');
    expect(result.stderr).toContain('two words\\u001b[31m.l5.yaml');
    expect(result.stderr).not.toContain('\\u0009');
    expect(result.stderr).not.toContain('\t');
    // eslint-disable-next-line no-control-regex -- the point: no ESC and no C1 control on stderr
    expect(result.stderr).not.toMatch(/[\u001b\u0080-\u009f]/);
  }, 30_000);
});
