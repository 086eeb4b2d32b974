/**
 * Prose fits the terminal, on the real binary in an 80-column pseudo-terminal: messages,
 * recognition, diff summaries, doctor, init and mcp-config wrap at word boundaries with their
 * continuation indented, while piped output is left as it was. Also: a mistyped flag gets the
 * closest flag, and a bare `bourdon` fits a 40-line screen.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FAILURES } from '../src/core/errors.js';
import { runCli } from './helpers/cli.js';
import { demoLibrary } from './helpers/demo.js';
import { BIN } from './helpers/fixtures.js';
import { runInPty, stripAnsi } from './helpers/pty.js';
import { overlong } from './helpers/width.js';

// The harness's terminal is 120 columns wide; COLUMNS narrows it to the width of the report.
const WIDTH = 80;

let library: string;
let home: string;

beforeAll(async () => {
  ({ library, home } = await demoLibrary('bourdon-wrap'));
});

const env = (): Record<string, string> => ({ BOURDON_HOME: home, NO_COLOR: '1' });

/** The terminal's lines, as shown (the pty turns \n into \r\n). */
async function terminalLines(args: string[]): Promise<{ lines: string[]; code: number | null }> {
  const result = await runInPty(args, [], { env: { ...env(), COLUMNS: String(WIDTH) }, timeoutMs: 60_000 });
  // A carriage return redraws its line (the progress line does): keep what is left shown.
  const lines = stripAnsi(result.output)
    .trimEnd()
    .split('\n')
    .map((line) => line.replace(/\r$/, '').split('\r').pop() ?? '');
  return { lines, code: result.code };
}

const wide = (lines: string[]) => overlong(lines, WIDTH);

