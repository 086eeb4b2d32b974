/**
 * `bourdon init`'s Claude Code SessionEnd hook: added to ~/.claude/settings.json keeping
 * everything else, idempotent, removable, never written over a file that is not JSON, and the
 * command it installs really refreshes the library.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { FAILURES } from '../src/core/errors.js';
import { tempDir } from './helpers/fixtures.js';
import { runCli } from './helpers/cli.js';

let home: string;
let library: string;
let settingsFile: string;
let env: Record<string, string>;

const ORIGINAL = {
  model: 'opus',
  permissions: { allow: ['Bash(npm test)'] },
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo pre' }] }],
    SessionEnd: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }],
  },
};

beforeEach(() => {
  const root = tempDir('bourdon-hook-');
  home = path.join(root, 'home');
  library = path.join(root, 'library');
  settingsFile = path.join(home, '.claude', 'settings.json');
  fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
  fs.writeFileSync(settingsFile, JSON.stringify(ORIGINAL, null, 4));
  env = { HOME: home, BOURDON_HOME: path.join(root, 'config') };
});

const settings = () => JSON.parse(fs.readFileSync(settingsFile, 'utf8'));

describe('the Claude Code SessionEnd hook', () => {
  it('is added next to the hooks already there, once, and removed leaving the rest as it was', async () => {
    const first = await runCli(['init', '--yes', '--claude-hook', '--library', library, '--json'], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).claude_hook).toMatchObject({ path: settingsFile, status: 'installed' });
    const after = settings();
    expect(after.model).toBe('opus');
    expect(after.permissions).toEqual(ORIGINAL.permissions);
    expect(after.hooks.PreToolUse).toEqual(ORIGINAL.hooks.PreToolUse);
    expect(after.hooks.SessionEnd).toHaveLength(2);
    expect(after.hooks.SessionEnd[0]).toEqual(ORIGINAL.hooks.SessionEnd[0]);
    const command: string = after.hooks.SessionEnd[1].hooks[0].command;
    expect(command).toMatch(/claude-code export --library /);

    const bytes = fs.readFileSync(settingsFile);
    const second = await runCli(['init', '--yes', '--claude-hook', '--library', library, '--json'], { env });
    expect(JSON.parse(second.stdout).claude_hook.status).toBe('exists');
    expect(fs.readFileSync(settingsFile).equals(bytes)).toBe(true);

    const removed = await runCli(['init', '--remove-claude-hook', '--json'], { env });
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse(removed.stdout).claude_hook.status).toBe('removed');
    expect(settings()).toEqual(ORIGINAL);
    const again = await runCli(['init', '--remove-claude-hook'], { env });
    expect(again.stdout).toContain('nothing changed');
  });

  it('the installed command refreshes the library from Claude Code memory', async () => {
    await runCli(['init', '--yes', '--claude-hook', '--library', library], { env });
    const memory = path.join(home, '.claude', 'projects', '-w', 'memory');
    fs.mkdirSync(memory, { recursive: true });
    fs.writeFileSync(path.join(memory, 'MEMORY.md'), 'index\n');
    fs.writeFileSync(path.join(memory, 'a.md'), '# Lighthouse\n\nA project.\n');
    const command: string = settings().hooks.SessionEnd[1].hooks[0].command;
    execFileSync('sh', ['-c', command], { env: { PATH: process.env.PATH ?? '', ...env }, cwd: home, stdio: 'pipe' });
    expect(fs.readFileSync(path.join(library, 'agents', 'claude-code.l5.yaml'), 'utf8')).toContain('Lighthouse');
  });

  it('refuses settings that are not JSON and leaves them untouched', async () => {
    fs.writeFileSync(settingsFile, '{ "model": "opus", // a comment\n}');
    const before = fs.readFileSync(settingsFile);
    const result = await runCli(['init', '--yes', '--claude-hook', '--library', library], { env });
    expect(result.code).toBe(FAILURES.invalid_input.exit);
    expect(result.stderr).toMatch(/^bourdon: .*settings\.json is not valid JSON/);
    expect(fs.readFileSync(settingsFile).equals(before)).toBe(true);
    expect(fs.existsSync(library), 'nothing else was set up either').toBe(false);
  });
});
