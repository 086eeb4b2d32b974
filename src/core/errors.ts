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

/** A one-line description of any thrown value, never a stack trace. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message.split('\n')[0] || error.name;
  return String(error).split('\n')[0];
}
