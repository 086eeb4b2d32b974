/** Spawns the real `bourdon` binary, as a user or a shell hook would. */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
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
    // A command on a pseudo-terminal must never wait in a pager (src/cli/pager.ts).
    PAGER: 'cat',
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

/** One command's result from runCliBatch, with the argv it ran. */
export interface BatchResult extends CliResult {
  argv: string[];
}

/**
 * Runs many commands in one process (test/helpers/cli-batch.mjs: oclif's `run`, the commands
 * the binary runs), one after the other, each with the same environment (baseEnv plus `env`).
 * One process per command would cost ~0.5 s each on two cores. Neither stdout nor stdin is a
 * terminal, and no command reads stdin.
 */
export async function runCliBatch(
  lists: readonly string[][],
  env: Record<string, string | undefined> = {},
): Promise<BatchResult[]> {
  const dir = tempDir('bourdon-batch-');
  const listFile = path.join(dir, 'argv.json');
  fs.writeFileSync(listFile, JSON.stringify(lists));
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [path.join(REPO_ROOT, 'test', 'helpers', 'cli-batch.mjs'), REPO_ROOT, listFile],
      { cwd: REPO_ROOT, env: baseEnv(env), maxBuffer: 64 * 1024 * 1024 },
    );
    return JSON.parse(stdout) as BatchResult[];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A long-lived command spawned by spawnUntil, once its output matched. */
export interface SpawnedUntil {
  child: ChildProcess;
  /** The match in the watched stream's output. */
  match: RegExpExecArray;
  stdout(): string;
  stderr(): string;
  /** Settles with the exit code when the process has exited. */
  exited: Promise<number | null>;
}

/**
 * Spawns the real binary (`bin`, `bourdon` unless another) with `args`, as a long-lived command
 * (a server, the page), and resolves once what it wrote on `stream` matches `pattern`; rejects
 * when it exits first, or says nothing that matches within `timeoutMs` (then it is killed).
 */
export function spawnUntil(
  args: string[],
  env: Record<string, string | undefined>,
  watch: { stream: 'stdout' | 'stderr'; pattern: RegExp; timeoutMs: number; bin?: string },
): Promise<SpawnedUntil> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [watch.bin ?? BIN, ...args], {
      cwd: REPO_ROOT,
      env: baseEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = { stdout: '', stderr: '' };
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `nothing matching ${watch.pattern} on ${watch.stream} within ${watch.timeoutMs} ms; stderr: ${output.stderr}`,
        ),
      );
    }, watch.timeoutMs);
    for (const stream of ['stdout', 'stderr'] as const) {
      child[stream]!.on('data', (chunk: Buffer) => {
        output[stream] += chunk.toString('utf8');
        if (stream !== watch.stream) return;
        const match = watch.pattern.exec(output[stream]);
        if (!match) return;
        clearTimeout(timer);
        resolve({ child, match, stdout: () => output.stdout, stderr: () => output.stderr, exited });
      });
    }
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code}) before printing ${watch.pattern}: ${output.stderr}`));
    });
  });
}
