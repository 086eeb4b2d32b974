/** Spawns the real `bourdon` binary, as a user or a shell hook would. */
import { spawn } from 'node:child_process';
import { BIN, REPO_ROOT, tempDir } from './fixtures.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string | undefined>;
  input?: string;
  cwd?: string;
  bin?: string;
  timeoutMs?: number;
}

/** Config dir for spawned CLIs unless a test names its own: never the user's ~/.bourdon. */
let sharedHome: string | null = null;
function testHome(): string {
  sharedHome ??= tempDir('bourdon-cli-home-');
  return sharedHome;
}

/** A clean environment: no colour forcing, config dirs only where the test says. */
export function baseEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NO_COLOR: '1',
    BOURDON_HOME: testHome(),
    ...extra,
  };
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete env[key];
  return env;
}

export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [options.bin ?? BIN, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: baseEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}
