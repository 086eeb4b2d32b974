/**
 * The package as a user gets it: `npm pack`, installed from the tarball into an empty prefix
 * without dev dependencies, and run from outside the checkout. Proves `files`, `bin`, the oclif
 * manifest and the runtime dependencies are right. Needs the build (npm test does it) and the npm
 * registry or its cache for the runtime dependencies.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { runCli } from './helpers/cli.js';
import { readJson, REPO_ROOT, tempDir } from './helpers/fixtures.js';
import { only } from './helpers/items.js';

const run = promisify(execFile);
const { version } = readJson<{ version: string }>(path.join(REPO_ROOT, 'package.json'));

describe('the packed tarball, installed without dev dependencies', () => {
  let prefix: string;
  let outside: string;
  let packed: string[];
  const installed = (name: string) => path.join(prefix, 'bin', name);

  beforeAll(async () => {
    const work = tempDir('bourdon-pack-');
    prefix = path.join(work, 'prefix');
    outside = path.join(work, 'elsewhere');
    fs.mkdirSync(outside);
    // dist/ is already built (npm test builds first); skip `prepare` so packing is quick.
    const { stdout } = await run(
      'npm',
      ['pack', '--json', '--ignore-scripts', '--pack-destination', work, '--loglevel=error'],
      { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024 },
    );
    const report = only(JSON.parse(stdout) as { filename: string; files: { path: string }[] }[], 'pack report');
    packed = report.files.map((file) => file.path);
    await run(
      'npm',
      [
        'install',
        '--global',
        '--prefix',
        prefix,
        '--omit=dev',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        '--loglevel=error',
        path.join(work, report.filename),
      ],
      { cwd: outside, timeout: 170_000, maxBuffer: 16 * 1024 * 1024 },
    );
  }, 180_000);

  it('ships the build, the binaries, the manifest and the demo library, and no sources or tests', () => {
    for (const file of ['bin/run.js', 'bin/l6-server.js', 'oclif.manifest.json', 'dist/index.js', 'package.json'])
      expect(packed).toContain(file);
    expect(packed.some((file) => file.startsWith('demo/templates/') && file.endsWith('.l5.yaml.in'))).toBe(true);
    expect(packed.filter((file) => /^(src|test|bench)\//.test(file))).toEqual([]);
  });

  it('bourdon --version answers with the package version', async () => {
    const result = await runCli(['--version'], { bin: installed('bourdon'), cwd: outside });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`bourdon/${version}`);
  });

  it('bourdon demo runs a real MCP session from the installed package', async () => {
    const result = await runCli(['demo', '--json'], { bin: installed('bourdon'), cwd: outside, timeoutMs: 30_000 });
    expect(result.code, result.stderr).toBe(0);
    const payload = JSON.parse(result.stdout) as { agents: string[]; library: string };
    expect(payload.agents.length).toBeGreaterThan(1);
    expect(fs.existsSync(payload.library)).toBe(false); // the demo cleans up after itself
  });

  it('a --json read answers from the installed package with and without the fast path, alike', async () => {
    // A copy of the installed package's demo library (`demo --keep`), read with a cold cache:
    // the fast path parses the YAML (js-yaml, loaded on demand from the installed dependencies).
    const kept = await runCli(['demo', '--keep', '--json'], { bin: installed('bourdon'), cwd: outside });
    expect(kept.code, kept.stderr).toBe(0);
    const library = (JSON.parse(kept.stdout) as { library: string }).library;
    onTestFinished(() => fs.rmSync(library, { recursive: true, force: true }));
    const home = path.join(outside, 'home');
    const args = ['find', 'sync engine', '--json', '--library', library];
    const fast = await runCli(args, { bin: installed('bourdon'), cwd: outside, env: { BOURDON_HOME: home } });
    const slow = await runCli(args, {
      bin: installed('bourdon'),
      cwd: outside,
      env: { BOURDON_HOME: path.join(outside, 'home-2'), BOURDON_NO_FAST_PATH: '1' },
    });
    expect(fast.code, fast.stderr).toBe(0);
    expect((JSON.parse(fast.stdout) as { matches: unknown[] }).matches.length).toBeGreaterThan(0);
    expect(fast).toEqual(slow);
  });

  it('bourdon-l6-server --help prints its usage', async () => {
    const result = await runCli(['--help'], { bin: installed('bourdon-l6-server'), cwd: outside });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Serve the library to AI agents over MCP.');
    expect(result.stdout).toMatch(/USAGE\s+\$ bourdon serve/);
  });
});
