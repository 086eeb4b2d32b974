/** Where warnings go: one type for the whole core, and the default that writes them to stderr. */
export type Warn = (message: string) => void;

/**
 * A warning as one stderr line for the writers that are not the CLI's (whose lines pass
 * cli/width.ts's stderrLine): every control character of the message — a line break in a file
 * name, an escape sequence — shown escaped (`\u000a`), so data cannot forge a line.
 */
export function warningLine(prefix: string, message: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what it escapes
  return `${prefix}${message.replace(/[\u0000-\u001f\u007f-\u009f]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)}\n`;
}

export const stderrWarn: Warn = (message) => {
  process.stderr.write(warningLine('bourdon: warning: ', message));
};
