/**
 * The automation participants' rules beyond the recorded cases (conformance/participants/README.md,
 * claude_code_automations … copilot_automations): run headers, the action filters of each
 * style, the cap and de-duplication, titles and their two ellipses, project hints and whole-word
 * signals, --since, duplicate ids, the private status tag, odd TOML values, copilot's repos, the
 * 160,000-character tail; then broken and hostile inputs (invalid TOML, invalid UTF-8, a
 * memory.md that is a folder, link loops, a huge memory.md), and exports through the real binary.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { tomlText } from '../src/participants/automations/automations.js';
import {
  claudeCodeAutomationsParticipant,
  codexAutomationsParticipant,
  copilotAutomationsParticipant,
  cursorAutomationsParticipant,
} from '../src/participants/automations/index.js';
import {
  compileSignals,
  runActions,
  runProjects,
  runSignals,
  runTitle,
  splitRuns,
  type Run,
} from '../src/participants/automations/runs.js';
import {
  CLAUDE_CODE_AUTOMATIONS,
  CODEX_AUTOMATIONS,
  CURSOR_AUTOMATIONS,
} from '../src/participants/automations/variants.js';
import type { ExportEnvironment, Participant } from '../src/participants/kit/participant.js';
import { parse as parseToml } from 'smol-toml';
import { runCli, type CliResult } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';
import { exportEnvironment } from './helpers/participant-cases.js';
import { sinceOf } from '../src/participants/kit/since.js';

type Row = Record<string, unknown>;
interface Manifest extends Row {
  recent_sessions: Row[];
  known_entities: Row[];
}

function write(file: string, content: string | Buffer): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
}

/** Writes `<dir>/<folder>/automation.toml` (and memory.md when given). */
function automation(dir: string, folder: string, toml: string | Buffer, memory?: string | Buffer): void {
  write(path.join(dir, folder, 'automation.toml'), toml);
  if (memory !== undefined) write(path.join(dir, folder, 'memory.md'), memory);
}

async function exported(
  participant: Participant,
  home: string,
  extra: Partial<ExportEnvironment> = {},
): Promise<{ manifest: Manifest; warnings: readonly string[] }> {
  const result = await participant.export(exportEnvironment(home, extra));
  return { manifest: result.manifest as unknown as Manifest, warnings: result.warnings };
}

const names = (rows: Row[] | undefined) => (rows ?? []).map((row) => row.name);
const run = (...actions: string[]): Run => ({ date: '2026-04-28', actions });

