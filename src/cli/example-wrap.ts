/**
 * Example command lines laid out for a terminal of a given width, still pasteable: a command
 * too long for one line is broken between shell words (never inside quotes) and continued with
 * ` \`, and a trailing `# comment` that does not fit beside it moves to its own line below.
 * The help screens (help.ts) show every example through this, so they fit the terminal.
 */

/** A command line split into its shell words (quotes kept) and its trailing comment, if any. */
export function shellWords(line: string): { words: string[]; comment: string | null } {
  const words: string[] = [];
  let current = '';
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote) {
      current += ch;
      if (ch === '\\' && quote === '"' && i + 1 < line.length) current += line[++i];
      else if (ch === quote) quote = null;
      continue;
    }
    if (ch === ' ' || ch === '\t') {
      if (current) words.push(current);
      current = '';
      continue;
    }
    if (ch === '#' && current === '') return { words, comment: line.slice(i) };
    if (ch === '\\' && i + 1 < line.length) {
      current += ch + line[++i];
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    current += ch;
  }
  if (current) words.push(current);
  return { words, comment: null };
}

function length(text: string): number {
  return Array.from(text).length;
}

/** Words joined into lines of at most `width` characters, each after the first starting with `next`. */
function fill(words: readonly string[], first: string, next: string, width: number, end: string): string[] {
  const lines: string[] = [];
  let current = first;
  let empty = true;
  for (const word of words) {
    if (!empty && length(current) + 1 + length(word) + length(end) > width) {
      lines.push(current + end);
      current = next + word;
    } else current += (empty ? '' : ' ') + word;
    empty = false;
  }
  lines.push(current);
  return lines;
}

const OPERATORS = new Set(['|', '||', '&&', ';', '>', '>>', '<', '2>', '&']);

/** Words kept on one line: a flag and its value (`--tag release`, `--file -`). */
function units(words: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    const value = words[i + 1];
    if (
      /^--?[A-Za-z]/.test(word) &&
      !word.includes('=') &&
      value !== undefined &&
      !/^-./.test(value) &&
      !OPERATORS.has(value)
    ) {
      out.push(`${word} ${value}`);
      i++;
    } else out.push(word);
  }
  return out;
}

/**
 * One example line as shown, `prefix` (`$ `) first, in lines of at most `width` characters
 * where the words allow (a single word longer than a line stays whole). A line that fits is
 * returned as written, its comment's alignment included.
 */
export function wrapExample(line: string, width: number, prefix = '$ '): string[] {
  const whole = prefix + line;
  if (length(whole) <= width) return [whole];
  const { words, comment } = shellWords(line);
  const pad = ' '.repeat(length(prefix) + 2);
  const code = fill(units(words), prefix, pad, width, ' \\');
  if (comment === null) return code;
  const last = code[code.length - 1];
  if (length(last) + 2 + length(comment) <= width) return [...code.slice(0, -1), `${last}  ${comment}`];
  const commentWords = comment.replace(/^#\s*/, '').split(/\s+/).filter(Boolean);
  return [...code, ...fill(commentWords, pad + '# ', pad + '# ', width, '')];
}
