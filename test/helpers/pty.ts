/**
 * Drives the real `bourdon` binary on a pseudo-terminal (test/helpers/pty-driver.py, python3's
 * standard library): answers are typed when the prompt text appears, as a person would.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { baseEnv } from './cli.js';
import { BIN, REPO_ROOT } from './fixtures.js';

const DRIVER = path.join(REPO_ROOT, 'test', 'helpers', 'pty-driver.py');

export interface PtyStep {
  /** Text (or pattern) to wait for in the terminal output, ANSI codes removed. */
  expect: string | RegExp;
  /** What to type once it appears ("\r" is Enter). */
  send: string;
}

export interface PtyResult {
  code: number | null;
  /** Everything the terminal showed, raw. */
  output: string;
  /** stderr, when it was kept separate. */
  stderr: string;
  /** Steps whose prompt never appeared (empty when all were answered). */
  unanswered: PtyStep[];
}

export interface PtyOptions {
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
  /** Keep stderr a pipe (stdin and stdout stay a terminal). */
  separateStderr?: boolean;
  /** The terminal's width (default 120 columns). */
  columns?: number;
  cwd?: string;
}

// eslint-disable-next-line no-control-regex
export const ANSI = /\u001b\[[0-9;?]*[A-Za-z]|\u001b[()][A-Za-z0-9]|\u001b[=>]/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

export function runInPty(args: string[], steps: PtyStep[] = [], options: PtyOptions = {}): Promise<PtyResult> {
  return new Promise((resolve, reject) => {
    const driverArgs = [
      DRIVER,
      ...(options.separateStderr ? ['--separate-stderr'] : []),
      ...(options.columns ? ['--columns', String(options.columns)] : []),
      '--',
      process.execPath,
      BIN,
      ...args,
    ];
    const child = spawn('python3', driverArgs, {
      cwd: options.cwd ?? REPO_ROOT,
      env: { ...baseEnv(options.env), TERM: options.env?.TERM ?? 'xterm-256color' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    let stderr = '';
    let cursor = 0;
    const pending = [...steps];
    const advance = () => {
      for (let step = pending[0]; step !== undefined; step = pending[0]) {
        const visible = stripAnsi(output);
        const rest = visible.slice(cursor);
        const index = typeof step.expect === 'string' ? rest.indexOf(step.expect) : rest.search(step.expect);
        if (index < 0) return;
        const length =
          typeof step.expect === 'string'
            ? step.expect.length
            : (rest.slice(index).match(step.expect)?.[0].length ?? 0);
        cursor += index + length;
        pending.shift();
        child.stdin.write(step.send);
      }
    };
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      advance();
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGTERM'), options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, stderr, unanswered: pending });
    });
  });
}
