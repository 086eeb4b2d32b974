/**
 * The CLI in a real terminal (issue 17), on the real binary: tables fit the width (COLUMNS, or
 * the pseudo-terminal's own size), control characters in data never reach the terminal raw,
 * paging hints repeat the query, bad dates and limits are usage errors, typos get a suggestion.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILURES } from '../src/core/errors.js';
import { runCli, type CliResult } from './helpers/cli.js';
import { REPO_ROOT, tempDir } from './helpers/fixtures.js';
import { runInPty, stripAnsi } from './helpers/pty.js';
import { overlong } from './helpers/width.js';

const cleanup: string[] = [];
afterAll(() => {
  for (const dir of cleanup) fs.rmSync(dir, { recursive: true, force: true });
});

let library: string;
let home: string;
let auditPath: string;

const HOSTILE = 'act\u001b[2J\u001b[31mred\r\nfake line\u0007';

function env(extra: Record<string, string> = {}): Record<string, string> {
  return { BOURDON_HOME: home, BOURDON_AUDIT_PATH: auditPath, ...extra };
}

const NO_LIBRARY = new Set(['agent', 'peers', 'audit', 'grant', 'ungrant', 'revoke', 'demo']);

function cli(args: string[], extra: Record<string, string> = {}): Promise<CliResult> {
  // Member, peer and audit commands take no --library (their data lives in BOURDON_HOME).
  const argv = NO_LIBRARY.has(args[0]!) ? args : [...args, '--library', library];
  return runCli(argv, { env: env(extra), timeoutMs: 60_000 });
}

beforeAll(async () => {
  library = tempDir('bourdon-term-lib-');
  home = tempDir('bourdon-term-home-');
  cleanup.push(library, home);
  auditPath = path.join(home, 'audit.jsonl');
  // A small generated library: 20 agents, enough rows for several pages of every listing.
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'bench', 'generate.js'), library, '20', '30', '25', '8']);
  // A row committed with terminal escapes and a carriage return in every free-text field.
  const today = new Date().toISOString().slice(0, 10);
  const input = JSON.stringify({
    entities: [{ name: `Hostile ${HOSTILE}`, summary: HOSTILE, tags: [HOSTILE], visibility: 'public' }],
    sessions: [{ date: today, project_focus: [HOSTILE], key_actions: [HOSTILE], visibility: 'public' }],
    notes: [{ date: today, title: HOSTILE, text: HOSTILE, tags: [HOSTILE], visibility: 'public' }],
  });
  const committed = await runCli(['commit', 'hostile', '--agent-type', 'other', '--role', HOSTILE, '-f', '-'], {
    env: { ...env(), BOURDON_LIBRARY: library },
    input,
    timeoutMs: 60_000,
  });
  expect(committed.code, committed.stderr).toBe(0);
  // Long audit records and a member and a peer, so every list command has rows to fit.
  const long = 'x'.repeat(300);
  fs.writeFileSync(
    auditPath,
    [0, 1, 2]
      .map((i) =>
        JSON.stringify({
          ts: new Date(Date.now() - i * 3_600_000).toISOString(),
          agent: `member-${i}`,
          op: 'find_entity',
          namespace: `${long}\u001b[2J`,
          decision: i === 1 ? 'deny' : 'allow',
          detail: `${long}\r\nfake`,
        }),
      )
      .join('\n') + '\n',
  );
  expect(
    (
      await runCli(['agent', 'add', 'reader', '--grant', `agent-000,agent-001,agent-002,agent-003,agent-004`], {
        env: env(),
      })
    ).code,
  ).toBe(0);
  expect(
    (await runCli(['peers', 'add', 'far', `http://127.0.0.1:7501/${'long-path/'.repeat(12)}mcp`], { env: env() })).code,
  ).toBe(0);
}, 180_000);

/** Every command that prints a table, with arguments that make it list several rows. */
const LIST_COMMANDS: string[][] = [
  ['recent', '--since', '2000-01-01', '--access-level', 'team'],
  ['list-notes', '--since', '2000-01-01', '--access-level', 'team'],
  ['workstreams', '--access-level', 'team'],
  ['agents'],
  ['history', 'hostile'],
  ['audit'],
  ['agent', 'list'],
  ['staging', 'list'],
  ['peers', 'list'],
];

