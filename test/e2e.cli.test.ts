/** The binary as a user meets it: exit codes, one-line errors, --json on stdout only. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILURES } from '../src/core/errors.js';
import { runCli } from './helpers/cli.js';
import { copyFixtureLibrary, tempDir } from './helpers/fixtures.js';

describe('bourdon CLI', () => {
  let library: string;
  beforeAll(() => {
    library = copyFixtureLibrary();
  });
  afterAll(() => fs.rmSync(library, { recursive: true, force: true }));

  it('a missing library is one clear line and exit 4 (not found)', async () => {
    const missing = path.join(tempDir(), 'nope');
    const result = await runCli(['find', 'Bourdon', '--library', missing]);
    expect(result.code).toBe(FAILURES.not_found.exit);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringContaining(`library not found: ${missing}`)]);
    expect(result.stderr).not.toMatch(/\bat .+\.js:\d+/);
  });

  it('a missing library under --json is {"error": …, "code": "not_found"} on stdout', async () => {
    const result = await runCli(['agents', '--json', '--library', '/definitely/not/here']);
    expect(result.code).toBe(FAILURES.not_found.exit);
    expect(JSON.parse(result.stdout)).toEqual({
      error: expect.stringContaining('library not found'),
      code: 'not_found',
    });
  });

  it('bad flags and missing arguments exit 2', async () => {
    const flag = await runCli(['find', 'x', '--no-such-flag', '--library', library]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--no-such-flag');
    const arg = await runCli(['query', 'only-agent', '--library', library]);
    expect(arg.code).toBe(2);
    const level = await runCli(['find', 'x', '--access-level', 'secret', '--library', library]);
    expect(level.code).toBe(2);
  });

  it('BOURDON_LIBRARY is used when --library is absent, and the flag wins over it', async () => {
    const viaEnv = await runCli(['agents', '--json'], { env: { BOURDON_LIBRARY: library } });
    expect(viaEnv.code).toBe(0);
    expect(JSON.parse(viaEnv.stdout).agents).toContain('claude-code');
    const flagWins = await runCli(['agents', '--json', '--library', library], {
      env: { BOURDON_LIBRARY: '/not/here' },
    });
    expect(flagWins.code).toBe(0);
  });

  it('--json output is valid JSON on stdout and nothing else; warnings stay on stderr', async () => {
    const result = await runCli(['recent', '--since', '2026-01-01', '--json', '--library', library]);
    expect(result.code).toBe(0);
    expect(() => JSON.parse(result.stdout)).not.toThrow();
    expect(result.stderr).toContain('broken.l5.yaml');
  });

  it('human output carries no ANSI codes when stdout is not a TTY', async () => {
    const result = await runCli(['find', 'Bourdon', '--library', library], { env: { NO_COLOR: undefined } });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Bourdon');
    // eslint-disable-next-line no-control-regex
    expect(result.stdout).not.toMatch(/\u001b\[/);
  });

  it('recent --all follows cursors into one page', async () => {
    const paged = await runCli([
      'recent',
      '--since',
      '2026-01-01',
      '--limit',
      '2',
      '--all',
      '--json',
      '--access-level',
      'team',
      '--library',
      library,
    ]);
    expect(paged.code).toBe(0);
    const payload = JSON.parse(paged.stdout);
    expect(payload.sessions).toHaveLength(10);
    expect(payload.has_more).toBe(false);
    expect(payload.next_cursor).toBeNull();
  });

  it('demo runs on its built-in library and shows what agents learn from each other', async () => {
    const result = await runCli(['demo'], { timeoutMs: 30_000 });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("You're asking about Sync Engine and Release 2.4");
    expect(result.stdout).toContain('claude-code says:');
  });

  it('demo at 80 columns wraps what it explains instead of cutting it off', async () => {
    const result = await runCli(['demo'], { timeoutMs: 30_000, env: { COLUMNS: '80' } });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.filter((line) => line.length > 80)).toEqual([]);
    expect(result.stdout).not.toContain('…');
    // The point of the last step, whole once its continued lines are joined.
    const joined = lines.map((line) => line.trim()).join(' ');
    expect(joined).toContain('(the row is private: it never leaves the machine unless asked for locally)');
    expect(joined).toContain('can you pick up the sync engine bug before release 2.4?');
  });
});
