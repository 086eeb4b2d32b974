/**
 * Errors that reach users. Each carries the exit code the CLI uses (spec §12):
 * 1 error, 2 usage, 3 access denied. The message is one line, meant to be shown as is.
 */
export class BourdonError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.name = 'BourdonError';
    this.exitCode = exitCode;
  }
}

export class UsageError extends BourdonError {
  constructor(message: string) {
    super(message, 2);
    this.name = 'UsageError';
  }
}

export class AccessDeniedError extends BourdonError {
  constructor(message: string) {
    super(message, 3);
    this.name = 'AccessDeniedError';
  }
}

/** Longest caller-supplied value a log line echoes. */
export const MAX_LOGGED_VALUE_CHARS = 200;
/** Longest error description: messages can quote caller input (a 1 MiB argument must not reach a log whole). */
export const MAX_ERROR_CHARS = 500;

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