describe('width', () => {
  it.each(LIST_COMMANDS.map((args) => [args.join(' '), args]))(
    '%s: no line over 80 columns with COLUMNS=80, longer with --wide',
    async (_, args) => {
      const fitted = await cli(args, { COLUMNS: '80' });
      expect(fitted.code, fitted.stderr).toBe(0);
      expect(fitted.stdout.trim().length).toBeGreaterThan(0);
      expect(overlong(fitted.stdout, 80)).toEqual([]);
      const wide = await cli([...args, '--wide'], { COLUMNS: '80' });
      expect(wide.code, wide.stderr).toBe(0);
      // Tables whose rows carry long free text in this library: --wide shows all of it.
      if (!['history', 'staging', 'agent'].includes(args[0]!))
        expect(overlong(wide.stdout, 80).length).toBeGreaterThan(0);
    },
    30_000,
  );

  it('never cuts the id and date columns, and wraps the last column whole instead of cutting it', async () => {
    const result = await cli(['recent', '--since', '2000-01-01', '--limit', '5', '--json'], { COLUMNS: '80' });
    const sessions = (JSON.parse(result.stdout) as { sessions: { key_actions: string[] }[] }).sessions;
    const human = (await cli(['recent', '--since', '2000-01-01', '--limit', '5'], { COLUMNS: '80' })).stdout;
    const lines = human.split('\n').slice(1);
    const rows = lines.filter((line) => /^\d{4}-/.test(line));
    expect(rows).toHaveLength(5);
    for (const row of rows) expect(row).toMatch(/^\d{4}-\d{2}-\d{2} {2}\S.* {2}(agent-\d{3}|hostile)( |$)/);
    expect(overlong(human, 80)).toEqual([]);
    // Every action of every row is there, whole, on the lines that continue its row.
    const continued = lines
      .filter((line) => line.startsWith(' '))
      .map((line) => line.trim())
      .join(' ');
    for (const session of sessions)
      for (const action of session.key_actions.filter((text) => /^[\x20-\x7e]*$/.test(text)))
        expect(continued).toContain(action.split(/\s+/).slice(-1)[0]);
  });

  it('on a terminal, fits the terminal width without COLUMNS', async () => {
    const result = await runInPty(['workstreams', '--library', library, '--access-level', 'team'], [], {
      env: env({ NO_COLOR: '1' }),
    });
    expect(result.code).toBe(0);
    const text = stripAnsi(result.output).replace(/\r/g, '');
    expect(text).toContain('WORKSTREAM');
    // The pseudo-terminal is 120 columns wide (test/helpers/pty-driver.py).
    expect(overlong(text, 120)).toEqual([]);
    expect(text).toContain('…');
  }, 30_000);
});

