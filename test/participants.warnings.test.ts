/**
 * What a terminal is told (issue 50, item 8), through the real binary: one warning is one line
 * (a file name holding a line break cannot forge a second `bourdon:` line); a FIFO in any
 * store — claude-code's memory, the brain's LOG/, codex's sessions/, cascade's memory file — is
 * skipped with one warning naming it, as every participant reads through the shared reader; and
 * a copilot-cli database that runs out of time is one warning, not one per table it holds.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { warningLine } from '../src/core/store/warn.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';

const EPOCH = '1764806400';

function write(file: string, text: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

function fifo(file: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const made = spawnSync('mkfifo', [file], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(made.stderr);
  return file;
}

/** The lines of stderr that name `name`. */
const linesNaming = (stderr: string, name: string) => stderr.split('\n').filter((line) => line.includes(name));

/** A claude-code home with one auto-memory folder holding a note. */
function claudeHome(): { root: string; home: string; memory: string } {
  const root = tempDir('bourdon-warnings-');
  const home = path.join(root, 'home');
  const memory = path.join(home, '.claude', 'projects', '-work-app', 'memory');
  write(path.join(memory, 'MEMORY.md'), '# index\n');
  write(path.join(memory, 'parser.md'), '---\nname: Parser\ntype: project\n---\n\nShipped the parser.\n');
  return { root, home, memory };
}

describe('one warning, one line', () => {
  it('a file name with a line break is shown escaped on its warning line, never as a line of its own', async () => {
    const { root, home, memory } = claudeHome();
    write(path.join(root, 'outside.md'), 'not the store\n');
    // A link out of the store (refused with a warning naming it), named to forge a second line.
    const forged = 'evil\nbourdon: claude-code: all clear, nothing skipped.md';
    fs.symlinkSync(path.join(root, 'outside.md'), path.join(memory, forged));
    const out = path.join(root, 'out.yaml');
    const result = await runCli(['claude-code', 'export', '--out', out], {
      env: { HOME: home, CLAUDE_BRAIN: undefined, SOURCE_DATE_EPOCH: EPOCH },
      cwd: root,
    });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stderr.split('\n').filter(Boolean);
    expect(
      lines.filter((line) => line.startsWith('bourdon: claude-code: all clear')),
      result.stderr,
    ).toEqual([]);
    const warning = linesNaming(result.stderr, 'all clear');
    expect(warning, result.stderr).toHaveLength(1);
    expect(warning[0]).toContain('evil\\u000abourdon: claude-code: all clear, nothing skipped.md: skipped');
    expect(fs.readFileSync(out, 'utf8')).toContain('Parser');
  });

  it('export-all prints a participant’s warnings one line each too', async () => {
    const { root, home, memory } = claudeHome();
    write(path.join(root, 'outside.md'), 'not the store\n');
    fs.symlinkSync(path.join(root, 'outside.md'), path.join(memory, 'x\r\nbourdon: forged.md'));
    const result = await runCli(['export-all', '--dry-run'], {
      env: { HOME: home, CLAUDE_BRAIN: undefined, SOURCE_DATE_EPOCH: EPOCH, BOURDON_HOME: path.join(root, 'bh') },
      cwd: root,
    });
    expect(
      result.stderr.split('\n').filter((line) => line.startsWith('bourdon: forged')),
      result.stderr,
    ).toEqual([]);
    expect(linesNaming(result.stderr, 'forged.md'), result.stderr).toHaveLength(1);
    expect(result.stderr).toContain('x\\u000d\\u000abourdon: forged.md');
  });
});

describe('the server’s and the core’s own stderr lines', () => {
  it('escape a line break and every other control character, so a message stays one line', () => {
    expect(warningLine('bourdon: mcp: ', 'peer said a\nbourdon: mcp: ok\r\u001b[31m')).toBe(
      'bourdon: mcp: peer said a\\u000abourdon: mcp: ok\\u000d\\u001b[31m\n',
    );
  });
});

