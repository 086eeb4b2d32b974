/**
 * How much room text takes on a terminal, and the one way human output is fitted to a width:
 * lines wrapped at spaces with their continuation indented, a word too long for any line broken
 * where the line ends (after a `/` or `-` when one is near), a table cell cut with `…`.
 * Widths are display columns: colour codes take none, East Asian wide characters (as the
 * get-east-asian-width package tells) and emoji two, a letter with its combining marks one.
 * No chalk and no oclif here: the fast path (fast-path.ts) fits its warnings with it too.
 */
import { createRequire } from 'node:module';
import type * as Tty from 'node:tty';
import { eastAsianWidth } from 'get-east-asian-width';
import { lazy } from '../core/lazy.js';
import { printableOutput } from './terminal-text.js';

const require = createRequire(import.meta.url);

// eslint-disable-next-line no-control-regex -- the colour codes this CLI emits
const COLOUR = /\u001b\[[0-9;]*m/g;
/** A colour code, or the plain text up to the next one. */
// eslint-disable-next-line no-control-regex -- the colour codes this CLI emits
const COLOUR_OR_TEXT = /\u001b\[[0-9;]*m|[^\u001b]+|\u001b/g;
// eslint-disable-next-line no-control-regex -- the colour codes this CLI emits
const LEAD = /^((?:\u001b\[[0-9;]*m)*)( *)/;
/** Text every character of which takes one column: printable ASCII, most of what is shown. */
const NARROW = /^[\u0020-\u007e]*$/;
/** A grapheme drawn as nothing: only combining marks, format and control characters. */
const INVISIBLE = /^[\p{Mn}\p{Me}\p{Cf}\p{Cc}]+$/u;
/** A grapheme a terminal draws as an emoji, two columns wide. */
const EMOJI = /\p{Emoji_Presentation}|\p{Extended_Pictographic}\uFE0F|\u20E3/u;

/**
 * Graphemes (what a terminal draws as one character: an emoji sequence, a letter with its
 * marks), made on first use: building an Intl.Segmenter costs more than a whole `--json` read
 * (bench/README.md), and text that is all ASCII never needs one (why not string-width, which
 * builds one when it is imported).
 */
const graphemes = lazy(() => new Intl.Segmenter(undefined, { granularity: 'grapheme' }));

/** The text's atoms: colour codes whole, each grapheme as one, so nothing is split inside. */
function atoms(text: string): string[] {
  const out: string[] = [];
  for (const [piece] of text.matchAll(COLOUR_OR_TEXT)) {
    if (piece.startsWith('\u001b')) out.push(piece);
    // One push per character: spreading a piece of a million characters into push overflows the stack.
    else if (NARROW.test(piece)) for (const char of piece) out.push(char);
    else for (const { segment } of graphemes().segment(piece)) out.push(segment);
  }
  return out;
}

/** Columns one atom takes: a colour code none, an emoji two, else its first character's East Asian width. */
function atomWidth(atom: string): number {
  if (atom.length === 1 && atom >= ' ' && atom <= '~') return 1;
  if (atom.startsWith('\u001b[') || INVISIBLE.test(atom)) return 0;
  if (EMOJI.test(atom)) return 2;
  return eastAsianWidth(atom.codePointAt(0) ?? 0);
}

/** The columns text takes on a terminal: colour codes none, wide (CJK) characters and emoji two. */
export function displayWidth(text: string): number {
  if (NARROW.test(text)) return text.length;
  let width = 0;
  for (const atom of atoms(text)) width += atomWidth(atom);
  return width;
}

export function stripColour(text: string): string {
  return text.replace(COLOUR, '');
}

/** The longest head of `text` that fits `max` columns (colour codes kept), and the rest. */
function split(text: string, max: number): [string, string] {
  let width = 0;
  let at = 0;
  for (const atom of atoms(text)) {
    const next = width + atomWidth(atom);
    if (next > max) break;
    width = next;
    at += atom.length;
  }
  return [text.slice(0, at), text.slice(at)];
}

/** Cuts plain text to `max` columns, the last one an ellipsis when anything was cut. */
export function truncate(text: string, max: number): string {
  if (displayWidth(text) <= max) return text;
  if (max <= 0) return '';
  return split(text, max - 1)[0] + '…';
}

/** Cuts a line (which may carry colour codes) to `max` columns; a cut line loses its colour. */
export function cutVisible(text: string, max: number): string {
  if (displayWidth(text) <= max) return text;
  return truncate(stripColour(text), max);
}

/** The width prose on stderr wraps at: COLUMNS, else stderr's terminal; null when it is piped. */
export function stderrWidth(): number | null {
  const fromEnv = Number(process.env.COLUMNS);
  if (Number.isInteger(fromEnv) && fromEnv > 0) return fromEnv;
  // Asked only when a line is printed, and with isatty first: process.stderr builds its stream
  // (node:tty and node:net) on first touch, which the fast path's output to a pipe never needs.
  return (require('node:tty') as typeof Tty).isatty(2) ? process.stderr.columns || 80 : null;
}

/** Where a long word breaks best, in order: between folders, between parts of a name, elsewhere. */
const BREAK_AFTER = ['/', '-_', '.?&=,;:'];

/**
 * The head of `word` that fits `room` columns: up to its last `/` (else `-`, else `.`, `?`, …)
 * when that keeps at least half the room, so a path breaks between its folders; else
 * all that fits.
 */
function wordHead(word: string, room: number): [string, string] {
  const [head, rest] = split(word, room);
  if (!rest) return [head, rest];
  const list = atoms(head);
  if (list.length === 0) {
    // Not one fits: take one anyway (the word, unlike its head, is not empty).
    const one = atoms(word)[0]!;
    return [one, word.slice(one.length)];
  }
  // The atoms that may end the head: those past half the room.
  let first = list.length;
  for (let used = displayWidth(head); first > 1 && used - atomWidth(list[first - 1]!) >= room / 2; first--)
    used -= atomWidth(list[first - 1]!);
  for (const marks of BREAK_AFTER)
    for (let i = list.length - 1; i >= first - 1 && i > 0; i--)
      if (marks.includes(list[i]!)) {
        const at = list.slice(0, i + 1).join('').length;
        return [word.slice(0, at), word.slice(at)];
      }
  return [head, rest];
}

/** Below this many free columns, a word too long for any line starts on the next line instead. */
const MIN_START_ROOM = 12;
/** A continued line keeps at least this much room for text (or half the line, when narrower). */
const MIN_CONTINUED_ROOM = 20;

/**
 * One line wrapped at `width` columns: at spaces, each continued line starting with `next`; a
 * word too long for a whole line starts where it is (when there is room) and is broken at the
 * edge of each line. Padding between words is kept where it fits, so aligned columns stay.
 */
export function wrapLine(line: string, width: number, continuation?: number | string): string {
  if (displayWidth(line) <= width) return line;
  // The indentation, after any colour code the line opens with (a coloured `  + row`).
  const [lead = '', , spaces = ''] = LEAD.exec(line) ?? [];
  let next =
    typeof continuation === 'string'
      ? continuation
      : ' '.repeat(continuation ?? Math.min(spaces.length + 2, Math.floor(width / 2)));
  // A continuation that leaves little room (a narrow terminal) is cut back to half the line.
  if (width - displayWidth(next) < Math.min(MIN_CONTINUED_ROOM, width / 2))
    next = typeof continuation === 'string' ? continuation.slice(0, 2) : ' '.repeat(Math.floor(width / 2));
  const nextRoom = width - displayWidth(next);
  const lines: string[] = [];
  let current = lead;
  let empty = true;
  for (const [, gap = '', found = ''] of line.slice(lead.length).matchAll(/( *)(\S+)/g)) {
    let word = found;
    const used = displayWidth(current) + (empty ? 0 : gap.length);
    if (used + displayWidth(word) <= width) {
      current += (empty ? '' : gap) + word;
      empty = false;
      continue;
    }
    // Too long for a whole line, and room left here: start it on this line.
    if (displayWidth(word) > nextRoom && width - used >= MIN_START_ROOM) current += empty ? '' : gap;
    else if (!empty) {
      lines.push(current);
      current = next;
    }
    while (displayWidth(current) + displayWidth(word) > width) {
      const [head, rest] = wordHead(word, Math.max(1, width - displayWidth(current)));
      lines.push(current + head);
      current = next;
      word = rest;
    }
    current += word;
    empty = false;
  }
  lines.push(current);
  return lines.join('\n');
}

/** Every line of `text` wrapped at `width` (see wrapLine); null leaves the text as it is. */
export function wrapText(text: string, width: number | null, continuation?: number | string): string {
  if (width === null) return text;
  return text
    .split('\n')
    .map((line) => wrapLine(line, width, continuation))
    .join('\n');
}

/**
 * A line for a person on stderr (`bourdon: …`): escape sequences from data shown escaped, our
 * colour codes kept (printableOutput), wrapped at stderr's width, continued 2 in. A tab (a
 * file name's, a parser's message) moves no cursor but where it lands depends on the terminal,
 * so it is shown as the space it reads as rather than as `\u0009`; the line is then measured
 * and wrapped as it will be seen. One message is one line: a line break in it (a file name
 * holding `\nbourdon: …`) is shown escaped, `\u000a`, as a carriage return is, so data can
 * never forge a line of its own. Every warning, error and notice the CLI prints passes here.
 */
export function stderrLine(text: string): string {
  return wrapText(printableOutput(text.replaceAll('\t', ' ')).replaceAll('\n', '\\u000a'), stderrWidth(), 2) + '\n';
}

/**
 * A question for `@inquirer/prompts`, which draws it after `? ` and before what it adds
 * (`suffix`: ` (y/N)`, a default in parentheses): wrapped at stderr's width at word
 * boundaries, each continued line under the question's first word. Left to itself the prompt
 * library wraps too, but continues at the terminal's first column, under the `?`.
 */
export function promptMessage(text: string, suffix = ''): string {
  const width = stderrWidth();
  if (width === null) return text;
  // The suffix held to the last word (its spaces stood in for), so it never wraps alone; one
  // too long for a line (a long default path) is broken inside, and then left to the prompt.
  const glued = suffix.replaceAll(' ', '_');
  const wrapped = wrapText(`? ${text}${glued}`, width, 2).slice(2);
  if (glued && wrapped.endsWith(glued)) return wrapped.slice(0, -glued.length);
  return wrapText(`? ${text}`, width, 2).slice(2);
}

/** A yes/no question as promptMessage lays it out, before the ` (y/N)` (or ` (Y/n)`) confirm adds. */
export function confirmMessage(text: string): string {
  return promptMessage(text, ' (y/N)');
}

/** One of the CLI's warnings (a manifest skipped, …) as printed: a `bourdon: warning:` line, wrapped as above. */
export function warningText(message: string): string {
  return stderrLine(`bourdon: warning: ${message}`);
}

export function cliWarn(message: string): void {
  process.stderr.write(warningText(message));
}
