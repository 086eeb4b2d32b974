/**
 * Every human line fits the width it is given (issue 34): every command in the manifest runs
 * with COLUMNS=80, and again at 60, on a library built to stress widths (a 20-agent generated
 * library with an agent of 200 sessions in long folders, long names and notes, URLs, wide CJK
 * text, and all that doctor can find wrong: test/helpers/width-library.ts). No line a person
 * reads, on stdout or stderr, is wider than the width, measured in display columns as a
 * terminal draws them (wide characters two, colour codes none: src/cli/width.ts).
 *
 * Commands come from oclif.manifest.json: one the table below does not name still runs, bare
 * (plus --library), so a new command is covered. Not human text, so not measured: a command's
 * stdout that is file content or a value for a script (a config snippet alone, a shell script,
 * a token, `--print`'s YAML), and the lines of a config snippet shown among prose, which are
 * file content too (they are the snippets' text as `--json` gives it). `ui` is the one command
 * whose line may run past: its one-time link, whole on its own line (docs/cli.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FAILURES } from '../src/core/errors.js';
import { runCliBatch, spawnUntil, type BatchResult } from './helpers/cli.js';
import { REPO_ROOT } from './helpers/fixtures.js';
import { at } from './helpers/items.js';
import { runInPty } from './helpers/pty.js';
import { overlong } from './helpers/width.js';
import {
  BARE_MEMBER,
  FOCUS,
  LONG_AGENT,
  LONG_CWD,
  LONG_MEMBER,
  URL,
  WIDE_AGENT,
  copyWidthLibrary,
  widthLibrary,
  type WidthLibrary,
} from './helpers/width-library.js';

interface ManifestCommand {
  id: string;
  flags: Record<string, unknown>;
}
const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, ManifestCommand>;
};

interface Run {
  args: string[];
  /** The exit code it must end with (default 0), so the run shows what it was meant to. */
  code?: number;
  /** Its stdout is data (file content, a token), not text for a person: only stderr is measured. */
  data?: boolean;
  /** It shows config snippets among its prose: it runs again with --json to know their lines. */
  snippets?: boolean;
}

