/**
 * Example command lines laid out for a terminal of a given width, still pasteable: a command
 * too long for one line is broken between shell words (never inside quotes) and continued with
 * ` \`, and a trailing `# comment` that does not fit beside it moves to its own line below.
 * The help screens (help.ts) show every example through this, so they fit the terminal; so do
 * the commands human output offers to copy (paging hints, mcp-config's one-line commands).
 */
import { displayWidth } from './width.js';

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

const length = displayWidth;

/** Below this many free columns, a word too long for any line starts on the next line instead. */
const MIN_START_ROOM = 12;

/** A shell word's characters (an escaped one with its backslash), each with whether it ends inside single quotes. */
function wordParts(word: string): { text: string; quoted: boolean }[] {
  const parts: { text: string; quoted: boolean }[] = [];
  let quote: string | null = null;
  for (let i = 0; i < word.length;) {
    const ch = String.fromCodePoint(word.codePointAt(i) ?? 0);
    let text = ch;
    if (ch === '\\' && quote !== "'" && i + 1 < word.length) text += String.fromCodePoint(word.codePointAt(i + 1) ?? 0);
    else if (ch === quote) quote = null;
    else if (quote === null && (ch === '"' || ch === "'")) quote = ch;
    parts.push({ text, quoted: quote === "'" });
    i += text.length;
  }
  return parts;
}

/**
 * A shell word too long for a line, in pieces: the first fits `firstRoom` columns, the others
 * `room`, each but the last ending with a backslash before its newline, which the shell drops
 * (inside single quotes, where a backslash is literal, the quote is closed first: `'\` … `'`).
 * So the pieces, pasted, are the word again. A piece ends after a `/` or `-` when one is in its
 * second half, so a path breaks between its folders.
 */
function breakWord(word: string, firstRoom: number, room: number): string[] {
  const parts = wordParts(word);
  const end = (quoted: boolean) => (quoted ? "'\\" : '\\');
  const pieces: string[] = [];
  let limit = firstRoom;
  for (let start = 0; start < parts.length; limit = room) {
    const reopen = start > 0 && parts[start - 1]!.quoted ? "'" : '';
    // The most parts that fit with the backslash that ends the piece (at least one).
    const widths: number[] = [];
    let used = length(reopen);
    let last = start;
    for (let i = start; i < parts.length; i++) {
      const part = parts[i]!;
      const next = used + length(part.text);
      const closing = i === parts.length - 1 ? 0 : length(end(part.quoted));
      if (i > start && next + closing > limit) break;
      used = next;
      widths[i] = used;
      last = i;
    }
    let cut = last;
    if (last < parts.length - 1)
      for (let j = last; j > start && widths[j]! >= limit / 2; j--)
        if (parts[j]!.text === '/' || parts[j]!.text === '-') {
          cut = j;
          break;
        }
    const text =
      reopen +
      parts
        .slice(start, cut + 1)
        .map((part) => part.text)
        .join('');
    pieces.push(cut === parts.length - 1 ? text : text + end(parts[cut]!.quoted));
    start = cut + 1;
  }
  return pieces;
}

interface FillOptions {
  /** What continued lines start with. */
  next: string;
  /** What ends a line continued on the next: ` \` for a command, nothing for a comment. */
  end: string;
  /** Break a word too long for any line (breakWord), rather than let it run past the width. */
  breakWords?: boolean;
}

/** Words joined into lines of at most `width` columns, each after the first starting with `next`. */
function fill(
  words: readonly string[],
  first: string,
  width: number,
  { next, end, breakWords }: FillOptions,
): string[] {
  const lines: string[] = [];
  let current = first;
  let empty = true;
  for (const word of words) {
    const gap = empty ? '' : ' ';
    if (breakWords && length(next) + length(word) + length(end) > width) {
      // Too long for any line: start it here when there is room, else on a line of its own.
      if (!empty && length(current) + 1 + MIN_START_ROOM + length(end) > width) {
        lines.push(current + end);
        current = next;
      } else current += gap;
      const pieces = breakWord(word, width - length(current) - length(end), width - length(end));
      if (pieces.length === 1) current += pieces[0];
      else {
        lines.push(current + pieces[0], ...pieces.slice(1, -1));
        current = pieces.at(-1)!;
      }
    } else if (!empty && length(current) + 1 + length(word) + length(end) > width) {
      lines.push(current + end);
      current = next + word;
    } else current += gap + word;
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
    const word = words[i]!;
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

interface ExampleOptions {
  /** What continued lines start with (default: spaces to two past the prefix). */
  indent?: string;
  /**
   * Break a word too long for any line inside it, continued at the very start of the next
   * line (breakWord), so every line fits. Not for help, which indents every line it shows:
   * the indentation would split the word.
   */
  breakWords?: boolean;
}

/**
 * One example line as shown, `prefix` (`$ `) first, in lines of at most `width` columns where
 * the words allow (a single word longer than a line stays whole unless `breakWords`). A line
 * that fits is returned as written, its comment's alignment included.
 */
export function wrapExample(line: string, width: number, prefix = '$ ', options: ExampleOptions = {}): string[] {
  const whole = prefix + line;
  if (length(whole) <= width) return [whole];
  const { words, comment } = shellWords(line);
  const pad = options.indent ?? ' '.repeat(length(prefix) + 2);
  const room = width - length(pad) - 2;
  // A flag and its value stay together, unless together they are too long for any line.
  const pieces = units(words).flatMap((unit) =>
    options.breakWords && length(unit) > room && unit.includes(' ') ? shellWords(unit).words : [unit],
  );
  const code = fill(pieces, prefix, width, { next: pad, end: ' \\', breakWords: options.breakWords });
  if (comment === null) return code;
  const last = code.at(-1)!;
  if (length(last) + 2 + length(comment) <= width) return [...code.slice(0, -1), `${last}  ${comment}`];
  const commentWords = comment.replace(/^#\s*/, '').split(/\s+/).filter(Boolean);
  return [...code, ...fill(commentWords, pad + '# ', width, { next: pad + '# ', end: '' })];
}
