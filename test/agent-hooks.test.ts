/**
 * The agents' own end-of-turn hooks (issue 53): `bourdon init` adds Codex's `notify` program and
 * Cursor's `stop` hook for the agents it finds, merged with the user's own entries, backed up,
 * and `init --remove-hooks` takes out ours only; the hook (`bourdon hook <agent>`) returns at
 * once, says nothing, and the agent's export lands in the library.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseToml } from 'smol-toml';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';
import { libraryHas, memoryFile, writeFile } from './helpers/watch.js';

function stand() {
  const home = tempDir('bourdon-hooks-home-');
  const library = path.join(home, 'agent-library');
  const env = { HOME: home, BOURDON_HOME: path.join(home, '.bourdon') };
  const codexConfig = path.join(home, '.codex', 'config.toml');
  const cursorHooks = path.join(home, '.cursor', 'hooks.json');
  // Cursor is found by its data folder (the participant's source), Codex by its home.
  fs.mkdirSync(path.join(home, '.config', 'Cursor'), { recursive: true });
  return { home, library, env, codexConfig, cursorHooks };
}

const init = (s: ReturnType<typeof stand>, extra: string[] = []) =>
  runCli(['init', '--yes', '--json', '--library', s.library, ...extra], { env: s.env, timeoutMs: 60_000 });

describe('bourdon init --agent-hooks', () => {
  it("adds Codex's notify and Cursor's stop hook beside the user's own entries, backed up, and removes only ours", async () => {
    const s = stand();
    const userToml = '# mine\nmodel = "gpt-5"\n\n[profiles.fast]\nmodel = "gpt-5-mini"\n';
    writeFile(s.codexConfig, userToml);
    const userHooks = {
      version: 1,
      hooks: { stop: [{ command: './my-stop.sh' }], afterFileEdit: [{ command: 'fmt' }] },
    };
    writeFile(s.cursorHooks, JSON.stringify(userHooks, null, 2));
    const result = await init(s, ['--agent-hooks']);
    expect(result.code, result.stderr).toBe(0);
    const payload = JSON.parse(result.stdout);
    expect(payload.agent_hooks.map((h: { agent: string; status: string }) => `${h.agent} ${h.status}`)).toEqual([
      'codex installed',
      'cursor installed',
    ]);

    const toml = parseToml(fs.readFileSync(s.codexConfig, 'utf8')) as Record<string, unknown>;
    expect(toml.model).toBe('gpt-5');
    expect((toml.profiles as Record<string, Record<string, string>>).fast?.model).toBe('gpt-5-mini');
    const notify = toml.notify as string[];
    expect(notify.slice(2)).toEqual(['hook', 'codex', '--library', s.library]);
    expect(notify[0]).toBe(process.execPath);
    expect(fs.readFileSync(`${s.codexConfig}.bourdon-backup`, 'utf8')).toBe(userToml);

    const hooks = JSON.parse(fs.readFileSync(s.cursorHooks, 'utf8'));
    expect(hooks.version).toBe(1);
    expect(hooks.hooks.afterFileEdit).toEqual([{ command: 'fmt' }]);
    expect(hooks.hooks.stop[0]).toEqual({ command: './my-stop.sh' });
    expect(hooks.hooks.stop[1].command).toContain(' hook cursor --library ');
    expect(JSON.parse(fs.readFileSync(`${s.cursorHooks}.bourdon-backup`, 'utf8'))).toEqual(userHooks);

    // Again: nothing more.
    const again = JSON.parse((await init(s, ['--agent-hooks'])).stdout);
    expect(again.agent_hooks.map((h: { status: string }) => h.status)).toEqual(['exists', 'exists']);

    const removed = await runCli(['init', '--remove-hooks', '--json'], { env: s.env });
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse(removed.stdout).hooks.map((h: { status: string }) => h.status)).toEqual([
      'absent',
      'removed',
      'removed',
    ]);
    expect(fs.readFileSync(s.codexConfig, 'utf8')).toBe(userToml);
    expect(JSON.parse(fs.readFileSync(s.cursorHooks, 'utf8'))).toEqual(userHooks);
  }, 120_000);

  it('keeps a notify program the user set (Codex runs one) and says so', async () => {
    const s = stand();
    writeFile(s.codexConfig, 'notify = ["/usr/local/bin/my-notifier"]\n');
    const payload = JSON.parse((await init(s, ['--agent-hooks'])).stdout);
    const codex = payload.agent_hooks.find((h: { agent: string }) => h.agent === 'codex');
    expect(codex.status).toBe('kept');
    expect(codex.reason).toContain('my-notifier');
    expect(fs.readFileSync(s.codexConfig, 'utf8')).toBe('notify = ["/usr/local/bin/my-notifier"]\n');
  }, 60_000);

  it('refuses a hooks file that is not JSON, changing nothing', async () => {
    const s = stand();
    writeFile(s.cursorHooks, '{ not json');
    const result = await init(s, ['--agent-hooks']);
    expect(result.code).not.toBe(0);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(fs.readFileSync(s.cursorHooks, 'utf8')).toBe('{ not json');
    expect(fs.existsSync(s.library)).toBe(false);
  }, 60_000);
});

describe('bourdon hook <agent>', () => {
  it('returns at once, quietly, and the export lands in the library', async () => {
    const s = stand();
    writeFile(path.join(s.home, '.cascade-bourdon', 'memory.md'), memoryFile(['Hooked']));
    const result = await runCli(['hook', 'cascade', '--library', s.library], { env: s.env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('');
    for (let i = 0; i < 200 && !libraryHas(s.library, 'cascade', 'Hooked'); i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(libraryHas(s.library, 'cascade', 'Hooked')).toBe(true);
  }, 60_000);

  it('exports nothing for a Codex notification that is not the end of a turn, and answers Cursor with {}', async () => {
    const s = stand();
    const other = await runCli(['hook', 'codex', '--library', s.library, '{"type":"approval-requested"}'], {
      env: s.env,
    });
    expect(other.code, other.stderr).toBe(0);
    expect(fs.existsSync(path.join(s.env.BOURDON_HOME, 'hooks.log'))).toBe(false);
    const cursor = await runCli(['hook', 'cursor', '--library', s.library], { env: s.env });
    expect(cursor.stdout).toBe('{}\n');
    // The export it started has ended (its line is in the log) before the test's folders go.
    const log = path.join(s.env.BOURDON_HOME, 'hooks.log');
    for (let i = 0; i < 300 && !(fs.existsSync(log) && /cursor/.test(fs.readFileSync(log, 'utf8'))); i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fs.readFileSync(log, 'utf8')).toMatch(/cursor/);
  }, 60_000);
});