/** What each command runs, in order (reads before the writes that change what they read). */
function runsFor(lib: WidthLibrary): Record<string, Run[] | { skip: string }> {
  return {
    doctor: [{ args: ['--peer-timeout', '500'], code: 1 }],
    agents: [{ args: [] }],
    find: [
      { args: ['Sync Engine Merge Ordering Rework for the Watch and Desktop Clients, part 1'] },
      { args: ['同期エンジン設計'] },
    ],
    query: [
      { args: [LONG_AGENT, 'merge ordering rework'] },
      { args: [WIDE_AGENT, '同期エンジン設計'] },
      { args: ['no-such-agent-with-a-name-long-enough-to-wrap-the-error-message', 'x'], code: FAILURES.not_found.exit },
    ],
    summary: [{ args: [FOCUS] }],
    search: [{ args: ['merge ordering rework'] }, { args: ['同期エンジン設計'] }, { args: ['mrege ordring'] }],
    recent: [
      { args: ['--since', '2000-01-01'] },
      { args: ['--agent', LONG_AGENT, '--limit', '5'] },
      { args: ['--agent', WIDE_AGENT] },
      { args: ['--since', 'a-day-that-is-not-a-date'], code: 2 },
    ],
    'list-notes': [{ args: ['--since', '2000-01-01'] }, { args: ['--agent', WIDE_AGENT] }],
    'note:show': [{ args: [`${LONG_AGENT}:1`] }, { args: [`${WIDE_AGENT}:1`] }],
    workstreams: [{ args: ['--since', '2000-01-01'] }],
    history: [{ args: [LONG_AGENT] }, { args: [LONG_AGENT, '--limit', '1'] }],
    diff: [{ args: [LONG_AGENT, '2'] }, { args: [LONG_AGENT, '3'] }, { args: [LONG_AGENT, '3', '--against', '1'] }],
    recognize: [{ args: ['keep going on the sync engine merge ordering rework for the watch build'] }],
    'deeper-context': [{ args: ['sync engine'] }],
    'compile-turn': [{ args: ['continue the merge ordering rework', '--cwd', LONG_CWD] }],
    'staging:list': [{ args: [] }, { args: ['--diff'] }],
    audit: [{ args: [] }],
    'agent:list': [{ args: [] }],
    'peers:list': [{ args: [] }],
    'peers:check': [{ args: ['--timeout', '500'], code: 1 }],
    'mcp-config': [
      { args: [], snippets: true },
      { args: ['--host', 'codex'], data: true },
      { args: ['--http', `https://desk.tailnet.example:7500/${'long-path/'.repeat(6)}mcp`], snippets: true },
    ],
    'claude-code:export': [{ args: ['--dry-run'] }],
    'codex:export': [{ args: ['--dry-run'] }],
    'copilot-cli:export': [{ args: ['--dry-run'] }],
    'cursor:export': [{ args: ['--dry-run'] }],
    'mcp-memory:export': [{ args: ['--dry-run'] }],
    // No instance listens where the test runs: the refusal is what must fit.
    'openclaw:export': [{ args: ['--dry-run'], code: 1 /* an export's failure: docs/errors.md */ }],
    'export-all': [{ args: ['--dry-run'] }],
    completion: [{ args: ['bash'], data: true }],
    help: [{ args: [] }, { args: ['staging'] }, { args: ['no-such-topic-with-a-rather-long-name'], code: 2 }],
    version: [{ args: [] }],
    demo: [{ args: [] }],
    'sync:init': [{ args: [lib.remote] }],
    'sync:push': [{ args: [] }],
    'sync:status': [{ args: [] }],
    'sync:pull': [{ args: [] }],
    'sync:trust': [{ args: ['a-teammate-machine-with-a-rather-long-name'], code: FAILURES.not_found.exit }],
    'note:add': [
      {
        args: [LONG_AGENT, `A long note about ${URL} and ${LONG_CWD}`, '--tag', 'release-engineering-and-coordination'],
      },
    ],
    commit: [
      { args: [LONG_AGENT, '-f', lib.rows.first] },
      {
        args: [
          'a-new-agent-committed-from-the-width-test-with-a-long-id',
          '-f',
          lib.rows.third,
          '--agent-type',
          'other',
        ],
      },
    ],
    rollback: [{ args: [LONG_AGENT, '2', '--yes', '--reason', 'undo the tiebreak note for the width test'] }],
    'staging:promote': [{ args: [LONG_AGENT, '--yes'] }],
    'staging:reject': [{ args: ['agent-004'] }],
    grant: [{ args: [LONG_MEMBER, 'agent-005'] }],
    ungrant: [{ args: [LONG_MEMBER, 'agent-005'] }],
    'agent:set-tier': [{ args: [LONG_MEMBER, 'trusted'] }],
    'agent:rotate': [{ args: [BARE_MEMBER], data: true }],
    'agent:add': [
      {
        args: [
          'another-member-whose-id-is-long-enough-to-wrap-its-token-notice',
          '--grant',
          `${LONG_AGENT},${WIDE_AGENT}`,
        ],
        data: true,
      },
    ],
    revoke: [{ args: [LONG_MEMBER] }],
    'peers:add': [{ args: ['another', `https://desk.tailnet.example:7500/${'long-path/'.repeat(8)}mcp`] }],
    'peers:remove': [{ args: ['another'] }],
    init: [
      {
        args: [
          '--yes',
          '--library',
          path.join(lib.base, 'a-second-library-set-up-by-init-with-a-long-folder-name'),
          '--host',
          'claude-code',
          '--host',
          'codex',
          '--member',
          'laptop-of-the-release-coordinator',
          '--peer-url',
          `https://desk.tailnet.example:7500/${'long-path/'.repeat(6)}mcp`,
        ],
        snippets: true,
      },
    ],
    serve: { skip: 'stdout carries the MCP protocol (stdio), or it runs until stopped (http) and its stderr is a log' },
    ui: { skip: 'runs until stopped: the test below starts it and reads what it prints' },
    // The watch itself runs until stopped (test/watch.test.ts reads its lines); its service
    // commands end, and what they print must fit.
    watch: [{ args: ['--install'] }, { args: ['--uninstall'] }],
    // An agent's hook prints nothing when it runs (test/agent-hooks.test.ts): its usage line must fit.
    hook: [{ args: [], code: 2 }],
  };
}

/** Every command's argv lists, in the table's order, then the commands it does not name. */
function plan(lib: WidthLibrary): { argv: string[]; run: Run }[] {
  const table = runsFor(lib);
  const ids = [...Object.keys(table), ...Object.keys(manifest.commands).filter((id) => !(id in table))];
  return ids.flatMap((id) => {
    const entry = table[id] ?? [{ args: [] }];
    if (!Array.isArray(entry)) return [];
    const onLibrary =
      'library' in (manifest.commands[id]?.flags ?? {}) && !entry.some((run) => run.args.includes('--library'));
    return entry.map((run) => ({
      argv: [...id.split(':'), ...run.args, ...(onLibrary ? ['--library', lib.library] : [])],
      run,
    }));
  });
}

