/**
 * Prompts fit the terminal (issue 44, item 6): on the real binary in a pseudo-terminal 80 and
 * 60 columns wide, a confirmation (`rollback`) and init's questions wrap at word boundaries,
 * each continued line under the question's first word (not at the first column, under the
 * `?`), and the ` (y/N)` stays with the question's last word.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';
import { ANSI, runInPty, stripAnsi } from './helpers/pty.js';

const ENTER = '\r';

/**
 * The lines the terminal showed, each redraw of a prompt on lines of its own: the prompt
 * library moves the cursor between redraws (colour is off, so every escape is a move).
 */
function screenLines(output: string): string[] {
  return output.replace(ANSI, '\n').split(/\r?\n|\r/);
}

/**
 * The question that starts with `start` as first drawn: its line and the continued lines up to
 * the one that ends with `(y/N)`/`(Y/n)` (a confirm) or, for `lines` more than one, that count.
 */
function question(lines: string[], start: string): string[] {
  const first = lines.findIndex((line) => line.startsWith(`? ${start}`));
  expect(first, `no question starting "${start}"`).toBeGreaterThanOrEqual(0);
  const end = lines.findIndex((line, index) => index >= first && /\((?:y\/N|Y\/n)\)\s*$/.test(line));
  expect(end, `"${start}" has no (y/N)`).toBeGreaterThanOrEqual(first);
  return lines.slice(first, end + 1);
}

/** Where the wrapper may break a word too long for a line: after one of these, else anywhere. */
const BREAK_MARKS = '/-_.?&=,;:';

/**
 * The lines fit `columns`, each continued line sits under the question's first word, and the
 * lines are `full` broken only between words, or inside a word too long for a line after one
 * of its break marks (a path between its folders) or at the line's edge — whatever the length
 * of the temp folder the paths in the question live in.
 */
function expectFitted(shown: string[], full: string, columns: number): void {
  for (const line of shown) expect(line.length, line).toBeLessThanOrEqual(columns);
  for (const line of shown.slice(1)) expect(line, shown.join('\n')).toMatch(/^ {2}\S/);
  let at = 0;
  shown.forEach((line, index) => {
    const text = index === 0 ? line.trimEnd() : line.trim();
    if (index > 0) {
      if (full[at] === ' ') at += 1;
      else {
        const brokenAt = full[at - 1] ?? '';
        const atEdge = shown[index - 1]!.length === columns;
        expect(
          BREAK_MARKS.includes(brokenAt) || atEdge,
          `broken inside a word after "${brokenAt}": ${shown.join('\n')}`,
        ).toBe(true);
      }
    }
    expect(full.slice(at, at + text.length), shown.join('\n')).toBe(text);
    at += text.length;
  });
  expect(at).toBe(full.length);
}

describe('prompts wrap at word boundaries in a narrow terminal', () => {
  let library: string;
  let home: string;
  let userHome: string;
  beforeAll(async () => {
    library = tempDir('bourdon-prompts-lib-');
    home = tempDir('bourdon-prompts-home-');
    userHome = tempDir('bourdon-prompts-user-');
    fs.mkdirSync(path.join(library, 'agents'));
    fs.mkdirSync(path.join(userHome, '.claude'));
    for (const entity of ['Orbit', 'Lyra']) {
      const commit = await runCli(
        ['commit', 'codex', '-f', '-', '--agent-type', 'code-assistant', '--library', library],
        {
          env: { BOURDON_HOME: home },
          input: JSON.stringify({ entities: [{ name: entity, summary: entity }] }),
        },
      );
      expect(commit.code, commit.stderr).toBe(0);
    }
  });
  afterAll(() => {
    for (const dir of [library, home, userHome]) fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const columns of [80, 60]) {
    it(`rollback's confirmation at ${columns} columns`, async () => {
      const result = await runInPty(
        ['rollback', 'codex', '1', '--library', library],
        [{ expect: /\(y\/N\)/, send: `n${ENTER}` }],
        { columns, env: { BOURDON_HOME: home, NO_COLOR: '1' }, timeoutMs: 60_000 },
      );
      expect(result.unanswered).toEqual([]);
      const shown = question(screenLines(result.output), 'Restore codex');
      expect(shown.length).toBeGreaterThan(1);
      const full = shown.map((line) => line.trim()).join(' ');
      expect(full).toMatch(
        /^\? Restore codex to version 1 \(commit at .+ UTC, 1 entity, 0 sessions, 0 notes\)\? \(y\/N\)$/,
      );
      expectFitted(shown, full, columns);
    }, 90_000);

    it(`init's questions at ${columns} columns`, async () => {
      const settings = path.join(userHome, '.claude', 'settings.json');
      const result = await runInPty(
        ['init', '--library', path.join(library, 'new')],
        [
          { expect: /Library\s+folder/, send: ENTER },
          { expect: '(y/N)', send: ENTER },
          { expect: 'Add a peer', send: ENTER },
          { expect: /Print the MCP config for[\s\S]*❯ claude-code/, send: ENTER },
          { expect: /settings\.json\)\?\s+\(Y\/n\)/, send: `n${ENTER}` },
          { expect: 'Keep the library current by itself', send: `n${ENTER}` },
        ],
        { columns, env: { BOURDON_HOME: home, HOME: userHome, NO_COLOR: '1' }, timeoutMs: 60_000 },
      );
      expect(result.unanswered).toEqual([]);
      expect(result.code, stripAnsi(result.output)).toBe(0);
      const lines = screenLines(result.output);
      const member = question(lines, 'Register a member');
      expectFitted(member, '? Register a member who may call this server over HTTP? (y/N)', columns);
      const hook = question(lines, 'Refresh the library');
      expect(hook.length).toBeGreaterThan(1);
      expectFitted(
        hook,
        `? Refresh the library after every Claude Code session (a SessionEnd hook in ${settings})? (Y/n)`,
        columns,
      );
    }, 90_000);
  }
});