describe('prose wraps at the terminal width', () => {
  it('an error message: continuation indented; piped, one line', async () => {
    const missing = path.join('/nonexistent', 'a-rather-long-folder-name', 'that-keeps-going', 'agent-library');
    const shown = await terminalLines(['agents', '--library', missing]);
    expect(shown.code).toBe(FAILURES.not_found.exit);
    expect(wide(shown.lines)).toEqual([]);
    const message = shown.lines.filter((line) => !line.startsWith('See '));
    expect(message.length).toBeGreaterThan(1);
    expect(message[0]).toMatch(/^bourdon: library not found:/);
    for (const line of message.slice(1)) expect(line).toMatch(/^ {2}\S/);
    expect(message.join(' ').replace(/\s+/g, ' ')).toContain('or run `bourdon init`)');
    const piped = await runCli(['agents', '--library', missing], { env: env() });
    expect(piped.stderr.split('\n')[0]).toMatch(/^bourdon: library not found: .*`bourdon init`\)$/);
  });

  for (const [what, args] of [
    ['recognize', ['recognize', 'keep going on the sync engine bug', '--library']],
    ['doctor', ['doctor', '--offline', '--library']],
    ['diff', ['diff', 'codex', '3', '--library']],
  ] as const) {
    it(`${what}: no line wider than the terminal`, async () => {
      const shown = await terminalLines([...args, library]);
      expect(shown.code).toBe(0);
      expect(shown.lines.length).toBeGreaterThan(2);
      expect(wide(shown.lines)).toEqual([]);
    });
  }

  it('doctor: a continued line starts under the summary column', async () => {
    const shown = await terminalLines(['doctor', '--offline', '--library', library]);
    const at = shown.lines.findIndex((line) => /^info\s+HTTP auth/.test(line));
    const [line, next] = [shown.lines[at], shown.lines[at + 1]];
    if (line === undefined || next === undefined)
      throw new Error(`no continued HTTP auth line:\n${shown.lines.join('\n')}`);
    const column = line.indexOf('not configured');
    expect(next.slice(0, column).trim()).toBe('');
    expect(next[column]).toMatch(/\S/);
  });

  it('init and mcp-config: banner, steps, Next and comments fit', async () => {
    const target = path.join(home, 'a-new-library-with-a-long-name-to-push-the-lines-past-the-width');
    const init = await terminalLines(['init', '--yes', '--library', target, '--host', 'claude-code']);
    expect(init.code).toBe(0);
    // The snippet is file content, shown whole; the prose and the command around it fit.
    const prose = init.lines.filter((line) => !/^\s*"/.test(line));
    expect(wide(prose)).toEqual([]);
    const config = await runInPty(
      ['mcp-config', '--host', 'codex', '--http', 'https://desk.tailnet.example:7500'],
      [],
      {
        env: { ...env(), COLUMNS: '60' },
        separateStderr: true,
        timeoutMs: 60_000,
      },
    );
    expect(config.code).toBe(0);
    // stderr is a pipe here, but COLUMNS names the width: comments wrap, each line a comment,
    // but for the command under `# or run:`, continued with ` \` so that it pastes.
    const lines = config.stderr.trimEnd().split('\n');
    const command = lines.indexOf('# or run:') + 1;
    let end = command;
    while (lines[end]?.endsWith(' \\')) end++;
    expect(end).toBeGreaterThan(command);
    for (const line of [...lines.slice(0, command), ...lines.slice(end + 1)]) expect(line).toMatch(/^#/);
    expect(overlong(lines, 60)).toEqual([]);
  });
});

describe('suggestions and the bare command', () => {
  it('a mistyped flag gets the closest flag, as a mistyped command gets the closest command', async () => {
    const result = await runCli(['recent', '--sinse', '7d', '--library', library], { env: env() });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(
      'bourdon: Nonexistent flag: --sinse; did you mean --since? (see `bourdon recent --help`)',
    );
    const json = await runCli(['recent', '--lmit', '3', '--json', '--library', library], { env: env() });
    expect(JSON.parse(json.stdout)).toEqual({
      error: 'Nonexistent flag: --lmit; did you mean --limit?',
      code: 'usage',
    });
    const far = await runCli(['recent', '--zzzzzz', '--library', library], { env: env() });
    expect(far.stderr).not.toContain('did you mean');
  });

  it('a bare `bourdon` prints a short overview that fits 40 lines; `bourdon help` lists everything', async () => {
    const shown = await terminalLines([]);
    expect(shown.code).toBe(0);
    expect(shown.lines.length).toBeLessThanOrEqual(40);
    expect(wide(shown.lines)).toEqual([]);
    const text = shown.lines.join('\n');
    for (const id of ['init', 'export-all', 'find', 'query', 'recent', 'commit', 'doctor'])
      expect(text).toMatch(new RegExp(`^ {2}${id}\\s`, 'm'));
    expect(text).toContain('`bourdon help`');
    const help = await runCli(['help'], { env: env() });
    expect(help.stdout).toContain('MEMBERS AND TRUST');
    expect(help.stdout.split('\n').length).toBeGreaterThan(40);
  });
});

describe('status colours', () => {
  it('status values are coloured on a terminal (active green), plain with NO_COLOR or piped', async () => {
    const args = ['workstreams', '--library', library, '--access-level', 'team'];
    const coloured = await runInPty(args, [], { env: { BOURDON_HOME: home, NO_COLOR: '' }, timeoutMs: 60_000 });
    expect(coloured.output).toContain('\u001b[32mactive\u001b[39m');
    const plain = await runInPty(args, [], { env: { BOURDON_HOME: home, NO_COLOR: '1' }, timeoutMs: 60_000 });
    expect(plain.output).toContain('active');
    expect(plain.output).not.toContain('\u001b[32m');
  });
});

describe('completion of agent ids', () => {
  /** What bash would offer for the words typed (the last one is being completed). */
  async function complete(typed: string[], extraEnv: Record<string, string> = {}): Promise<string[]> {
    const bin = path.join(home, 'bin');
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(path.join(bin, 'bourdon'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, {
      mode: 0o755,
    });
    const words = typed.map((word) => `'${word}'`).join(' ');
    const script = `source <(bourdon completion bash)\nCOMP_WORDS=(${words}); COMP_CWORD=${typed.length - 1}\n_bourdon_complete\nprintf '%s\\n' "\${COMPREPLY[@]}"`;
    const out = execFileSync('bash', ['-c', script], {
      env: { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: home, BOURDON_HOME: home, ...extraEnv },
      encoding: 'utf8',
    });
    return out.split('\n').filter(Boolean);
  }

  it("completes an agent argument from the command's own --library, else BOURDON_LIBRARY", async () => {
    expect(await complete(['bourdon', 'history', '--library', library, 'co'])).toEqual(['codex']);
    expect(await complete(['bourdon', 'rollback', 'cl'], { BOURDON_LIBRARY: library })).toEqual([
      'claude-code',
      'claude-desktop',
    ]);
    expect(await complete(['bourdon', 'note', 'add', 'cu'], { BOURDON_LIBRARY: library })).toEqual(['cursor']);
  });

  it('completes --agent values, and nothing from a library that does not exist', async () => {
    expect(await complete(['bourdon', 'recent', '--library', library, '--agent', 'cod'])).toEqual(['codex']);
    expect(await complete(['bourdon', 'recent', '--agent', 'c'], { BOURDON_LIBRARY: path.join(home, 'none') })).toEqual(
      [],
    );
  });

  it('still completes commands and flags as before, and only the first argument is an agent', async () => {
    expect(await complete(['bourdon', 'hist'])).toEqual(['history']);
    expect(await complete(['bourdon', 'history', 'codex', '--li'], { BOURDON_LIBRARY: library })).toEqual([
      '--library',
      '--limit',
    ]);
  });
});

describe('list-notes gives the text the room', () => {
  it('one date column (WHEN), tags cut before the note, at 80 columns', async () => {
    const result = await runCli(['list-notes', '--since', '30d', '--access-level', 'team', '--library', library], {
      env: { ...env(), COLUMNS: '80' },
    });
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^WHEN\s+ID\s+NOTE\s+TAGS$/);
    expect(overlong(lines, 80)).toEqual([]);
    // The note keeps 40 characters and more where DATE, WHEN and long tags left it about 20.
    expect(result.stdout).toContain('Merge ordering: Vector clocks tie on simu');
    const wide = await runCli(
      ['list-notes', '--since', '30d', '--access-level', 'team', '--wide', '--library', library],
      {
        env: { ...env(), COLUMNS: '80' },
      },
    );
    expect(wide.stdout).toContain('@Sync Engine');
  });
});
