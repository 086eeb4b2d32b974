/**
 * A python that can import the official `mcp` client, for the tests that drive our server with
 * it. In order: BOURDON_TEST_PYTHON (a python that must have it), then `python3` if it has it,
 * then a virtual environment of the suite's own under node_modules/.cache (a cache: made once
 * with `pip install`, reused by later runs, removed with node_modules). pip runs under the run's
 * private HOME (private-home.ts) with no cache, so it writes nothing in the user's; it reads the
 * user's pip configuration (the index it installs from) through PIP_CONFIG_FILE. When pip
 * cannot install the package, the reason is one line and the tests that need it are skipped.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './fixtures.js';

/** The packages the environment holds: the client, and PyYAML (the engine's YAML reader). */
const PACKAGES = ['mcp', 'pyyaml'];
const CACHE = path.join(REPO_ROOT, 'node_modules', '.cache', 'bourdon-python-mcp');
const CACHED_PYTHON = path.join(CACHE, 'bin', 'python');

export type PythonMcp = { python: string } | { unavailable: string };

function importsMcp(python: string): boolean {
  try {
    execFileSync(python, ['-c', 'import mcp.client.streamable_http'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * The user's own pip configuration file, read from their real home (the run's HOME is a private
 * one): it names the index pip installs from on a machine without PyPI. Read, never written.
 */
function userPipConfig(): string | undefined {
  if (process.env.PIP_CONFIG_FILE) return process.env.PIP_CONFIG_FILE;
  const home = os.userInfo().homedir;
  return [path.join(home, '.config', 'pip', 'pip.conf'), path.join(home, '.pip', 'pip.conf')].find((file) =>
    fs.existsSync(file),
  );
}

/** The last line of a failed command's stderr: what a person reads first. */
function lastLine(error: unknown): string {
  const { stderr = '' } = error as { stderr?: string };
  const lines = stderr.trim().split('\n');
  return lines[lines.length - 1] || String(error);
}

/**
 * Makes the cached environment: built beside the cache and renamed into place once pip has
 * finished, so an interrupted install or a second run doing the same leaves no half-made one.
 */
async function installCached(): Promise<PythonMcp> {
  const building = `${CACHE}.building-${process.pid}`;
  fs.rmSync(building, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(CACHE), { recursive: true });
  const run = promisify(execFile);
  try {
    await run('python3', ['-m', 'venv', building], { timeout: 60_000 });
    // One attempt per index, short timeouts: a machine without PyPI but with a local index
    // (pip's extra-index-url) installs from it instead of retrying the unreachable one.
    await run(
      path.join(building, 'bin', 'python'),
      ['-m', 'pip', 'install', '--quiet', '--no-cache-dir', '--retries', '0', '--timeout', '15', ...PACKAGES],
      { timeout: 300_000, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, PIP_CONFIG_FILE: userPipConfig() } },
    );
  } catch (error) {
    fs.rmSync(building, { recursive: true, force: true });
    return {
      unavailable: `pip could not install ${PACKAGES.join(' ')} into a virtual environment: ${lastLine(error)}`,
    };
  }
  try {
    fs.renameSync(building, CACHE);
  } catch {
    // Another run put its environment there first: use that one.
    fs.rmSync(building, { recursive: true, force: true });
  }
  return importsMcp(CACHED_PYTHON)
    ? { python: CACHED_PYTHON }
    : { unavailable: `the environment pip made in ${CACHE} cannot import mcp` };
}

/** A python with the `mcp` client, installing it into the cache when no python has it. */
export async function pythonWithMcp(): Promise<PythonMcp> {
  const chosen = process.env.BOURDON_TEST_PYTHON;
  if (chosen) {
    return importsMcp(chosen)
      ? { python: chosen }
      : { unavailable: `BOURDON_TEST_PYTHON=${chosen} cannot import mcp (pip install mcp)` };
  }
  if (importsMcp('python3')) return { python: 'python3' };
  if (importsMcp(CACHED_PYTHON)) return { python: CACHED_PYTHON };
  // A cache that cannot import mcp is a half-made or broken one: made again.
  fs.rmSync(CACHE, { recursive: true, force: true });
  return installCached();
}