describe('run memory', () => {
  it('takes a header from a dated line followed by its end or a non-word character, digits unchecked', () => {
    const text = [
      '# Heading above the first run',
      '- not a run',
      '2026-04-28 -- nightly run',
      '- a',
      '2026-04-30:',
      '- b',
      '  2026-04-27 — build 1.8.2 check',
      '2026-19-99',
      '- c',
      '2026-04-05T08:30 is a line of the run above',
      '## 2026-04-30 also a line',
      '2026-04-29_x also a line',
      '2026-4-29 also a line',
      '2026-04-28',
      '- a second run on the same date',
    ].join('\n');
    expect(splitRuns(text, 'markers')).toEqual([
      { date: '2026-04-28', actions: ['nightly run', 'a'] },
      { date: '2026-04-30', actions: ['b'] },
      { date: '2026-04-27', actions: ['build 1.8.2 check'] },
      {
        date: '2026-19-99',
        actions: [
          'c',
          '2026-04-05T08:30 is a line of the run above',
          '## 2026-04-30 also a line',
          '2026-04-29_x also a line',
          '2026-4-29 also a line',
        ],
      },
      { date: '2026-04-28', actions: ['a second run on the same date'] },
    ]);
  });

  it('drops a run without actions, and reads CRLF, U+2028 and other Python line breaks', () => {
    expect(splitRuns('2026-04-30:\n- runtime 12s\n\n2026-05-01\r\n- one\u2028- two\v- three\n', 'markers')).toEqual([
      { date: '2026-05-01', actions: ['one', 'two', 'three'] },
    ]);
  });

  it('skips bookkeeping lines with markers, and only `runtime…` lines for copilot', () => {
    const lines = [
      '- first run',
      '- FOLLOW-UP',
      '- Runtime: 3s',
      '- runtimes are skipped too',
      '- run: Closed 3 stale PRs',
      '- RUN:',
      '-  - one dash removed',
      '* a star bullet keeps its star',
      '   ',
    ];
    expect(runActions(lines, 'markers')).toEqual([
      'Closed 3 stale PRs',
      '- one dash removed',
      '* a star bullet keeps its star',
    ]);
    expect(runActions(lines, 'runtime-only')).toEqual([
      'first run',
      'FOLLOW-UP',
      'run: Closed 3 stale PRs',
      'RUN:',
      '- one dash removed',
      '* a star bullet keeps its star',
    ]);
  });

  it('keeps six actions, the first of equal ones (after scrubbing), redacted and linked', () => {
    const lines = [
      '- See https://example.com/a',
      '- See https://example.com/b',
      '- one',
      '- one',
      '- the api_key rotated',
      '- two',
      '- three',
      '- four',
      '- five is the seventh distinct',
    ];
    expect(runActions(lines, 'markers')).toEqual([
      'See [link]',
      'one',
      '[redacted credential-like text]',
      'two',
      'three',
      'four',
    ]);
    const long = `- ${'word '.repeat(60)}`;
    // Scrubbed at 180: the first 177 characters, right-trimmed, and `...`.
    expect(runActions([long], 'markers')[0]).toBe(`${'word '.repeat(35)}wo...`);
  });

  it('titles a run `<name>: <first action>`, cut at 120 with `...` or copilot’s `…`', () => {
    expect(runTitle('Nightly', run('Nightly: already named'), '...')).toBe('Nightly: already named');
    expect(runTitle('Nightly', run('Nightly:no space'), '...')).toBe('Nightly: Nightly:no space');
    const long = run('x'.repeat(200));
    const dotted = runTitle('Name', long, '...');
    expect(dotted).toBe(`Name: ${'x'.repeat(113)}...`);
    expect([...dotted]).toHaveLength(122);
    const ellipsis = runTitle('Name', long, '…');
    expect(ellipsis).toBe(`Name: ${'x'.repeat(113)}…`);
    expect([...ellipsis]).toHaveLength(120);
  });

  it('finds project hints as substrings, each lower-case spelling once, in hint order', () => {
    expect(runProjects(run('pruning the microchip queue'), CLAUDE_CODE_AUTOMATIONS.hints)).toEqual(['Prun', 'CHIP']);
    expect(runProjects(run('PRUN and the claude brain'), CLAUDE_CODE_AUTOMATIONS.hints)).toEqual([
      'Prun',
      'Claude Brain',
    ]);
    expect(runProjects(run('Cascade after Codex'), CLAUDE_CODE_AUTOMATIONS.hints)).toEqual(['Codex', 'Cascade']);
    // codex-automations' hints stop at Copilot.
    expect(runProjects(run('Copilot, Codex, Cascade'), CODEX_AUTOMATIONS.hints)).toEqual(['Copilot']);
  });

  it('finds signals as whole words, case-insensitively, per variant', () => {
    const signals = (variant: typeof CLAUDE_CODE_AUTOMATIONS, text: string) =>
      runSignals(run(text), compileSignals(variant.signals));
    expect(signals(CLAUDE_CODE_AUTOMATIONS, 'restore the backup; released yesterday; storefront')).toEqual([]);
    expect(signals(CLAUDE_CODE_AUTOMATIONS, 'the STORE; go-live; L5; Stripe')).toEqual([
      'release-gate',
      'billing-drift',
      'memory-coverage-gap',
      'launch-decision',
    ]);
    expect(signals(CLAUDE_CODE_AUTOMATIONS, 'CI failure: gh action timed out')).toEqual(['ci-signal']);
    expect(signals(CODEX_AUTOMATIONS, 'CI failure: gh action timed out')).toEqual([]);
    expect(signals(CURSOR_AUTOMATIONS, 'the CI is red')).toEqual(['ci-signal']);
    expect(signals(CURSOR_AUTOMATIONS, 'a cider, a deployment')).toEqual([]);
    expect(signals(CURSOR_AUTOMATIONS, 'Deploy; pipeline')).toEqual(['ci-signal']);
    // The redaction text is part of what is searched: it names no signal word.
    expect(signals(CLAUDE_CODE_AUTOMATIONS, '[redacted credential-like text]')).toEqual([]);
  });
});