describe('control characters in data are shown escaped', () => {
  const commands: string[][] = [
    ...LIST_COMMANDS,
    ['find', 'Hostile'],
    ['query', 'hostile', 'Hostile'],
    ['summary', HOSTILE],
  ];
  it.each(commands.map((args) => [args[0] === 'summary' ? 'summary <hostile>' : args.join(' '), args]))(
    '%s',
    async (_, args) => {
      const result = await cli(args, { COLUMNS: '80' });
      expect(result.code, result.stderr).toBe(0);
      // eslint-disable-next-line no-control-regex -- the point: no raw control character but newline
      expect(result.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
    },
    30_000,
  );

  it('recent and workstreams show the escaped text itself', async () => {
    for (const args of [['recent'], ['workstreams'], ['list-notes']]) {
      const result = await cli([...args, '--wide']);
      expect(result.stdout).toContain('act\\u001b[2J\\u001b[31mred\\u000d\\u000afake line\\u0007');
    }
  });
});

describe('paging hints keep the query', () => {
  it('recent: the printed command returns the next page of the same agent at the same level', async () => {
    const first = await cli([
      'recent',
      '--since',
      '2000-01-01',
      '--agent',
      'agent-003',
      '--access-level',
      'team',
      '--limit',
      '3',
    ]);
    expect(first.code).toBe(0);
    const hint = /More: (bourdon [^]*)$/.exec(first.stdout.trim())?.[1];
    expect(hint).toBeDefined();
    const argv = hint!
      .replace(/ \\\n\s*/g, ' ')
      .split(' ')
      .slice(1);
    expect(argv).toEqual(expect.arrayContaining(['--agent', 'agent-003', '--access-level', 'team', '--limit', '3']));
    const next = await runCli([...argv, '--json'], { env: env() });
    const payload = JSON.parse(next.stdout) as { sessions: { agent: string }[]; access_level: string; limit: number };
    expect(payload.access_level).toBe('team');
    expect(payload.limit).toBe(3);
    expect(payload.sessions.length).toBe(3);
    expect(new Set(payload.sessions.map((s) => s.agent))).toEqual(new Set(['agent-003']));
  });

  it.each([
    ['list-notes', ['--agent', 'agent-003', '--access-level', 'team', '--limit', '1']],
    ['workstreams', ['--status', 'active', '--access-level', 'team', '--limit', '1']],
  ])('%s repeats its filters', async (command, flags) => {
    const first = await cli([command, '--since', '2000-01-01', ...flags]);
    expect(first.code, first.stderr).toBe(0);
    const hint = /More: (bourdon [^]*)$/.exec(first.stdout.trim())?.[1]?.replace(/ \\\n\s*/g, ' ');
    for (let i = 0; i < flags.length; i += 2) expect(hint).toContain(`${flags[i]} ${flags[i + 1]}`);
    expect(hint).toContain(`--library ${library}`);
  });

  it('history: the hint asks for older versions', async () => {
    for (let i = 0; i < 3; i++) {
      const input = JSON.stringify({ notes: [{ date: '2026-01-0' + (i + 1), text: `history row ${i}` }] });
      expect((await runCli(['commit', 'hostile', '-f', '-', '--library', library], { env: env(), input })).code).toBe(
        0,
      );
    }
    const result = await cli(['history', 'hostile', '--limit', '2']);
    expect(result.stdout).toMatch(/Older: bourdon history hostile --limit 4 --library /);
  });
});

describe('strict input', () => {
  it.each(['2026-13-45', 'yesterdayy', '7x', '2026-99-01'])(
    'recent --since %s is a usage error naming the forms',
    async (since) => {
      const result = await cli(['recent', '--since', since]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('--since');
      expect(result.stderr).toContain('YYYY-MM-DD');
      expect(result.stderr).toContain('7d');
    },
  );

  it('list-notes --since with a bad day is a usage error too, also under --json', async () => {
    const result = await cli(['list-notes', '--since', '2026-99-01', '--json']);
    expect(result.code).toBe(2);
    expect((JSON.parse(result.stdout) as { error: string }).error).toMatch(/--since.*YYYY-MM-DD/);
  });

  it.each([
    ['7d', 7],
    ['2w', 14],
    ['yesterday', 1],
    ['today', 0],
  ])('--since %s means the local day %i days ago', async (since, days) => {
    const result = await cli(['recent', '--since', since, '--json']);
    expect(result.code).toBe(0);
    const now = new Date();
    const day = new Date(now.getFullYear(), now.getMonth(), now.getDate() - days);
    const expected = `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, '0')}-${String(day.getDate()).padStart(2, '0')}`;
    expect((JSON.parse(result.stdout) as { since: string }).since).toBe(expected);
  });

  it.each(['0', '-5', '500', 'abc'])('recent --limit %s is refused, naming the flag and the range', async (limit) => {
    const result = await cli(['recent', `--limit=${limit}`]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--limit: Expected an integer/);
    if (limit !== 'abc') expect(result.stderr).toMatch(/(greater|less) than or equal to (1|100)/);
  });

  it('a missing argument is named', async () => {
    const result = await cli(['find']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('missing required argument: <name>');
  });
});

describe('typos, version and completion', () => {
  it.each([
    [['agnets'], 'bourdon agents'],
    [['fnd', 'x'], 'bourdon find x'],
    [['workstream'], 'bourdon workstreams'],
    [['agent', 'lst'], 'bourdon agent list'],
    [['qurey', 'codex', 'sync engine'], "bourdon query codex 'sync engine'"],
    [['fnd', "it's"], "bourdon find 'it'\\''s'"],
  ])('%j suggests `%s` and exits 2', async (args, suggestion) => {
    const result = await runCli(args, { env: env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`Did you mean \`${suggestion}\`?`);
  });

  it('the suggested command runs as pasted into a shell', async () => {
    const typo = await runCli(['qurey', 'agent-001', 'sync engine'], { env: env() });
    const suggested = /Did you mean `bourdon (.*)`\?/.exec(typo.stderr)![1]!;
    const words = execFileSync('sh', ['-c', `for w in ${suggested}; do printf '%s\\0' "$w"; done`], {
      encoding: 'utf8',
    })
      .split('\0')
      .slice(0, -1);
    expect(words).toEqual(['query', 'agent-001', 'sync engine']);
    expect((await runCli([...words, '--library', library], { env: env() })).code).toBe(0);
  });

  it('nothing close: no suggestion, still exit 2', async () => {
    const result = await runCli(['qqqqqq'], { env: env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown command "qqqqqq"');
    expect(result.stderr).not.toContain('Did you mean');
  });

  it('extra words after a command are unexpected arguments', async () => {
    const result = await runCli(['recent', 'a', 'b'], { env: env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unexpected arguments for `bourdon recent`: a b');
  });

  it('-v, --version and version agree', async () => {
    const outputs = await Promise.all([['-v'], ['--version'], ['version']].map((args) => runCli(args, { env: env() })));
    const version = (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string })
      .version;
    for (const out of outputs) {
      expect(out.code).toBe(0);
      expect(out.stdout).toContain(`bourdon/${version}`);
    }
    const json = await runCli(['version', '--json'], { env: env() });
    expect(JSON.parse(json.stdout)).toMatchObject({ name: 'bourdon', version });
  });

  it('completion bash completes commands, topic subcommands and flags', async () => {
    const script = await runCli(['completion', 'bash'], { env: env() });
    expect(script.code).toBe(0);
    const complete = (words: string[]) =>
      execFileSync(
        'bash',
        [
          '-c',
          `eval "$SCRIPT"; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _bourdon_complete; echo "\${COMPREPLY[@]}"`,
        ],
        { env: { PATH: process.env.PATH, SCRIPT: script.stdout }, encoding: 'utf8' },
      ).trim();
    expect(complete(['bourdon', 'wor'])).toBe('workstreams');
    expect(complete(['bourdon', 'agent', 'se'])).toBe('set-tier');
    expect(complete(['bourdon', 'recent', '--li']).split(' ')).toEqual(['--library', '--limit']);
    expect(complete(['bourdon', 'staging', 'promote', '--'])).toContain('--json');
  });

  it('help --json lists every command', async () => {
    const result = await runCli(['help', '--json'], { env: env() });
    expect(result.code).toBe(0);
    const ids = (JSON.parse(result.stdout) as { commands: { id: string }[] }).commands.map((c) => c.id);
    expect(ids).toEqual(expect.arrayContaining(['recent', 'agent add', 'version', 'completion']));
  });
});

describe('unknown agents, unchanged writes, wording', () => {
  it.each([
    [['query', 'nosuch-agent', 'sync']],
    [['history', 'nosuch-agent']],
    [['recent', '--agent', 'nosuch-agent']],
    [['list-notes', '--agent', 'nosuch-agent']],
    [['workstreams', '--agent', 'nosuch-agent']],
  ])('%j says the agent does not exist (exit 1)', async (args) => {
    const result = await cli(args);
    expect(result.code).toBe(FAILURES.not_found.exit);
    expect(result.stderr).toContain('no agent "nosuch-agent" in this library');
  });

  it('a near miss lists the close ids', async () => {
    const result = await cli(['query', 'agent-03', 'sync']);
    expect(result.code).toBe(FAILURES.not_found.exit);
    expect(result.stderr).toMatch(/did you mean agent-003/);
  });

  it.each([
    [['note', 'add', 'nosuchagent', 'hello'], ''],
    [['commit', 'nosuchagent', '-f', '-'], '{"notes":[{"date":"2026-01-01","text":"hello"}]}'],
  ])('%j on a new agent names the --agent-type flag, not the tool argument', async (args, input) => {
    const result = await runCli([...args, '--library', library], { env: env(), input });
    expect(result.code).toBe(FAILURES.invalid_input.exit);
    expect(result.stderr).toContain('nosuchagent has no manifest yet: give --agent-type (code-assistant, ');
    expect(result.stderr).not.toContain('agent_type');
    expect(fs.existsSync(path.join(library, 'agents', 'nosuchagent.l5.yaml'))).toBe(false);
  });

  it('re-committing identical rows says unchanged and records no version; the JSON keeps the counts', async () => {
    const input = JSON.stringify({ notes: [{ date: '2026-02-02', text: 'identical twice' }] });
    const first = await runCli(['commit', 'agent-007', '-f', '-', '--library', library], { env: env(), input });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/\+1 note$/m);
    const versions = async () =>
      (JSON.parse((await cli(['history', 'agent-007', '--json'])).stdout) as { versions: unknown[] }).versions.length;
    const before = await versions();
    const again = await runCli(['commit', 'agent-007', '-f', '-', '--library', library], { env: env(), input });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^unchanged agent-007/);
    const json = await runCli(['commit', 'agent-007', '-f', '-', '--json', '--library', library], {
      env: env(),
      input,
    });
    const payload = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(payload).toMatchObject({ notes_added: 0, entities_added: 0, sessions_added: 0 });
    expect(payload).not.toHaveProperty('unchanged');
    expect(await versions()).toBe(before);
  });

  it('a rollback to the content the file holds says unchanged and records no version', async () => {
    const listing = JSON.parse((await cli(['history', 'agent-007', '--json'])).stdout) as {
      versions: { version: number; current: boolean }[];
    };
    const current = listing.versions.find((v) => v.current)!.version;
    const result = await cli(['rollback', 'agent-007', String(current), '--yes']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('unchanged');
    const after = JSON.parse((await cli(['history', 'agent-007', '--json'])).stdout) as { versions: unknown[] };
    expect(after.versions.length).toBe(listing.versions.length);
  });

  it.each([[['demo']], [['agent', 'list']], [['peers', 'list']], [['audit']], [['grant', 'reader', 'agent-005']]])(
    '%j takes no library: --library is refused rather than ignored (exit 2)',
    async (args) => {
      const result = await runCli([...args, '--library', library], { env: env() });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('Nonexistent flag: --library');
      const help = await runCli([...args.slice(0, args[0] === 'grant' ? 1 : args.length), '--help'], { env: env() });
      expect(help.stdout).not.toContain('--library');
    },
  );
});

describe('an answer says how many rows the level asked for held back', () => {
  beforeAll(async () => {
    const input = JSON.stringify({
      entities: [{ name: 'Quartermaster Plan', summary: 'team only', visibility: 'team' }],
      notes: [{ date: '2026-03-03', text: 'kept private', tags: ['vault'], visibility: 'private' }],
    });
    const committed = await runCli(['commit', 'level-bot', '--agent-type', 'other', '-f', '-', '--library', library], {
      env: env(),
      input,
    });
    expect(committed.code, committed.stderr).toBe(0);
  });

  it.each([
    [['find', 'quartermaster plan'], 'No agent knows about', '1 more match at team: --access-level team'],
    [['query', 'level-bot', 'Quartermaster Plan'], 'knows nothing', '1 more match at team: --access-level team'],
    [['summary', 'Quartermaster Plan'], 'Nothing on', '1 more agent at team: --access-level team'],
    [
      ['list-notes', '--agent', 'level-bot', '--since', '2026-01-01', '--tag', 'vault'],
      'No notes',
      '1 more note at private: --access-level private',
    ],
  ])('%j', async (args, empty, hint) => {
    const result = await cli(args);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(empty);
    expect(result.stdout).toContain(hint);
    // The hint is the CLI's: --json stays the tool's payload, and the level it names answers.
    const json = await cli([...args, '--json']);
    expect(json.stdout).not.toContain('--access-level');
    const level = /--access-level (\w+)/.exec(hint)![1]!;
    const there = await cli([...args, '--access-level', level]);
    expect(there.stdout).not.toContain(empty);
  });

  it('says so under a non-empty answer too: one public row shown, one more at team', async () => {
    const input = JSON.stringify({
      sessions: [
        { date: '2026-03-04', project_focus: ['Held Back'], key_actions: ['shown to everyone'], visibility: 'public' },
        { date: '2026-03-05', project_focus: ['Held Back'], key_actions: ['team only'], visibility: 'team' },
      ],
    });
    const committed = await runCli(['commit', 'held-bot', '--agent-type', 'other', '-f', '-', '--library', library], {
      env: env(),
      input,
    });
    expect(committed.code, committed.stderr).toBe(0);
    const result = await cli(['recent', '--agent', 'held-bot', '--since', '2026-01-01']);
    expect(result.stdout).toContain('shown to everyone');
    expect(result.stdout).not.toContain('team only');
    expect(result.stdout).toContain('1 more session at team: --access-level team');
    const team = await cli(['recent', '--agent', 'held-bot', '--since', '2026-01-01', '--access-level', 'team']);
    expect(team.stdout).toContain('team only');
    expect(team.stdout).not.toContain('more session');
  });

  it('no hint when no level has rows, nor when the caller already reads at private', async () => {
    expect((await cli(['find', 'no such thing anywhere'])).stdout.trim()).toBe(
      'No agent knows about "no such thing anywhere".',
    );
    const all = await cli(['find', 'no such thing anywhere', '--include-private']);
    expect(all.stdout).not.toContain('--access-level');
  });
});

describe('the demo manifests in the repository are templates, not a library', () => {
  it('--library pointed at them warns that the folder holds no manifests', async () => {
    // recent reads the library again for the empty-answer hint: the warning is still said once.
    const result = await runCli(['recent', '--library', path.join(REPO_ROOT, 'demo', 'templates')], { env: env() });
    expect(result.code).toBe(0);
    expect(result.stderr.split('has no agents/ folder, so it holds no manifests yet')).toHaveLength(2);
    expect(fs.existsSync(path.join(REPO_ROOT, 'demo', 'library'))).toBe(false);
  });
});

describe('Ctrl-C at the rollback prompt', () => {
  it('says rollback cancelled, exits 130 and records no version', async () => {
    const before = JSON.parse((await cli(['history', 'hostile', '--json'])).stdout) as { versions: unknown[] };
    const result = await runInPty(
      ['rollback', 'hostile', '1', '--library', library],
      [{ expect: 'Restore hostile to version 1', send: '\u0003' }],
      { env: env({ NO_COLOR: '1' }) },
    );
    expect(result.code).toBe(130);
    expect(stripAnsi(result.output)).toContain('rollback cancelled; nothing was changed');
    expect(stripAnsi(result.output)).not.toContain('User force closed');
    const after = JSON.parse((await cli(['history', 'hostile', '--json'])).stdout) as { versions: unknown[] };
    expect(after.versions.length).toBe(before.versions.length);
  }, 30_000);
});
