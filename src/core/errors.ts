/** How each adapter shows a failure of one code: the CLI's exit status, the page's HTTP status, the audit line's decision. */
export interface FailureRule {
  /** What the code means, as docs/errors.md says it. */
  readonly meaning: string;
  /** The CLI exit status (spec §12 keeps 2 for usage and 3 for access denied). */
  readonly exit: number;
  /** The page's HTTP status (500 only for a bug). */
  readonly http: number;
  /** The audit line's decision: `deny` when the call was refused, `fail` when it could not be done. */
  readonly audit: 'deny' | 'fail';
}

/**
 * Every kind of failure, the one table adapters decide from (never from the message text): the
 * CLI's exit status, `--json`'s `code`, the page's HTTP status, the audit line's decision and
 * the code an MCP client reads in a thrown failure's result. A closed set: add a code here (and
 * to docs/errors.md, which test/failure-codes.test.ts holds to this table) before using it.
 * Scripts tell "no such agent" (4) from "not visible at this level" (5) from "busy, retry" (8).
 */
export const FAILURES = {
  internal: {
    meaning: 'a bug or an unexpected fault; the message says what happened',
    exit: 1,
    http: 500,
    audit: 'fail',
  },
  usage: { meaning: 'the command line or a flag is wrong', exit: 2, http: 400, audit: 'deny' },
  access_denied: {
    meaning: 'the caller may not do this (its tier, grants or ceiling)',
    exit: 3,
    http: 403,
    audit: 'deny',
  },
  not_found: {
    meaning: 'the library, an agent, a version, a note, a peer or a staged write does not exist',
    exit: 4,
    http: 404,
    audit: 'fail',
  },
  not_visible: {
    meaning: 'it exists, above the access level asked for (or the caller may read): ask at a higher level',
    exit: 5,
    http: 403,
    audit: 'deny',
  },
  invalid_input: {
    meaning: 'a value or document given is malformed (bad YAML, an invalid id, an unknown cursor)',
    exit: 6,
    http: 400,
    audit: 'fail',
  },
  conflict: {
    meaning: 'the request contradicts the current state (a revoked member, a staged file changed, a lock lost)',
    exit: 7,
    http: 409,
    audit: 'fail',
  },
  busy: {
    meaning: 'another writer holds the library or the remote moved; trying again later can succeed',
    exit: 8,
    http: 429,
    audit: 'fail',
  },
  peer_unreachable: {
    meaning: 'a peer or remote did not answer (no connection, timed out)',
    exit: 9,
    http: 503,
    audit: 'fail',
  },
  peer_refused: { meaning: 'a peer or remote answered with a refusal', exit: 10, http: 502, audit: 'fail' },
  source_unreadable: {
    meaning: "a file Bourdon must read (a manifest, an input file, an agent's own store) cannot be read or parsed",
    exit: 11,
    http: 503,
    audit: 'fail',
  },
  unavailable: {
    meaning: 'a port, a disk, a folder or a program (git) cannot be used right now',
    exit: 12,
    http: 503,
    audit: 'fail',
  },
  cancelled: {
    meaning: 'the person stopped or declined a prompt; nothing was changed',
    exit: 130,
    http: 400,
    audit: 'deny',
  },
} as const satisfies Record<string, FailureRule>;

/** What kind of failure an error is (see FAILURES). */
export type ErrorCode = keyof typeof FAILURES;

export const ERROR_CODES = Object.keys(FAILURES) as ErrorCode[];

/** The CLI exit status of a code. */
export function exitCodeOf(code: ErrorCode): number {
  return FAILURES[code].exit;
}

/** The page's HTTP status for a failure of this code. */
export function httpStatusOf(code: ErrorCode): number {
  return FAILURES[code].http;
}

/** Node's system errors that say a disk or the machine ran out, rather than a file being wrong. */
const UNAVAILABLE_SYSTEM_CODES = new Set([
  'ENOSPC',
  'EDQUOT',
  'EROFS',
  'EIO',
  'EMFILE',
  'ENFILE',
  'EBUSY',
  'EADDRINUSE',
]);

/** A Node system error's fields, each undefined when absent or not of its type: read without a cast. */
export interface SystemErrorFields {
  code?: string;
  errno?: number;
  syscall?: string;
  path?: string;
}

/** The system error fields (`code: 'ENOENT'`, `errno`, `syscall`, `path`) any thrown value carries. */
export function systemErrorOf(error: unknown): SystemErrorFields {
  if (typeof error !== 'object' || error === null) return {};
  const field = (name: string): unknown => (name in error ? Reflect.get(error, name) : undefined);
  const text = (name: string) => {
    const value = field(name);
    return typeof value === 'string' ? value : undefined;
  };
  const errno = field('errno');
  return {
    code: text('code'),
    errno: typeof errno === 'number' ? errno : undefined,
    syscall: text('syscall'),
    path: text('path'),
  };
}

/** The system error code (`ENOENT`, `EEXIST`, …) of any thrown value, or undefined. */
export function errnoOf(error: unknown): string | undefined {
  return systemErrorOf(error).code;
}

/**
 * The code of any thrown value: a BourdonError's own; a Node system error that reached an
 * adapter unwrapped is a file that cannot be read (ENOENT, EACCES, …) or a resource that cannot
 * be used (a full disk); anything else is a bug (`internal`).
 */
export function codeOf(error: unknown): ErrorCode {
  if (error instanceof BourdonError) return error.code;
  const { code, errno } = error instanceof Error ? systemErrorOf(error) : {};
  if (typeof code === 'string' && typeof errno === 'number')
    return UNAVAILABLE_SYSTEM_CODES.has(code) ? 'unavailable' : 'source_unreadable';
  return 'internal';
}

/** Errors that reach users: a coded failure with a one-line message, meant to be shown as is. */
export class BourdonError extends Error {
  readonly code: ErrorCode;
  constructor(message: string, code: ErrorCode, options?: ErrorOptions) {
    super(message, options);
    this.name = 'BourdonError';
    this.code = code;
  }

  /** The CLI exit status this error ends a command with. */
  get exitCode(): number {
    return exitCodeOf(this.code);
  }
}

/**
 * The code of a failure to read a file, for code that wraps it in a message naming the file:
 * the system's error (ENOENT, EACCES, EIO, …) is `source_unreadable`; anything else thrown there
 * is a bug and stays `internal`, so a wrapper never passes a bug off as a bad file.
 */
export function readFailureCode(error: unknown): ErrorCode {
  return codeOf(error) === 'internal' ? 'internal' : 'source_unreadable';
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
 * own (a numeric errno beside its code) is reworded, so a message written by this project is never replaced.
 */
function systemErrorWords(error: unknown): string | null {
  if (!(error instanceof Error)) return null;
  // Node's own errors carry a numeric errno beside the code; ours (whose `code` is an ErrorCode) do not.
  const { code, errno, syscall } = systemErrorOf(error);
  if (error instanceof BourdonError || typeof code !== 'string' || typeof errno !== 'number') return null;
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
    const file = systemErrorOf(error).path;
    return capped(options.withPath && file ? `${file}: ${words}` : words, MAX_ERROR_CHARS);
  }
  const line = error instanceof Error ? error.message.split('\n')[0] || error.name : String(error).split('\n')[0]!;
  return capped(line, MAX_ERROR_CHARS);
}
