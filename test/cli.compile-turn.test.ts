/**
 * `bourdon compile-turn`, the real binary: `--json` prints exactly the brief the tool answers
 * (the recorded turn cases, run from each case's folder with its HOME and frozen clock), the
 * brief reads at 80 columns, a refused argument is one line with the engine's words, and Codex's
 * state database is read confined to the Codex home as the codex exporter reads it.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAILURES } from '../src/core/errors.js';
import { runCli } from './helpers/cli.js';
import { materialiseTurnCase, turnCaseIds, turnServer, type TurnCase } from './helpers/turn-cases.js';
import { displayWidth } from '../src/cli/width.js';

/** The tool arguments as the command's flags. */
function cliArgs(turn: TurnCase): string[] {
  const args = turn.args as {
    prompt?: string;
    cwd?: string;
    access_level?: string;
    max_items?: number;
    max_chars?: number;
  };
  const out = [args.prompt ?? '', '--library', turn.library];
  if (args.cwd !== undefined) out.push(`--cwd=${args.cwd}`);
  if (args.access_level !== undefined) out.push('--access-level', args.access_level);
  if (args.max_items !== undefined) out.push('--max-items', String(args.max_items));
  if (args.max_chars !== undefined) out.push('--max-chars', String(args.max_chars));
  return out;
}

const run = (turn: TurnCase, extra: string[], env: Record<string, string> = {}) =>
  runCli(['compile-turn', ...cliArgs(turn), ...extra], { env: { ...turn.env, ...env }, cwd: turn.cwd });

const answered = turnCaseIds().filter((id) => !materialiseTurnCase(id).expectError);

describe('bourdon compile-turn', () => {
  it.each(answered)('--json prints the tool payload: %s', async (id) => {
    const turn = materialiseTurnCase(id);
    const result = await run(turn, ['--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(turn.expected);
  });

  it('prints the anchors readably within 80 columns', async () => {
    const turn = materialiseTurnCase('t_threads');
    const expected = turn.expected as { items: { name: string; kind: string }[] };
    const result = await run(turn, [], { COLUMNS: '80' });
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(80);
    expect(lines[0]).toBe('Codex turn brief · repo iltt · native Stage 1 available');
    const text = result.stdout.replace(/\n +/g, ' ');
    for (const [index, item] of expected.items.entries())
      expect(text).toContain(`${index + 1}. ${item.name} [${item.kind},`);
  });

  it('says so when nothing is recognised', async () => {
    const turn = materialiseTurnCase('t_bare');
    const result = await run(turn, []);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      'Codex turn brief · folder home, no git repository · native Stage 1 unknown\n' +
        'No recognition anchors for this turn: Codex continues without a brief.\n',
    );
  });

  it.each([
    ['t_err_max_chars', ['--max-chars', '399']],
    ['t_err_max_items', ['--max-items', '21']],
    ['t_err_access', ['--access-level', 'Team', '--max-chars', '10']],
  ])('refuses %s in one line with the engine message, as invalid input (exit 6)', async (id, flags) => {
    const turn = materialiseTurnCase(id);
    const { message } = (turn.expected as { error: { message: string } }).error;
    const result = await runCli(['compile-turn', 'bourdon', '--library', turn.library, ...flags], {
      env: turn.env,
      cwd: turn.cwd,
    });
    expect(result.code).toBe(FAILURES.invalid_input.exit);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`bourdon: ${message}\n`);
  });
});

describe("compile-turn reads Codex's state database confined (docs/security.md)", () => {
  /** t_threads with a change only in the state database's log: th-5 retitled; the log and the main file as it was kept outside the home. */
  function caseWithLogOutside() {
    const turn = materialiseTurnCase('t_threads');
    const state = path.join(turn.home, '.codex', 'state_5.sqlite');
    const elsewhere = path.join(path.dirname(turn.home), 'elsewhere');
    fs.mkdirSync(elsewhere);
    const script = [
      'import sqlite3,sys,shutil',
      'c=sqlite3.connect(sys.argv[1],isolation_level=None)',
      "c.execute('PRAGMA journal_mode=WAL'); c.execute('PRAGMA wal_autocheckpoint=0')",
      "c.execute(\"UPDATE threads SET title='SecretWalTitle42 ILTT sync workouts' WHERE id='th-5'\")",
      "shutil.copy(sys.argv[1], sys.argv[2]); shutil.copy(sys.argv[1] + '-wal', sys.argv[3])",
    ].join('\n');
    const kept = { main: path.join(elsewhere, 'main.sqlite'), wal: path.join(elsewhere, 'kept-wal') };
    const python = spawnSync('python3', ['-c', script, state, kept.main, kept.wal], { encoding: 'utf8' });
    expect(python.status, python.stderr).toBe(0);
    for (const suffix of ['-wal', '-shm']) fs.rmSync(state + suffix, { force: true });
    fs.copyFileSync(kept.main, state);
    return { turn, state, kept };
  }

  it('a write-ahead log that is a link out of the Codex home is not followed, with one warning; the brief is the checkpointed rows', async () => {
    const { turn, state, kept } = caseWithLogOutside();
    fs.symlinkSync(kept.wal, `${state}-wal`);
    const result = await run(turn, ['--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toContain('SecretWalTitle42');
    expect(JSON.parse(result.stdout)).toEqual(turn.expected);
    const lines = result.stderr.split('\n').filter(Boolean);
    expect(lines, result.stderr).toHaveLength(1);
    expect(lines[0]).toContain(`${state}-wal: skipped`);
    // The same log beside the database, not a link, is read: the refusal is the link's.
    fs.rmSync(`${state}-wal`);
    fs.copyFileSync(kept.wal, `${state}-wal`);
    const again = await run(turn, ['--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toBe('');
    expect(again.stdout).toContain('SecretWalTitle42');
  });

  it('a state database that is a link out of the Codex home is not read, with one warning naming it: no thread in the brief', async () => {
    const { turn, state, kept } = caseWithLogOutside();
    fs.rmSync(state);
    fs.symlinkSync(kept.main, state);
    const result = await run(turn, ['--json']);
    expect(result.code, result.stderr).toBe(0);
    const brief = JSON.parse(result.stdout) as { items: { kind: string }[]; health: { native_stage1: string } };
    expect(brief.items.filter((item) => item.kind === 'thread')).toEqual([]);
    expect(brief.health.native_stage1).toBe('unknown');
    const codexHome = path.dirname(state);
    expect(result.stderr).toBe(`bourdon: warning: ${state}: skipped, it is a link leading outside ${codexHome}\n`);
  });

  it('a long-running server says that refusal once, when it reads the database, not on every warm turn', async () => {
    const { turn, state, kept } = caseWithLogOutside();
    fs.rmSync(state);
    fs.symlinkSync(kept.main, state);
    const server = await turnServer(turn, 'confined-turns');
    try {
      for (let call = 0; call < 3; call++) {
        const result = await server.client.callTool({ name: 'compile_codex_turn', arguments: turn.args });
        expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      }
    } finally {
      await server.close();
    }
    const stderr = server.stderr();
    const named = stderr.split('\n').filter((line) => line.includes('state_5.sqlite'));
    expect(named, stderr).toEqual([
      `bourdon: warning: ${state}: skipped, it is a link leading outside ${path.dirname(state)}`,
    ]);
  });
});