describe('TOML values as text', () => {
  it('prints what tomllib parses as Python’s str() does', () => {
    const table = parseToml(
      [
        'i = 7',
        'big = 9223372036854775807',
        'f = 2.0',
        'e = 1e16',
        'small = 1e-5',
        't = true',
        'd = 2026-04-27',
        'dt = 2026-04-27T10:00:00',
        'z = 2026-04-27T10:00:00.5Z',
        'off = 2026-04-27T10:00:00-05:30',
        'time = 08:30:00',
        'list = ["a", 1, 2026-04-27]',
        'table = { k = "v" }',
      ].join('\n'),
      { integersAsBigInt: true },
    );
    const text = Object.fromEntries(Object.entries(table).map(([key, value]) => [key, tomlText(value)]));
    expect(text).toEqual({
      i: '7',
      big: '9223372036854775807',
      f: '2.0',
      e: '1e+16',
      small: '1e-05',
      t: 'True',
      d: '2026-04-27',
      dt: '2026-04-27 10:00:00',
      z: '2026-04-27 10:00:00.500000+00:00',
      off: '2026-04-27 10:00:00-05:30',
      time: '08:30:00',
      list: "['a', 1, datetime.date(2026, 4, 27)]",
      table: "{'k': 'v'}",
    });
  });
});

