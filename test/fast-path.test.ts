/**
 * The fast path of the `--json` read commands (src/cli/fast-path.ts, docs/cli.md): it must
 * answer exactly as oclif would, or leave the call to oclif.
 *
 * - Its argv parser and oclif's derive from one declaration per command and agree on generated
 *   argv (test/read-commands.parse.test.ts).
 * - The real binary, over a matrix of good, bad and edge argvs, prints the same stdout and
 *   stderr and exits with the same code with the fast path on and forced off
 *   (BOURDON_NO_FAST_PATH=1).
 * - The happy cases of that matrix are the ones the fast path answers itself (so the
 *   comparison above is not oclif against oclif), and the rest fall back.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type vm from 'node:vm';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { FAILURES } from '../src/core/errors.js';
import { READ_COMMANDS } from '../src/cli/read-commands.js';
import { parseFastCall, runFastPath } from '../src/cli/fast-path.js';
import { baseEnv, runCli, type CliResult } from './helpers/cli.js';
import { BIN, copyFixtureLibrary, REPO_ROOT, tempDir } from './helpers/fixtures.js';
import { at } from './helpers/items.js';

/** bin/run.js, which loads the fast path (its code runs only when it is the main module). */
const binRun = createRequire(import.meta.url)('../bin/run.js') as {
  bundleScript(file: string, cachedData?: Buffer): vm.Script;
};

// ---------------------------------------------------------------------------------------

let library = '';
let home = '';
const fixturePrompt = 'can we keep working on bourdon and ILTT?';

/** One row of the matrix: the argv, and whether the fast path answers it (else oclif does). */
interface Row {
  argv: string[];
  fast: boolean;
  env?: Record<string, string>;
}

