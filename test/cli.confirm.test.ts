/**
 * The one confirmation rule (src/cli/confirm.ts) through the real binary: a command that asks
 * before a change, run where no one can be asked (stdin and stderr are pipes here) and without
 * --yes, exits 2 with one line naming --yes and changes nothing. The terminal side (the prompt,
 * Ctrl-C → 130) is driven on a pty in test/cli.terminal.test.ts and test/cli.init.test.ts;
 * staging promote's refusal, with its --digest, in test/trust.review.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';

let library: string;
let home: string;
const cli = (args: string[]) => runCli([...args, '--library', library], { env: { BOURDON_HOME: home } });

/** Every file under `dir` with its bytes: what "nothing changed" is checked against. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    files[path.relative(dir, file)] = fs.readFileSync(file, 'base64');
  }
  return files;
}

beforeAll(async () => {
  const dir = tempDir('bourdon-confirm-');
  library = path.join(dir, 'lib');
  home = path.join(dir, 'home');
  expect((await runCli(['init', '--yes', '--library', library], { env: { BOURDON_HOME: home } })).code).toBe(0);
  expect((await cli(['note', 'add', 'codex', 'first', '--agent-type', 'code-assistant'])).code).toBe(0);
  expect((await cli(['note', 'add', 'codex', 'second'])).code).toBe(0);
});

describe('asking first, off a terminal', () => {
  it('rollback without --yes: exit 2, one line naming --yes, nothing changed', async () => {
    const before = { library: snapshot(library), home: snapshot(home) };
    const result = await cli(['rollback', 'codex', '1']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'bourdon: not a terminal, so no one can be asked: pass --yes to roll back; nothing was changed (see `bourdon rollback --help`)\n',
    );
    expect(snapshot(library)).toEqual(before.library);
    expect(snapshot(home)).toEqual(before.home);
  });

  it('under --json the refusal is the error object on stdout, with the same status', async () => {
    const result = await cli(['rollback', 'codex', '1', '--json']);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toEqual({
      error: 'not a terminal, so no one can be asked: pass --yes to roll back; nothing was changed',
      code: 'usage',
    });
  });

  it('init without --yes refuses in the same words, before creating anything', async () => {
    const fresh = path.join(tempDir('bourdon-confirm-init-'), 'lib');
    const result = await runCli(['init', '--library', fresh], { env: { BOURDON_HOME: home } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^bourdon: not a terminal, so no one can be asked: pass --yes to .*; nothing was changed/,
    );
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(fs.existsSync(fresh)).toBe(false);
  });

  it('with --yes the same rollback happens (the refusal was only for want of --yes)', async () => {
    const result = await cli(['rollback', 'codex', '1', '--yes', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ agent_id: 'codex', restored_version: 1, version: 3 });
  });
});
