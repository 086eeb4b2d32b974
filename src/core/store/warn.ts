/** Where warnings go: one type for the whole core, and the default that writes them to stderr. */
export type Warn = (message: string) => void;

export const stderrWarn: Warn = (message) => {
  process.stderr.write(`bourdon: warning: ${message}\n`);
};