function matrix(): Row[] {
  const L = ['--library', library];
  const rows: Row[] = [];
  const add = (fast: boolean, ...argv: string[]) => rows.push({ argv, fast });
  // agents
  add(true, 'agents', '--json', ...L);
  add(true, 'agents', '--export', '--json', '--wide', ...L);
  add(true, 'agents', '--json', `--library=${library}`);
  add(false, 'agents', '--json', '--federated', ...L);
  add(false, 'agents', '--json', '--json', ...L);
  add(false, 'agents', '--json', '--bogus', ...L);
  add(false, 'agents', '--json', 'extra', ...L);
  add(false, 'agents', '--json', '-h');
  add(false, 'agents', '--json', '--help');
  add(false, 'agents', '--json', '--export=true', ...L);
  add(false, 'agents', '--json', '--library', path.join(library, 'missing'));
  add(false, 'agents', '--json', '--library');
  add(false, 'agents', '--json', '--library', '');
  // find and query
  add(true, 'find', 'bourdon', '--json', ...L);
  add(true, 'find', 'L6Store', '--json', '--access-level', 'public', ...L);
  add(true, 'find', '--json', 'bourdon', '--access-level=private', ...L);
  add(true, 'find', 'bourdon', '--json', '--include-private', ...L);
  add(true, 'find', 'nothing like this', '--json', ...L);
  add(false, 'find', 'bourdon', '--json', '--access-level', 'secret', ...L);
  add(false, 'find', '--json', ...L);
  add(false, 'find', 'a', 'b', '--json', ...L);
  add(false, 'find', '--json', ...L, '--', '-x');
  add(false, 'find', '', '--json', ...L);
  add(false, 'find', 'bourdon', '--json', '-x', ...L);
  add(true, 'query', 'codex', 'bourdon', '--json', ...L);
  add(true, 'query', 'codex', 'ILTT', '--json', '--access-level', 'team', ...L);
  add(false, 'query', 'codx', 'bourdon', '--json', ...L);
  add(false, 'query', 'nobody-at-all', 'bourdon', '--json', ...L);
  add(false, 'query', 'codex', '--json', ...L);
  // recent, with every --since form and --limit bound
  add(true, 'recent', '--json', ...L);
  for (const since of ['2020-01-01', '2026-06-01T10:00:00Z', 'today', 'yesterday', '7d', '2w', '9999d'])
    add(true, 'recent', '--json', '--since', since, ...L);
  for (const since of ['garbage', '2026-13-45', '2w3d', '-7d']) add(false, 'recent', '--json', '--since', since, ...L);
  add(true, 'recent', '--json', '--since', '2020-01-01', '--limit', '1', ...L);
  add(true, 'recent', '--json', '--since', '2020-01-01', '--limit', '100', '--summary', ...L);
  add(true, 'recent', '--json', '--since', '2020-01-01', '--limit', '1', '--all', ...L);
  add(true, 'recent', '--json', '--since', '2020-01-01', '--agent', 'codex', ...L);
  add(false, 'recent', '--json', '--since', '2020-01-01', '--agent', 'nobody', ...L); // an unknown agent: oclif's error
  add(false, 'list-notes', '--json', '--agent', 'nobody', ...L);
  add(false, 'workstreams', '--json', '--agent', 'nobody', ...L);
  for (const limit of ['0', '101', 'abc', '-1', '1.5', '1e2']) add(false, 'recent', '--json', '--limit', limit, ...L);
  add(false, 'recent', '--json', '--all', '--cursor', 'x', ...L);
  add(false, 'recent', '--json', '--cursor', 'not-a-cursor', ...L);
  add(false, 'recent', '--json', '--since', '2020-01-01', '--since', '2021-01-01', ...L);
  // list-notes and workstreams
  add(true, 'list-notes', '--json', '--since', '2020-01-01', ...L);
  add(true, 'list-notes', '--json', '--since', '2020-01-01', '--tag', 'release', '--project', 'bourdon', ...L);
  add(true, 'list-notes', '--json', '--since', '2020-01-01', '--limit', '1', '--all', ...L);
  add(false, 'list-notes', '--json', '--limit', '101', ...L);
  add(true, 'workstreams', '--json', '--since', '2020-01-01', ...L);
  add(true, 'workstreams', '--json', '--since', '2020-01-01', '--status', 'idle', '--limit', '1', ...L);
  add(true, 'workstreams', '--json', '--since', '2020-01-01', '--limit', '1', '--all', '--wide', ...L);
  add(false, 'workstreams', '--json', '--status', 'bogus', ...L);
  // summary, recognize, deeper-context
  add(true, 'summary', 'bourdon', '--json', ...L);
  add(true, 'summary', 'ILTT', '--json', '--access-level', 'public', ...L);
  add(false, 'summary', '--json', ...L);
  add(true, 'recognize', fixturePrompt, '--json', ...L);
  add(true, 'recognize', fixturePrompt, '--json', '--access-level', 'private', ...L);
  add(true, 'deeper-context', fixturePrompt, '--json', ...L);
  // search
  add(true, 'search', 'bourdon', '--json', ...L);
  add(true, 'search', 'bourdn', '--json', '--kind', 'entity', '--limit', '5', '--access-level', 'team', ...L);
  add(false, 'search', '--json', ...L);
  add(false, 'search', 'bourdon', '--json', '--limit', '0', ...L);
  // history and diff (the library has versions: see beforeAll)
  add(true, 'history', 'codex', '--json', ...L);
  add(true, 'history', 'codex', '--json', '--limit', '1', ...L);
  add(true, 'history', 'cursor', '--json', ...L);
  add(false, 'history', 'codex', '--json', '--limit', '1001', ...L);
  add(false, 'history', 'nobody', '--json', ...L);
  add(false, 'history', '../x', '--json', ...L);
  add(true, 'diff', 'codex', '2', '--json', ...L);
  add(true, 'diff', 'codex', '3', '--against', '1', '--json', ...L);
  add(false, 'diff', 'codex', 'two', '--json', ...L);
  add(false, 'diff', 'codex', '99', '--json', ...L);
  add(false, 'diff', 'codex', '2', '--against', 'x', '--json', ...L);
  // note show (a command in a topic: its id is two words; beforeAll adds codex's one note)
  add(true, 'note', 'show', 'codex:1', '--json', ...L);
  add(true, 'note', 'show', 'codex:1', '--json', '--access-level', 'team', ...L);
  add(false, 'note', 'show', 'codex:2', '--json', ...L);
  add(false, 'note', 'show', 'codx:1', '--json', ...L);
  add(false, 'note', 'show', 'codex', '--json', ...L);
  add(false, 'note', 'show', '--json', ...L);
  add(false, 'note', 'show', 'codex:1', ...L);
  // The library from the environment, and the library missing
  rows.push({ argv: ['find', 'bourdon', '--json'], fast: true, env: { BOURDON_LIBRARY: library } });
  rows.push({ argv: ['agents', '--json'], fast: false, env: { BOURDON_LIBRARY: path.join(library, 'nope') } });
  // Not reads, or not --json: never the fast path
  add(false, 'find', 'bourdon', ...L);
  add(false, 'staging', 'list', '--json', ...L);
  return rows;
}

