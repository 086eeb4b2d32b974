/**
 * Long output through a pager, as git and gh do: only when stdout is a terminal, only when the
 * text is taller than it, and never under `--json` (whose output never passes here). The pager
 * is `BOURDON_PAGER`, else `PAGER`, else `less` (none on Windows); `cat` or an empty value turns paging off, and
 * so does `--no-pager` (taken off the arguments before oclif reads them: see stripNoPager).
 * `less` gets `LESS=FRX` when LESS is unset (quit when it fits, keep colours, leave the text on
 * the screen), as git sets it. A pager that cannot start leaves the text printed directly.
 */
import type * as ChildProcess from 'node:child_process';
import { createRequire } from 'node:module';

// node:child_process (and the net and stream modules it loads) only when a pager runs: most
// output is never paged, and every export prints its line through here (bench/README.md).
const require = createRequire(import.meta.url);

const NO_PAGER_FLAG = '--no-pager';

/**
 * Takes `--no-pager` off argv (before a `--`) and records it in the environment the pager
 * reads, so the help class (another bundle chunk) and every command see it alike.
 */
export function stripNoPager(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): string[] {
  const end = argv.indexOf('--');
  const head = end < 0 ? [...argv] : argv.slice(0, end);
  if (!head.includes(NO_PAGER_FLAG)) return [...argv];
  env.BOURDON_PAGER = 'cat';
  return [...head.filter((arg) => arg !== NO_PAGER_FLAG), ...(end < 0 ? [] : argv.slice(end))];
}

/** The pager command to run, or null when output is not paged. */
export function pagerCommand(env: NodeJS.ProcessEnv = process.env, stdout = process.stdout): string | null {
  if (!stdout.isTTY) return null;
  // Windows has no `less` to count on: there only a pager that is asked for pages.
  const chosen = env.BOURDON_PAGER ?? env.PAGER ?? (process.platform === 'win32' ? '' : 'less');
  const command = chosen.trim();
  if (command === '' || command === 'cat') return null;
  return command;
}

/** Writes `text` to stdout, through the pager when it is on and the text is taller than the terminal. */
export function writePaged(text: string, env: NodeJS.ProcessEnv = process.env): void {
  const command = pagerCommand(env);
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  const rows = process.stdout.rows;
  if (!command || (rows && lines < rows)) {
    process.stdout.write(text);
    return;
  }
  // Ctrl-C goes to the pager (less leaves on q); this process waits for it rather than dying
  // under it and leaving the pager on the terminal.
  const ignore = () => {};
  process.on('SIGINT', ignore);
  try {
    const { spawnSync } = require('node:child_process') as typeof ChildProcess;
    const result = spawnSync(command, {
      shell: true,
      input: text,
      stdio: ['pipe', 'inherit', 'inherit'],
      env: { ...env, LESS: env.LESS ?? 'FRX', LV: env.LV ?? '-c' },
    });
    // The shell answers 127 when the pager is not there: the text is printed as it would be.
    if (result.error || result.status === 127) process.stdout.write(text);
  } finally {
    process.off('SIGINT', ignore);
  }
}