describe('automation participants', () => {
  const claudeDir = (home: string) => path.join(home, '.claude', 'automations');

  it('drops runs before --since, and the entities only they named', async () => {
    const home = tempDir();
    automation(
      claudeDir(home),
      'deps',
      'id = "deps"\ncwds = ["/srv/repo"]\n',
      '2026-04-13\n- Codex lockfile check\n2026-04-20\n- release notes drafted\n',
    );
    const { manifest } = await exported(claudeCodeAutomationsParticipant, home, { since: sinceOf('2026-04-20') });
    expect(manifest.recent_sessions.map((session) => session.date)).toEqual(['2026-04-20']);
    expect(names(manifest.known_entities)).toEqual(['deps', 'release-gate']);
  });

  it('orders runs by date then id, newest first, ties in automation then file order', async () => {
    const home = tempDir();
    const dir = claudeDir(home);
    automation(dir, 'a', 'id = "zeta"\n', '2026-04-20\n- zeta first\n2026-04-20\n- zeta second\n');
    automation(dir, 'b', 'id = "alpha"\n', '2026-04-21\n- alpha newer\n2026-04-20\n- alpha same day\n');
    const { manifest } = await exported(claudeCodeAutomationsParticipant, home);
    expect(manifest.recent_sessions.map((session) => (session.key_actions as string[])[2])).toEqual([
      'alpha newer',
      'zeta first',
      'zeta second',
      'alpha same day',
    ]);
  });

  it('keeps the first position of a duplicate id with the later content; an id that trims to nothing is skipped', async () => {
    const home = tempDir();
    const dir = claudeDir(home);
    automation(dir, 'a', 'id = "same"\nname = "First"\n');
    automation(dir, 'b', 'id = "other"\n');
    automation(dir, 'c', 'id = " same "\nname = "Later"\nstatus = "paused"\n');
    automation(dir, 'd', 'id = "   "\n', '2026-04-20\n- never exported\n');
    const { manifest } = await exported(claudeCodeAutomationsParticipant, home);
    expect(names(manifest.known_entities)).toEqual(['same', 'other']);
    expect(manifest.known_entities[0]).toMatchObject({
      summary: "Claude Code automation 'Later' (PAUSED). Schedule: unspecified.",
      tags: ['claude-code-automation', 'automation', 'paused'],
    });
    expect(manifest.recent_sessions ?? []).toEqual([]);
  });

  it('drops the entity of an automation whose status is a private tag, keeping its sessions', async () => {
    const home = tempDir();
    automation(claudeDir(home), 'kin', 'id = "kin"\nstatus = "family"\n', '2026-04-20\n- called grandma\n');
    const { manifest } = await exported(claudeCodeAutomationsParticipant, home);
    expect(names(manifest.known_entities)).toEqual([]);
    expect(manifest.recent_sessions).toHaveLength(1);
  });

  it('reads odd field values as the engine does: a cwds string is its characters, numbers as text', async () => {
    const home = tempDir();
    const dir = claudeDir(home);
    automation(dir, 'str', 'id = 7\nname = 1.5\nstatus = true\ncwds = "/srv/x"\n', '2026-04-20\n- ran\n');
    automation(dir, 'num', 'id = "num"\ncwds = 3\n', '2026-04-19\n- ran too\n');
    const { manifest, warnings } = await exported(claudeCodeAutomationsParticipant, home);
    expect(manifest.known_entities[1]).toMatchObject({
      name: '7',
      summary: "Claude Code automation '1.5' (TRUE). Schedule: unspecified.",
    });
    expect(manifest.recent_sessions[0]).toMatchObject({
      cwd: '/',
      key_actions: ['automation_id: 7', 'run: 1.5: ran', 'ran'],
    });
    // A number cannot be iterated: the engine fails; here the value is left out, with a warning.
    expect(manifest.recent_sessions[1].cwd).toBe(path.join(dir, 'num'));
    expect(warnings).toEqual([`${path.join(dir, 'num', 'automation.toml')}: cwds is not a list (3); it is left out`]);
  });

  it('copilot: keeps non-blank string repos, names repos of automations with kept runs only', async () => {
    const home = tempDir();
    const dir = path.join(home, '.copilot-bourdon', 'automations');
    automation(
      dir,
      'review',
      'id = "review"\ntrigger = "pull_request"\nrepos = ["ex/a", "", "  ", 7, "ex/b"]\n',
      '2026-04-20\n- first run\n- run: approved\n- runtime 4s\n',
    );
    automation(dir, 'quiet', 'id = "quiet"\nrepos = ["ex/quiet"]\n', '2026-04-01\n- too old\n');
    automation(dir, 'bare', 'id = "bare"\n', '2026-04-21\n- nothing set\n');
    const { manifest } = await exported(copilotAutomationsParticipant, home, { since: sinceOf('2026-04-10') });
    expect(manifest.recent_sessions).toEqual([
      {
        date: '2026-04-21',
        cwd: path.join(dir, 'bare'),
        key_actions: ['automation: bare', 'kind: ', 'run: bare: nothing set', 'nothing set'],
        files_touched: [path.join(dir, 'bare', 'automation.toml')],
        visibility: 'team',
      },
      {
        date: '2026-04-20',
        cwd: path.join(dir, 'review'),
        project_focus: ['ex/a', 'ex/b'],
        key_actions: [
          'automation: review',
          'trigger: pull_request',
          'run: review: first run',
          'first run',
          'run: approved',
        ],
        files_touched: [path.join(dir, 'review', 'automation.toml')],
        visibility: 'team',
      },
    ]);
    expect(names(manifest.known_entities)).toEqual(['bare', 'quiet', 'review', 'ex/a', 'ex/b']);
  });

  it('reads only the last 160,000 characters of memory.md', async () => {
    const home = tempDir();
    const dir = path.join(home, '.codex', 'automations');
    const filler = `${'é'.repeat(159_980)}\n`;
    automation(dir, 'cut', 'id = "cut"\n', `2026-04-01\n- lost with the head\n${filler}2026-04-02\n- kept\n`);
    // The same run 20 characters shorter in front: its header is inside the last 160,000.
    automation(dir, 'whole', 'id = "whole"\n', `2026-04-01\n- kept too\n${'é'.repeat(159_950)}\n`);
    const { manifest } = await exported(codexAutomationsParticipant, home);
    const actions = manifest.recent_sessions.map((session) => (session.key_actions as string[])[2]);
    expect(actions).toEqual(['kept', 'kept too']);
  });

  it('uses CODEX_HOME as given (an empty manifest when it has no automations), read against the working folder', async () => {
    const home = tempDir();
    automation(path.join(home, '.codex', 'automations'), 'default', 'id = "default"\n');
    const missing = await exported(codexAutomationsParticipant, home, { env: { HOME: home, CODEX_HOME: 'nowhere' } });
    expect(missing.manifest.known_entities ?? []).toEqual([]);
    expect(missing.manifest.capabilities).toEqual(['codex-automation-memory', 'run-summary-publication']);
    automation(path.join(home, 'work', 'codex', 'automations'), 'named', 'id = "named"\n');
    const named = await exported(codexAutomationsParticipant, home, {
      env: { HOME: home, CODEX_HOME: 'codex' },
      cwd: path.join(home, 'work'),
    });
    expect(names(named.manifest.known_entities)).toEqual(['named']);
    // An empty variable counts as unset.
    const empty = await exported(codexAutomationsParticipant, home, { env: { HOME: home, CODEX_HOME: '' } });
    expect(names(empty.manifest.known_entities)).toEqual(['default']);
  });

  it('finds the cursor folder under CURSOR_DIR before CURSOR_HOME, and reports it as its source', async () => {
    const home = tempDir();
    automation(path.join(home, 'dir', 'automations'), 'a', 'id = "from-dir"\n');
    automation(path.join(home, 'home', 'automations'), 'b', 'id = "from-home"\n');
    const env = { HOME: home, CURSOR_DIR: path.join(home, 'dir'), CURSOR_HOME: path.join(home, 'home') };
    const { manifest } = await exported(cursorAutomationsParticipant, home, { env });
    expect(names(manifest.known_entities)).toEqual(['from-dir']);
    const sources = await cursorAutomationsParticipant.sources(
      exportEnvironment(home, { env: { ...env, CURSOR_DIR: '' } }),
    );
    expect(sources).toEqual([
      expect.objectContaining({ name: 'automations', path: path.join(home, 'home', 'automations'), found: true }),
    ]);
  });
});

