/** How tests measure what a terminal shows: display columns (src/cli/width.ts), colour codes removed. */
import { displayWidth } from '../../src/cli/width.js';
import { stripAnsi } from './pty.js';

/** The lines of `text` (or the lines given) wider than `width` display columns, as shown. */
export function overlong(text: string | readonly string[], width: number): string[] {
  const lines = typeof text === 'string' ? text.split('\n') : text;
  return lines.map(stripAnsi).filter((line) => displayWidth(line) > width);
}
