/**
 * What kind of failure an error is: adapters decide from the code (CLI exit status, doctor's
 * warn-or-fail), never from the message text. A closed set: add a code here before using it.
 * - `usage`: the command line or a flag is wrong (exit 2).
 * - `invalid_input`: a value or document given is malformed (bad YAML, an invalid id).
 * - `not_found`: the library, an agent, a version or a staged write does not exist.
 * - `access_denied`: the caller may not do this (exit 3).
 * - `busy`: another writer holds the library; trying again later can succeed.
 * - `unavailable`: a file, port or peer cannot be reached or used right now.
 * - `conflict`: the request contradicts the current state (a revoked member, a lock lost).
 * - `cancelled`: the person stopped a prompt (Ctrl-C); nothing was changed (exit 130).
 * - `failed`: anything else; the message says what.
 */
export type ErrorCode =
  | 'usage'
  | 'invalid_input'
  | 'not_found'
  | 'access_denied'
  | 'busy'
  | 'unavailable'
  | 'conflict'
  | 'cancelled'
  | 'failed';

/** The CLI exit status of a code (spec §12): 1 error, 2 usage, 3 access denied; 130 cancelled (128 + SIGINT). */
export function exitCodeOf(code: ErrorCode): number {
  if (code === 'usage') return 2;
  if (code === 'access_denied') return 3;
  if (code === 'cancelled') return 130;
  return 1;
}

/** Errors that reach users: a coded failure with a one-line message, meant to be shown as is. */
export class BourdonError extends Error {
  readonly code: ErrorCode;
  constructor(message: string, code: ErrorCode = 'failed') {
    super(message);
    this.name = 'BourdonError';
    this.code = code;
  }

  /** The CLI exit status this error ends a command with. */
  get exitCode(): number {
    return exitCodeOf(this.code);
  }
}

export class UsageError extends BourdonError {
  constructor(message: string) {
    super(message, 'usage');
    this.name = 'UsageError';
  }
}

export class AccessDeniedError extends BourdonError {
  constructor(message: string) {
    super(message, 'access_denied');
    this.name = 'AccessDeniedError';
  }
}

/** Longest caller-supplied value a log line echoes. */
const MAX_LOGGED_VALUE_CHARS = 200;
/** Longest error description: messages can quote caller input (a 1 MiB argument must not reach a log whole). */
const MAX_ERROR_CHARS = 500;

function capped(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}

/** A caller-supplied value as a log line shows it: JSON-quoted, cut at 200 characters. */
export function loggedValue(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return capped(text, MAX_LOGGED_VALUE_CHARS);
}

/**
 * Node's system errors in words. The everyday ones a person fixes at once read as words alone;
 * the faults of a machine (a full or failing disk, exhausted descriptors) keep their code in
 * parentheses too, as that is what one searches for.
 */
const SYSTEM_ERROR_WORDS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'it is a folder, not a file',
  ENOTDIR: 'part of the path is a file, not a folder',
  EEXIST: 'it already exists',
  ENOTEMPTY: 'the folder is not empty',
  ENAMETOOLONG: 'the name is too long',
  ELOOP: 'too many symbolic links',
  ENOSPC: 'no space left on the device (ENOSPC)',
  EDQUOT: 'disk quota exceeded (EDQUOT)',
  EROFS: 'read-only file system (EROFS)',
  EIO: 'input/output error, the disk may be failing (EIO)',
  EMFILE: 'too many open files (EMFILE)',
  ENFILE: 'too many open files on this machine (ENFILE)',
  EBUSY: 'the file is busy (EBUSY)',
  EXDEV: 'cannot move across file systems (EXDEV)',
};

/** The syscalls on folders: their ENOENT is a missing folder, not a missing file. */
const FOLDER_SYSCALLS = new Set(['scandir', 'opendir', 'mkdir', 'rmdir', 'chdir']);

/**
 * The words for a Node system error ("ENOENT: no such file or directory, stat 'rows.yaml'"
 * becomes "no such file"), or null for any other error. Only an error whose message is Node's
 * own `CODE: …` form is reworded, so a message written by this project is never replaced.
 */
export function systemErrorWords(error: unknown): string | null {
  if (!(error instanceof Error)) return null;
  const { code, syscall } = error as NodeJS.ErrnoException;
  if (typeof code !== 'string' || !error.message.startsWith(`${code}:`)) return null;
  const words = SYSTEM_ERROR_WORDS[code];
  if (code === 'ENOENT' && syscall && FOLDER_SYSCALLS.has(syscall)) return 'no such folder';
  return words ?? null;
}

/**
 * A one-line description of any thrown value, never a stack trace, at most 500 characters.
 * Node's file errors are given in words (systemErrorWords); the file's path is added only with
 * `withPath` (callers mostly name the file themselves: "cannot read rows.yaml: no such file").
 */
export function describeError(error: unknown, options: { withPath?: boolean } = {}): string {
  const words = systemErrorWords(error);
  if (words !== null) {
    const file = (error as NodeJS.ErrnoException).path;
    return capped(options.withPath && file ? `${file}: ${words}` : words, MAX_ERROR_CHARS);
  }
  const line = error instanceof Error ? error.message.split('\n')[0] || error.name : String(error).split('\n')[0];
  return capped(line, MAX_ERROR_CHARS);
}
