/**
 * Long output goes through the pager on a terminal, as git and gh page it: `--help` and a human
 * listing taller than the terminal (40 rows on the test pseudo-terminal) reach `$PAGER` (here a
 * fake pager that records what it was given); `--no-pager`, `PAGER=cat`, a pipe and `--json`
 * print directly. The test runner's own environment sets PAGER=cat, so no other test waits in one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';
import { runInPty, stripAnsi } from './helpers/pty.js';

const dir = tempDir('bourdon-pager-');
const received = path.join(dir, 'received.txt');
const fakePager = path.join(dir, 'fake-pager');
fs.writeFileSync(fakePager, `#!/bin/sh\necho "FAKE-PAGER LESS=$LESS"\ncat > '${received}'\n`, { mode: 0o755 });

const library = path.join(dir, 'library');
fs.mkdirSync(path.join(library, 'agents'), { recursive: true });
for (let i = 1; i <= 60; i++)
  fs.writeFileSync(
    path.join(library, 'agents', `agent-${String(i).padStart(2, '0')}.l5.yaml`),
    `spec_version: '0.1'\nagent: {id: agent-${String(i).padStart(2, '0')}, type: other}\n`,
  );

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function pagedText(): string | null {
  if (!fs.existsSync(received)) return null;
  const text = fs.readFileSync(received, 'utf8');
  fs.rmSync(received);
  return text;
}

describe('the pager', () => {
  it('pages long --help through $PAGER on a terminal, with LESS=FRX when LESS is unset', async () => {
    const result = await runInPty(['help'], [], { env: { PAGER: fakePager }, timeoutMs: 60_000 });
    expect(result.code).toBe(0);
    expect(stripAnsi(result.output)).toContain('FAKE-PAGER LESS=FRX');
    const paged = pagedText();
    expect(paged).toContain('Ask the library'.toUpperCase());
    expect(paged!.split('\n').length).toBeGreaterThan(40);
  });

  it('pages a long human listing, BOURDON_PAGER first', async () => {
    const result = await runInPty(['agents', '--library', library], [], {
      env: { PAGER: 'cat', BOURDON_PAGER: fakePager },
      timeoutMs: 60_000,
    });
    expect(result.code).toBe(0);
    expect(stripAnsi(result.output)).toContain('FAKE-PAGER');
    expect(pagedText()).toContain('agent-60');
  });

  it('--no-pager, PAGER=cat or empty, and a pipe print directly', async () => {
    for (const [args, env] of [
      [['help', '--no-pager'], { PAGER: fakePager }],
      [['help'], { PAGER: 'cat' }],
      [['help'], { PAGER: '' }],
    ] as const) {
      const result = await runInPty([...args], [], { env, timeoutMs: 60_000 });
      expect(result.code).toBe(0);
      expect(stripAnsi(result.output)).not.toContain('FAKE-PAGER');
      expect(stripAnsi(result.output)).toContain('ASK THE LIBRARY');
      expect(pagedText()).toBeNull();
    }
    const piped = await runCli(['help'], { env: { PAGER: fakePager } });
    expect(piped.stdout).toContain('ASK THE LIBRARY');
    expect(piped.stdout).not.toContain('FAKE-PAGER');
    const json = await runInPty(['agents', '--json', '--library', library], [], {
      env: { PAGER: fakePager },
      timeoutMs: 60_000,
    });
    expect(stripAnsi(json.output)).not.toContain('FAKE-PAGER');
    expect(pagedText()).toBeNull();
  });
});
