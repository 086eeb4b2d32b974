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

/** A one-line description of any thrown value, never a stack trace, at most 500 characters. */
export function describeError(error: unknown): string {
  const line = error instanceof Error ? error.message.split('\n')[0] || error.name : String(error).split('\n')[0];
  return capped(line, MAX_ERROR_CHARS);
}