describe('FIFOs are skipped with one warning, by every participant', () => {
  it('claude-code: a FIFO in the auto-memory folder and in the brain’s LOG/', async () => {
    const { root, home, memory } = claudeHome();
    const note = fifo(path.join(memory, 'pipe.md'));
    const brain = path.join(home, 'claude-brain');
    write(path.join(brain, 'LOG', '2026-12-01-real.md'), 'Shipped the parser.\n');
    const log = fifo(path.join(brain, 'LOG', '2026-12-02-pipe.md'));
    // A FIFO where a folder is looked for: the brain's PROJECTS/.
    const projects = fifo(path.join(brain, 'PROJECTS'));
    const out = path.join(root, 'out.yaml');
    const result = await runCli(['claude-code', 'export', '--out', out], {
      env: { HOME: home, CLAUDE_BRAIN: brain, SOURCE_DATE_EPOCH: EPOCH },
      cwd: root,
    });
    expect(result.code, result.stderr).toBe(0);
    for (const file of [note, log, projects]) {
      expect(linesNaming(result.stderr, file), result.stderr).toEqual([
        `bourdon: ${file}: skipped, not a regular file (a FIFO)`,
      ]);
    }
    const manifest = fs.readFileSync(out, 'utf8');
    expect(manifest).toContain('Parser');
    expect(manifest).toContain('Shipped the parser.');
  });

  it('codex: a FIFO among the rollouts of sessions/', async () => {
    const root = tempDir('bourdon-warnings-codex-');
    const home = path.join(root, 'home');
    const rollout = fifo(
      path.join(home, '.codex', 'sessions', '2026', '12', '01', 'rollout-2026-12-01T10-00-00-a.jsonl'),
    );
    // The session index names the session, so its rollout is looked for under sessions/.
    write(
      path.join(home, '.codex', 'session_index.jsonl'),
      JSON.stringify({ id: 'a', thread_name: 'Ship the parser', updated_at: '2026-12-01T10:00:00Z' }) + '\n',
    );
    const out = path.join(root, 'out.yaml');
    const result = await runCli(['codex', 'export', '--out', out], {
      env: { HOME: home, CODEX_HOME: undefined, SOURCE_DATE_EPOCH: EPOCH },
      cwd: root,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(linesNaming(result.stderr, rollout), result.stderr).toEqual([
      `bourdon: ${rollout}: skipped, not a regular file (a FIFO)`,
    ]);
  });

  it('cascade: its memory file as a FIFO is one warning, in the words every participant uses', async () => {
    const root = tempDir('bourdon-warnings-cascade-');
    const home = path.join(root, 'home');
    const file = fifo(path.join(home, '.cascade-bourdon', 'memory.md'));
    const out = path.join(root, 'out.yaml');
    const result = await runCli(['cascade', 'export', '--out', out], {
      env: { HOME: home, SOURCE_DATE_EPOCH: EPOCH },
      cwd: root,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(linesNaming(result.stderr, file), result.stderr).toEqual([
      `bourdon: ${file}: skipped, not a regular file (a FIFO)`,
    ]);
  });
});

describe('one cause, one warning', () => {
  it('copilot-cli: a database that runs out of time is one warning, not one per table', async () => {
    const root = tempDir('bourdon-warnings-copilot-');
    const home = path.join(root, 'home');
    const store = path.join(home, '.copilot', 'session-store.db');
    fs.mkdirSync(path.dirname(store), { recursive: true });
    // session_files.file_path is a generated column that takes minutes: the first query of it
    // runs out of time, and the session's refs, checkpoints and turns come after it.
    const script = [
      'import sqlite3, sys',
      'c = sqlite3.connect(sys.argv[1])',
      'inner = "printf(\'%.*c\', 100000000, raw)"',
      "for i in range(8): inner = 'upper(lower(%s))' % inner",
      "c.execute('CREATE TABLE sessions (id TEXT, cwd TEXT, repository TEXT, branch TEXT, summary TEXT, created_at TEXT, updated_at TEXT)')",
      "c.execute(\"INSERT INTO sessions VALUES ('s1', '/w', 'acme/app', 'main', 'Ship it', '2026-12-01T10:00:00Z', '2026-12-01T10:00:00Z')\")",
      "c.execute('CREATE TABLE session_files (session_id TEXT, raw TEXT)')",
      "for i in range(20): c.execute(\"INSERT INTO session_files VALUES ('s1', 'a')\")",
      "c.execute('CREATE TABLE session_refs (session_id TEXT, ref_type TEXT, ref_value TEXT)')",
      "c.execute('CREATE TABLE checkpoints (session_id TEXT, checkpoint_number INTEGER, title TEXT, overview TEXT)')",
      "c.execute('CREATE TABLE turns (session_id TEXT)')",
      'c.commit()',
      "c.execute('ALTER TABLE session_files ADD COLUMN file_path TEXT GENERATED ALWAYS AS (substr(%s, 1, 10)) VIRTUAL' % inner)",
      'c.commit()',
    ].join('\n');
    const made = spawnSync('python3', ['-c', script, store], { encoding: 'utf8' });
    if (made.status !== 0) throw new Error(made.stderr);
    const out = path.join(root, 'out.yaml');
    const result = await runCli(['copilot-cli', 'export', '--out', out], {
      env: {
        HOME: home,
        COPILOT_CLI_HOME: undefined,
        SOURCE_DATE_EPOCH: EPOCH,
        BOURDON_SOURCE_READ_TIMEOUT: '1',
      },
      cwd: root,
    });
    expect(result.code, result.stderr).toBe(0);
    const warnings = linesNaming(result.stderr, 'session-store.db');
    expect(warnings, result.stderr).toHaveLength(1);
    expect(warnings[0]).toMatch(/session-store\.db: took longer than 1 s to read/);
  });
});