describe('broken and hostile automation folders', () => {
  const codexDir = (home: string) => path.join(home, '.codex', 'automations');

  it('reads invalid TOML as an empty table, with a warning naming the file', async () => {
    const home = tempDir();
    automation(codexDir(home), 'broken', 'id = [unclosed\n', '2026-04-25\n- still a run\n');
    const { manifest, warnings } = await exported(codexAutomationsParticipant, home);
    expect(manifest.known_entities[0]).toMatchObject({
      name: 'broken',
      summary: "Codex automation 'broken' (UNKNOWN). Schedule: unspecified.",
    });
    expect(manifest.recent_sessions).toHaveLength(1);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /automations\/broken\/automation\.toml: not valid TOML \(.*\); read as an empty table$/,
    );
  });

  it('reads an automation.toml that is a folder, or too large, as an empty table', async () => {
    const home = tempDir();
    const dir = codexDir(home);
    fs.mkdirSync(path.join(dir, 'folder-toml', 'automation.toml'), { recursive: true });
    write(path.join(dir, 'folder-toml', 'memory.md'), '2026-04-20\n- still read\n');
    automation(dir, 'big', `id = "big"\n# ${'x'.repeat(1024 * 1024)}\n`);
    const { manifest, warnings } = await exported(codexAutomationsParticipant, home);
    expect(names(manifest.known_entities)).toEqual(['big', 'folder-toml']);
    expect(manifest.known_entities[0].summary).toBe("Codex automation 'big' (UNKNOWN). Schedule: unspecified.");
    expect(manifest.recent_sessions).toHaveLength(1);
    expect(warnings).toEqual([
      `${path.join(dir, 'big', 'automation.toml')}: skipped, 1048590 bytes is more than the 1048576 read`,
      `${path.join(dir, 'folder-toml', 'automation.toml')}: not a regular file; read as an empty table`,
    ]);
  });

  it('skips invalid UTF-8 (memory.md: its runs; automation.toml: its fields), exporting the rest', async () => {
    const home = tempDir();
    const dir = codexDir(home);
    automation(dir, 'bad-memory', 'id = "bad-memory"\n', Buffer.from([0x32, 0x30, 0x32, 0x36, 0x0a, 0xff, 0xfe, 0x0a]));
    automation(dir, 'bad-toml', Buffer.from('name = "\xc3\x28"\n', 'latin1'));
    automation(dir, 'good', 'id = "good"\n', '2026-04-20\n- fine\n');
    const { manifest, warnings } = await exported(codexAutomationsParticipant, home);
    expect(names(manifest.known_entities)).toEqual(['bad-memory', 'bad-toml', 'good']);
    expect(manifest.recent_sessions.map((session) => session.date)).toEqual(['2026-04-20']);
    expect(warnings).toEqual([
      `${path.join(dir, 'bad-memory', 'memory.md')}: skipped, not valid UTF-8`,
      `${path.join(dir, 'bad-toml', 'automation.toml')}: skipped, not valid UTF-8`,
    ]);
  });

  it('reads no runs from a memory.md that is a folder or a bad link, and skips a looping folder', async () => {
    const home = tempDir();
    const dir = codexDir(home);
    automation(dir, 'folder', 'id = "folder"\n');
    fs.mkdirSync(path.join(dir, 'folder', 'memory.md'));
    automation(dir, 'loop', 'id = "loop"\n');
    fs.symlinkSync('memory.md', path.join(dir, 'loop', 'memory.md'));
    automation(dir, 'dangling', 'id = "dangling"\n');
    fs.symlinkSync('gone.md', path.join(dir, 'dangling', 'memory.md'));
    automation(dir, 'outside', 'id = "outside"\n');
    const elsewhere = write(path.join(tempDir(), 'memory.md'), '2026-04-20\n- not ours to read\n');
    fs.symlinkSync(elsewhere, path.join(dir, 'outside', 'memory.md'));
    fs.symlinkSync('circle', path.join(dir, 'circle'));
    automation(dir, 'good', 'id = "good"\n', '2026-04-20\n- fine\n');
    const { manifest, warnings } = await exported(codexAutomationsParticipant, home);
    expect(names(manifest.known_entities)).toEqual(['dangling', 'folder', 'good', 'loop', 'outside']);
    expect(manifest.recent_sessions.map((session) => session.key_actions)).toEqual([
      ['automation_id: good', 'run: good: fine', 'fine'],
    ]);
    expect(warnings).toEqual([
      `${path.join(dir, 'circle', 'automation.toml')}: skipped, a link that loops`,
      `${path.join(dir, 'dangling', 'memory.md')}: skipped, a link to nothing`,
      `${path.join(dir, 'loop', 'memory.md')}: skipped, a link that loops`,
      `${path.join(dir, 'outside', 'memory.md')}: skipped, it is a link leading outside ${dir}`,
    ]);
  });

  it('never fails on random bytes in automation.toml and memory.md', async () => {
    const home = tempDir();
    const dir = codexDir(home);
    // A fixed pseudo-random sequence (no flaky seeds): text-like bytes, dates, brackets and junk.
    let state = 12345;
    const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const alphabet = ['2026-04-2', '0', '1', '\n', '- ', '[', ']', '"', '=', 'id', ' ', '\u2028', '\r', 'é'];
    const junk = (n: number, raw: number) =>
      Buffer.concat(
        Array.from({ length: n }, () =>
          next() < raw
            ? Buffer.from([Math.floor(next() * 256)])
            : Buffer.from(alphabet[Math.floor(next() * alphabet.length)]),
        ),
      );
    // Every other file holds raw bytes (mostly invalid UTF-8): skipped with a warning, never a failure.
    for (let i = 0; i < 40; i++)
      automation(
        dir,
        `a${i}`,
        junk(40, (i % 2) * 0.05),
        Buffer.concat([Buffer.from(`2026-04-2${i % 10}\n`), junk(400, (i % 2) * 0.05)]),
      );
    const { manifest, warnings } = await exported(codexAutomationsParticipant, home);
    expect(manifest.known_entities.length).toBeGreaterThan(0);
    expect(manifest.recent_sessions.length).toBeGreaterThan(0);
    expect(warnings.length).toBeGreaterThan(0);
    for (const warning of warnings) expect(warning).not.toContain('\n');
    for (const session of manifest.recent_sessions)
      expect((session.key_actions as string[]).length).toBeLessThanOrEqual(8);
  });

  it('reads a huge memory.md from its end only', async () => {
    const home = tempDir();
    const dir = codexDir(home);
    const file = path.join(dir, 'huge', 'memory.md');
    automation(dir, 'huge', 'id = "huge"\n');
    // 64 MiB of runs, then the last one: only the tail is read, so only the last runs are found.
    const block = Buffer.from('2026-01-01\n- an old run\n'.repeat(4096));
    const fd = fs.openSync(file, 'w');
    for (let written = 0; written < 64 * 1024 * 1024; written += block.length) fs.writeSync(fd, block);
    fs.writeSync(fd, '2026-04-30\n- the last run\n');
    fs.closeSync(fd);
    const { manifest, warnings } = await exported(codexAutomationsParticipant, home);
    expect(manifest.recent_sessions[0].key_actions).toEqual([
      'automation_id: huge',
      'run: huge: the last run',
      'the last run',
    ]);
    // 160,000 characters of 24-character runs, give or take the one cut at the start.
    expect(manifest.recent_sessions.length).toBeGreaterThan(6_600);
    expect(manifest.recent_sessions.length).toBeLessThan(6_700);
    expect(warnings).toEqual([]);
  });
});

