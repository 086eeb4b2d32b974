/**
 * The user's own `git`, run as a child process: spawned with execFile (never a shell), with no
 * terminal prompt (GIT_TERMINAL_PROMPT=0: a credential git cannot find fails instead of
 * hanging), messages in a fixed locale, no hook of any repository run (NO_HOOKS), and every
 * message that leaves here stripped of any credentials a URL might carry.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { BourdonError, errnoOf } from '../core/errors.js';

export interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

export interface GitOptions {
  cwd?: string;
  /** Bytes written to git's standard input. */
  input?: string | Buffer;
  /** Extra environment (commit identity). */
  env?: NodeJS.ProcessEnv;
  /** Largest output kept (default 64 MiB). */
  maxBuffer?: number;
  timeoutMs?: number;
}

/** `scheme://user:secret@host` → `scheme://***@host`: no credential reaches a message or a payload. */
export function maskUrl(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi, '$1***@');
}

/** The environment git runs in: the user's, so their credential helpers, ssh config and proxies apply. */
function gitEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C', LANG: 'C', ...extra };
}

/**
 * Given to every git sync runs, before its command: no hook runs — neither the working area's,
 * the user's (`core.hooksPath` in their config) nor one a repository's config names — and no
 * fsmonitor program. A path where a hook would be found names nothing (`/dev/null/<hook>`).
 */
export const NO_HOOKS: readonly string[] = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false'];

/**
 * The receiving side of a push to a remote on this machine (a path or file://): git runs the
 * remote repository's `receive-pack` as the pushing user, with its hooks (pre-receive, update,
 * reference-transaction, post-update …) and any `core.hooksPath` its config names, and does not
 * pass our `-c` settings to it. This runs it with none (and no automatic gc, whose hook is the
 * remote's too). Only for local remotes: a server runs its own receive-pack.
 */
export const RECEIVE_PACK_NO_HOOKS = `git -c core.hooksPath=/dev/null -c core.fsmonitor=false -c receive.autogc=false receive-pack`;

/** Whether git reads this remote as a path on this machine (not `host:path`, not a URL other than file://). */
export function isLocalRemote(remote: string): boolean {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(remote)) return /^file:\/\//i.test(remote);
  const colon = remote.indexOf(':');
  const slash = remote.indexOf('/');
  return colon < 0 || (slash >= 0 && slash < colon);
}

/** `git push` options for this remote: for a local one, a receive-pack that runs no hook of the remote's. */
export function pushOptions(remote: string): string[] {
  return isLocalRemote(remote) ? [`--receive-pack=${RECEIVE_PACK_NO_HOOKS}`] : [];
}

/** Runs git; resolves with its exit code and output (never rejects on a non-zero exit). */
export function runGit(args: readonly string[], options: GitOptions = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      [...NO_HOOKS, ...args],
      {
        cwd: options.cwd,
        env: gitEnv(options.env),
        encoding: 'buffer',
        maxBuffer: options.maxBuffer ?? 64 * 1024 * 1024,
        timeout: options.timeoutMs ?? 120_000,
        windowsHide: true,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        if (error && code === null) {
          if (errnoOf(error) === 'ENOENT') {
            reject(
              new BourdonError('git is not installed or not on PATH: `bourdon sync` uses your own git', 'unavailable'),
            );
            return;
          }
          if (error.killed) {
            reject(new BourdonError(`git ${args[0]} was stopped (timed out or killed)`, 'unavailable'));
            return;
          }
          reject(new BourdonError(`git ${args[0]} failed: ${maskUrl(error.message)}`, 'unavailable'));
          return;
        }
        resolve({ code: code ?? 1, stdout: stdout as Buffer, stderr: maskUrl((stderr as Buffer).toString('utf8')) });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
    else child.stdin?.end();
  });
}

/** The last meaningful line git printed, for a one-line error. */
export function gitReason(result: GitResult): string {
  const lines = result.stderr
    .split('\n')
    .map((line) => line.replace(/^(fatal|error|remote): /, '').trim())
    .filter((line) => line && !line.startsWith('hint:'));
  return lines.at(-1) ?? `git exited with ${result.code}`;
}

/** Runs git and answers its standard output as text; a non-zero exit is a one-line BourdonError. */
export async function git(args: readonly string[], options: GitOptions = {}, what = `git ${args[0]}`): Promise<string> {
  const result = await runGit(args, options);
  if (result.code !== 0) throw new BourdonError(`${what} failed: ${gitReason(result)}`, 'unavailable');
  return result.stdout.toString('utf8');
}

/** The git version line, or null when git cannot be run. */
export async function gitVersion(): Promise<string | null> {
  try {
    const result = await runGit(['--version'], { timeoutMs: 10_000 });
    return result.code === 0 ? result.stdout.toString('utf8').trim() : null;
  } catch {
    return null;
  }
}

/** git's object id for a blob of these bytes (SHA-1 of `blob <size>\0<bytes>`), computed without git. */
export function blobId(bytes: Buffer): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}