async function pool<T, R>(items: T[], size: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await work(items[i]!);
      }
    }),
  );
  return out;
}

describe('fast path: the same answers as oclif', () => {
  let rows: Row[] = [];

  beforeAll(async () => {
    library = copyFixtureLibrary();
    home = tempDir('bourdon-fast-home-');
    // Three recorded versions of codex, for history and diff.
    for (const name of ['Fast path A', 'Fast path B']) {
      const result = await runCli(['commit', 'codex', '--file', '-', '--library', library], {
        env: { BOURDON_HOME: home },
        input: `entities:\n  - name: ${name}\n    summary: a row for history\n`,
      });
      expect(result.code, result.stderr).toBe(0);
    }
    const noted = await runCli(['note', 'add', 'codex', 'A note for note show', '--library', library], {
      env: { BOURDON_HOME: home },
    });
    expect(noted.code, noted.stderr).toBe(0);
    rows = matrix();
  }, 60_000);

  it('the fast path takes the happy cases and nothing else', async () => {
    const saved = { home: process.env.BOURDON_HOME, library: process.env.BOURDON_LIBRARY };
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const taken: string[] = [];
    const wrong: string[] = [];
    try {
      process.env.BOURDON_HOME = home;
      for (const row of rows) {
        process.env.BOURDON_LIBRARY = row.env?.BOURDON_LIBRARY ?? '';
        out.mockClear();
        const answered = await runFastPath(row.argv);
        if (answered !== row.fast) wrong.push(`${row.argv.join(' ')}: ${answered ? 'taken' : 'left to oclif'}`);
        // Nothing printed before a fallback.
        if (!answered && out.mock.calls.length > 0) wrong.push(`${row.argv.join(' ')}: printed, then fell back`);
        const [first = '', second] = row.argv;
        const topical = `${first}:${second}`;
        if (answered) taken.push(Object.hasOwn(READ_COMMANDS, topical) ? topical : first);
      }
    } finally {
      out.mockRestore();
      err.mockRestore();
      for (const [key, value] of [
        ['BOURDON_HOME', saved.home],
        ['BOURDON_LIBRARY', saved.library],
      ] as const) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
    expect(wrong).toEqual([]);
    expect(new Set(taken)).toEqual(new Set(Object.keys(READ_COMMANDS)));
  });

  it('the binary prints the same stdout and stderr, and exits the same, with the fast path on and off', async () => {
    const runBoth = async (row: Row): Promise<[CliResult, CliResult]> => {
      const env = { BOURDON_HOME: home, ...row.env };
      const fast = await runCli(row.argv, { env });
      const slow = await runCli(row.argv, { env: { ...env, BOURDON_NO_FAST_PATH: '1' } });
      return [fast, slow];
    };
    const results = await pool(rows, 3, runBoth);
    // The one field that is a measurement, not an answer.
    const answer = (stdout: string) =>
      stdout.replace(/"recognition_latency_us": [\d.]+/g, '"recognition_latency_us": 0');
    const differences: string[] = [];
    results.forEach(([fast, slow], i) => {
      const same =
        fast.code === slow.code && answer(fast.stdout) === answer(slow.stdout) && fast.stderr === slow.stderr;
      if (!same)
        differences.push(
          `${at(rows, i).argv.join(' ')}\n  on:  ${JSON.stringify(fast)}\n  off: ${JSON.stringify(slow)}`,
        );
    });
    expect(differences).toEqual([]);
    // The matrix exercises every outcome: answers, usage errors, unknown agents and versions,
    // refused values (docs/errors.md), and warnings.
    const codes = new Set(results.map(([fast]) => fast.code));
    expect([...codes].sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual([
      0,
      FAILURES.usage.exit,
      FAILURES.not_found.exit,
      FAILURES.invalid_input.exit,
    ]);
    expect(results.some(([fast]) => fast.code === 0 && fast.stderr.includes('warning'))).toBe(true);
  }, 240_000);
});

describe('a reader that stops early (`bourdon … --json | head -1`)', () => {
  it('ends the command quietly, exit 0, with the fast path on and off', async () => {
    // Answers far larger than a pipe holds (64 KiB), so the writer meets the closed pipe.
    const big = tempDir('bourdon-epipe-');
    // bench/generate.js: 4 agents, 50 entities, 300 sessions, 5 notes each.
    execFileSync(process.execPath, [
      path.join(REPO_ROOT, 'bench', 'generate.js'),
      path.join(big, 'library'),
      '4',
      '50',
      '300',
      '5',
    ]);
    const argv = ['recent', '--json', '--since', '2000-01-01', '--all', '--library', path.join(big, 'library')];
    for (const env of [{}, { BOURDON_NO_FAST_PATH: '1' }]) {
      const child = spawn(process.execPath, [BIN, ...argv], { env: baseEnv({ BOURDON_HOME: home, ...env }) });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      // The reader is gone before the answer is written (as `| true`, or a `head` that has
      // read its line).
      child.stdout.destroy();
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect({ code, stderr }, JSON.stringify(env)).toEqual({ code: 0, stderr: '' });
    }
  });
});

describe('fast path: parsing', () => {
  it('reads flags with their values, in any order, with booleans defaulting to false', () => {
    const call = parseFastCall(['recent', '--limit=5', '--json', '--since', '2026-01-01', '--agent', 'codex']);
    expect(call?.flags).toMatchObject({ json: true, limit: 5, since: '2026-01-01', agent: 'codex', all: false });
    expect(parseFastCall(['find', 'x', '--json'])?.args).toEqual({ name: 'x' });
  });

  it('leaves every call it cannot vouch for to oclif', () => {
    for (const argv of [
      [],
      ['find', 'x'],
      ['find', 'x', '--json', '--access-level'],
      ['find', 'x', '--json', '--access-level', '--json'],
      ['find', 'x', '--json', '--json'],
      ['toString', '--json'],
      ['find', 'x', '--json', '--constructor'],
    ])
      expect(parseFastCall(argv), argv.join(' ')).toBeNull();
  });

  it('imports no oclif module, directly or through the modules it imports', () => {
    const seen = new Set<string>();
    const packages = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = fs.readFileSync(file, 'utf8');
      for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^']+)'/g)) {
        const spec = match[1]!;
        if (spec.startsWith('.')) visit(path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts')));
        else packages.add(spec);
      }
    };
    visit(path.join(REPO_ROOT, 'src', 'cli', 'fast-path.ts'));
    expect(seen.size).toBeGreaterThan(10);
    expect([...packages].filter((name) => name.startsWith('@oclif/'))).toEqual([]);
  });

  it('the build ships a V8 code cache for the fast path that the Node which built it accepts, with the functions a query runs', () => {
    // Before Node 22.1, bin/run.js runs dist/bundle/fast-path.cjs from this cache: a rejected one
    // (a build change that no longer matches) would silently cost the compiles again.
    const file = path.join(REPO_ROOT, 'dist', 'bundle', 'fast-path.cjs');
    const cache = fs.readFileSync(`${file}.cache`);
    expect(binRun.bundleScript(file, cache).cachedDataRejected).toBe(false);
    // Made after the read commands ran (scripts/fast-path-cache.mjs), it holds more than the
    // module's top level, which is all a cache made right after compiling holds.
    const topLevelOnly = binRun.bundleScript(file).createCachedData();
    expect(cache.length).toBeGreaterThan(topLevelOnly.length * 1.5);
  });
});
