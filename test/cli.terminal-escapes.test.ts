/**
 * Issue 41: on a terminal, with colour on, a colour code that comes from data (one that conceals
 * text, paints a background) is shown escaped, like every other control character; the CLI's
 * own colours still reach the terminal.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInPty } from './helpers/pty.js';
import { tempDir } from './helpers/fixtures.js';

describe('escape sequences from data on a terminal', () => {
  it('`recognize` shows a concealing or recolouring code escaped, never raw', async () => {
    const library = tempDir('bourdon-escapes-');
    fs.mkdirSync(path.join(library, 'agents'));
    fs.writeFileSync(
      path.join(library, 'agents', 'codex.l5.yaml'),
      'spec_version: "0.1"\nagent: {id: codex, type: code-assistant}\nknown_entities:\n' +
        '  - {name: Orbit, type: project, summary: "visible \\e[8mconcealed\\e[0m and \\e[41mred background\\e[49m"}\n',
    );
    const result = await runInPty(['recognize', 'what about orbit?', '--library', library], [], {
      env: { BOURDON_HOME: tempDir('bourdon-escapes-home-'), NO_COLOR: undefined, FORCE_COLOR: undefined },
    });
    expect(result.code).toBe(0);
    expect(result.output).toContain('Orbit');
    expect(result.output).not.toContain('\u001b[8m');
    expect(result.output).not.toContain('\u001b[41m');
    expect(result.output).toContain('\\u001b[8m');
  }, 30_000);
});