function env(lib: WidthLibrary, width: number): Record<string, string> {
  return {
    COLUMNS: String(width),
    BOURDON_HOME: lib.home,
    HOME: lib.userHome,
    BOURDON_LOCAL_NAME: 'a-build-machine-with-a-long-host-name-in-the-release-lab',
  };
}

/** Runs every command at `width` on a copy of the library: each line too wide, and each run that ended wrongly. */
async function check(built: WidthLibrary, width: number): Promise<{ wide: string[]; wrong: string[]; runs: number }> {
  const lib = copyWidthLibrary(built);
  const runs = plan(lib);
  const snippetRuns = runs.filter(({ run }) => run.snippets);
  const lists = [...runs.map(({ argv }) => argv), ...snippetRuns.map(({ argv }) => [...argv, '--json'])];
  const results: BatchResult[] = await runCliBatch(lists, env(lib, width));
  // The snippets' own lines: file content, shown as it is.
  const verbatim = new Set<string>();
  for (const result of results.slice(runs.length)) {
    const payload = JSON.parse(result.stdout) as { snippets?: { text: string }[] };
    if (!payload.snippets) throw new Error(`${result.argv.join(' ')}: ${result.stdout}${result.stderr}`);
    for (const snippet of payload.snippets) for (const line of snippet.text.split('\n')) verbatim.add(line);
  }
  const wide: string[] = [];
  const wrong: string[] = [];
  runs.forEach(({ argv, run }, i) => {
    const result = at(results, i, 'a result');
    const label = argv.filter((arg) => arg !== lib.library && arg !== '--library').join(' ');
    if (result.code !== (run.code ?? 0)) wrong.push(`${label}: exit ${result.code}: ${result.stderr}`);
    const shown = [...(run.data ? [] : overlong(result.stdout, width)), ...overlong(result.stderr, width)];
    for (const line of shown) if (!verbatim.has(line)) wide.push(`${label}: ${line}`);
  });
  return { wide, wrong, runs: runs.length };
}

let built: WidthLibrary;
beforeAll(async () => {
  built = await widthLibrary();
}, 120_000);

describe('every command fits the width it is given', () => {
  it('at 80 and at 60 columns: no human line wider, on stdout or stderr', async () => {
    const [at80, at60] = await Promise.all([check(built, 80), check(built, 60)]);
    expect(at80.runs).toBeGreaterThan(Object.keys(manifest.commands).length);
    expect(at80.wrong).toEqual([]);
    expect(at60.wrong).toEqual([]);
    expect(at80.wide).toEqual([]);
    expect(at60.wide).toEqual([]);
  }, 300_000);

  it('in a real 80-column terminal (no COLUMNS): doctor, diff and recent', async () => {
    const lib = copyWidthLibrary(built);
    for (const args of [
      ['doctor', '--offline'],
      ['diff', LONG_AGENT, '3'],
      ['recent', '--since', '2000-01-01'],
    ]) {
      const result = await runInPty([...args, '--library', lib.library], [], {
        columns: 80,
        env: { ...env(lib, 80), COLUMNS: undefined, NO_COLOR: '' },
        timeoutMs: 60_000,
      });
      // A carriage return redraws its line (the progress line does): what is left shown counts.
      const lines = result.output.split('\n').map((line) => line.replace(/\r$/, '').split('\r').pop() ?? '');
      expect(lines.length, args[0]).toBeGreaterThan(5);
      expect(overlong(lines.join('\n'), 80), args[0]).toEqual([]);
    }
  }, 120_000);

  it('ui: every line fits but the one-time link, which stands whole on a line of its own', async () => {
    const lib = copyWidthLibrary(built);
    const ui = await spawnUntil(['ui', '--library', lib.library, '--port', '0'], env(lib, 60), {
      stream: 'stdout',
      pattern: /Ctrl-C stops it[^\n]*\n/,
      timeoutMs: 60_000,
    });
    ui.child.kill('SIGINT');
    await ui.exited;
    const wide = overlong(ui.stdout(), 60);
    expect(wide).toHaveLength(1);
    expect(wide[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{32}\/\?token=[0-9a-f]+$/);
    expect(overlong(ui.stderr(), 60)).toEqual([]);
  }, 90_000);
});