describe('the automation commands', () => {
  function bourdon(home: string, args: string[]): Promise<CliResult> {
    return runCli(args, {
      cwd: home,
      env: {
        HOME: home,
        BOURDON_HOME: path.join(home, '..', 'config'),
        BOURDON_LIBRARY: path.join(home, '..', 'library'),
        BOURDON_LOCAL_NAME: 'test-host',
        SOURCE_DATE_EPOCH: String(Date.parse('2026-05-01T12:00:00Z') / 1000),
        TZ: 'UTC',
      },
      timeoutMs: 60_000,
    });
  }

  it('writes --out, and exports into the library as versions that rollback undoes', async () => {
    const home = path.join(tempDir(), 'home');
    const dir = path.join(home, '.cursor', 'automations');
    automation(dir, 'bot', 'id = "bot"\nname = "Bot"\nstatus = "ACTIVE"\n', '2026-04-20\n- Deploy verified\n');
    const out = path.join(home, '..', 'out.yaml');
    const toFile = await bourdon(home, ['cursor-automations', 'export', '--out', out]);
    expect(toFile.code, toFile.stderr).toBe(0);
    const written = yaml.load(fs.readFileSync(out, 'utf8')) as Manifest;
    expect(names(written.known_entities)).toEqual(['bot', 'ci-signal']);

    const first = await bourdon(home, ['cursor-automations', 'export', '--json']);
    expect(JSON.parse(first.stdout)).toMatchObject({ agent_id: 'cursor-automations', version: 1, written: true });
    const agentFile = path.join(home, '..', 'library', 'agents', 'cursor-automations.l5.yaml');
    const version1 = fs.readFileSync(agentFile);
    write(path.join(dir, 'bot', 'memory.md'), '2026-04-20\n- Deploy verified\n2026-04-21\n- Stripe billing checked\n');
    const second = await bourdon(home, ['cursor-automations', 'export', '--json']);
    expect(JSON.parse(second.stdout)).toMatchObject({ version: 2, written: true });
    expect(names((yaml.load(fs.readFileSync(agentFile, 'utf8')) as Manifest).known_entities)).toContain(
      'billing-drift',
    );
    const rollback = await bourdon(home, ['rollback', 'cursor-automations', '1', '--yes']);
    expect(rollback.code, rollback.stderr).toBe(0);
    expect(fs.readFileSync(agentFile).equals(version1)).toBe(true);
  });

  it('says one line per broken file and still exports; without its folder claude-code-automations writes nothing', async () => {
    const home = path.join(tempDir(), 'home');
    const dir = path.join(home, '.copilot-bourdon', 'automations');
    automation(dir, 'bad', 'id = "bad"\n', Buffer.from([0xff, 0x0a]));
    automation(dir, 'good', 'id = "good"\n', '2026-04-20\n- fine\n');
    const out = path.join(home, '..', 'copilot.yaml');
    const result = await bourdon(home, ['copilot-automations', 'export', '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe(`bourdon: ${path.join(dir, 'bad', 'memory.md')}: skipped, not valid UTF-8\n`);
    expect(names((yaml.load(fs.readFileSync(out, 'utf8')) as Manifest).known_entities)).toEqual(['bad', 'good']);

    const nothing = await bourdon(home, ['claude-code-automations', 'export', '--out', out + '.none']);
    expect(nothing.code, nothing.stderr).toBe(0);
    expect(nothing.stdout).toContain('skipped claude-code-automations: no source found');
    expect(fs.existsSync(out + '.none')).toBe(false);
  });
});
