/**
 * Human output: colour as chalk detects it and never with NO_COLOR, aligned tables, relative dates.
 */
import { relativeDay } from '../core/store/dates.js';
import { wrapExample } from './example-wrap.js';
import { printable, printableOutput, stampedStyle } from './terminal-text.js';
import { cutVisible, displayWidth, stderrWidth, truncate, wrapLine, wrapText } from './width.js';

export { printable, relativeDay, stderrWidth };

/** The few styles human output uses; plain strings when colour is off. */
interface Colors {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  cyan(text: string): string;
  yellow(text: string): string;
  magenta(text: string): string;
  gray(text: string): string;
}

const same = (text: string) => text;
const plain: Colors = {
  bold: same,
  dim: same,
  red: same,
  green: same,
  cyan: same,
  yellow: same,
  magenta: same,
  gray: same,
};
let active: Colors = plain;

/** NO_COLOR set and not empty (no-color.org): never colour, whatever else says. */
function noColor(): boolean {
  return process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '';
}

/**
 * Turns colour on when it will be shown, as chalk's detection says (its level, from standard
 * output: a TTY; FORCE_COLOR forces it, FORCE_COLOR=0 and TERM=dumb turn it off; 256 and
 * truecolor terminals get the same sixteen-colour palette) — never with NO_COLOR. Called once by
 * the base command before a command runs, never under --json, so chalk is loaded only when a
 * person may see colour (docs/cli.md). Each style escapes the data it is given before chalk
 * writes its codes, and the codes are stamped (terminal-text.ts), so the last pass keeps them
 * and escapes any code that came with data.
 */
export async function setupColors(): Promise<void> {
  if (noColor() || !colourPossible()) return;
  const { default: chalk } = await import('chalk');
  if (chalk.level === 0) return;
  active = {
    bold: stampedStyle(chalk.bold),
    dim: stampedStyle(chalk.dim),
    red: stampedStyle(chalk.red),
    green: stampedStyle(chalk.green),
    cyan: stampedStyle(chalk.cyan),
    yellow: stampedStyle(chalk.yellow),
    magenta: stampedStyle(chalk.magenta),
    gray: stampedStyle(chalk.gray),
  };
}

/**
 * False where chalk's detection (its vendored supports-color) is sure to give level 0: standard
 * output is not a terminal and nothing forces colour (FORCE_COLOR, a `--color…` argument, Azure
 * Pipelines' TF_BUILD with AGENT_NAME). Then chalk is not even loaded: an export run by a hook
 * or a script prints to a pipe (bench/README.md).
 */
function colourPossible(): boolean {
  const { env, argv } = process;
  if (process.stdout.isTTY || 'FORCE_COLOR' in env || ('TF_BUILD' in env && 'AGENT_NAME' in env)) return true;
  return argv.some((arg) => arg.startsWith('--color'));
}

export function colors(): Colors {
  return active;
}

/** File content shown to be copied as it is (a host's config snippet): never wrapped or cut. */
export interface Verbatim {
  verbatim: string;
}

/** What a command prints for a person: text, or text with verbatim parts, one per line. */
export type HumanOutput = string | readonly (string | Verbatim)[];

/**
 * Human output as printed: escape sequences and control characters in data escaped, our own
 * colour codes kept (printableOutput, terminal-text.ts), then every
 * line wrapped to the output width (wrap), the last pass that keeps any line a renderer left
 * too long from running past the terminal. Verbatim parts are only escaped.
 */
export function humanText(output: HumanOutput): string {
  const parts = typeof output === 'string' ? [output] : output;
  return parts
    .map((part) => (typeof part === 'string' ? wrap(printableOutput(part)) : printableOutput(part.verbatim)))
    .join('\n');
}

/** A table cell with a style applied after it is escaped, truncated and padded. */
interface StyledCell {
  text: string;
  style: (text: string) => string;
}
type Cell = string | StyledCell;

export function styled(text: string, style: (text: string) => string): StyledCell {
  return { text, style };
}

/**
 * The colour of a status value, the same in every table: going well green, waiting for someone
 * yellow, broken red, finished or quiet dim; anything else cyan.
 */
export function statusStyle(status: string): (text: string) => string {
  const c = active;
  if (status === 'active' || status === 'ok') return c.green;
  if (status === 'staged' || status === 'blocked' || status === 'waiting' || status === 'warn') return c.yellow;
  if (status === 'unreadable' || status === 'revoked' || status === 'deny' || status === 'fail') return c.red;
  if (status === 'archived' || status === 'idle' || status === 'done') return c.dim;
  return c.cyan;
}

/** Output width for tables: null means unlimited (`--wide`, or a pipe without COLUMNS). */
let outputWidth: number | null = null;

/**
 * Tables fit COLUMNS when it is set, else the terminal's width (80 when a terminal does not
 * say), else — piped, where width is unknown — nothing is cut. `--wide` never cuts.
 */
export function setupWidth(wide: boolean): void {
  if (wide) {
    outputWidth = null;
    return;
  }
  const fromEnv = Number(process.env.COLUMNS);
  if (Number.isInteger(fromEnv) && fromEnv > 0) outputWidth = fromEnv;
  else if (process.stdout.isTTY) outputWidth = process.stdout.columns || 80;
  else outputWidth = null;
}

/** Whether output is fitted to a width (a terminal or COLUMNS, and not --wide). */
export function fitsWidth(): boolean {
  return outputWidth !== null;
}

/** The width human output is fitted to; null when it is not (a pipe without COLUMNS, or --wide). */
export function outputColumns(): number | null {
  return outputWidth;
}

/** A flexible column is never cut below this many characters (or its header). */
const MIN_FLEX_WIDTH = 8;
/** Any other column (ids, dates) is cut only when free text alone cannot make room, never below this. */
const MIN_FIXED_WIDTH = 16;
/** A last column that wraps beside its row needs this much room; with less it goes under the row. */
const MIN_WRAPPED_WIDTH = 24;
/** A wrapped cell longer than this is cut (with …): a 1.5 MB role from a peer is not 20,000 lines. */
const MAX_WRAPPED_CHARS = 1_000;
/** A last cell set under its row starts this far in. */
const UNDER_INDENT = '    ';

interface TableOptions {
  /**
   * Columns of free text that may be cut with `…` to fit the width, the widest first; other
   * columns (ids, dates) only when these are at their floor and the table is still too wide.
   */
  flex?: number[];
  /**
   * A last column that is free text (in `flex`) wraps under its row at word boundaries instead of
   * being cut: it is the part people read (a session's actions, an agent's role). false keeps it
   * cut (a hash).
   */
  wrapLast?: boolean;
  /** Override the output width (tests; null = unlimited). */
  width?: number | null;
}

/**
 * Aligned columns; the last column is never padded. Cell text is escaped (control characters
 * shown as `\u001b`), then the table is fitted to the output width: a free-text last column wraps
 * under its row, the other free-text columns are cut.
 */
export function table(headers: string[], rows: Cell[][], options: TableOptions = {}): string {
  const c = colors();
  const limit = options.width === undefined ? outputWidth : options.width;
  const body = rows.map((row) =>
    row.map((cell) =>
      typeof cell === 'string' ? { text: printable(cell), style: same } : { ...cell, text: printable(cell.text) },
    ),
  );
  const widths = headers.map((header, col) =>
    Math.max(displayWidth(header), ...body.map((row) => displayWidth(row[col]?.text ?? ''))),
  );
  const lastUsed = headers.length - 1;
  const flex = (options.flex ?? []).filter((col) => col >= 0 && col < headers.length);
  const wraps = limit !== null && options.wrapLast !== false && flex.includes(lastUsed) && lastUsed > 0;
  // How the last column wraps: beside its row while the others leave it room, else under it.
  let under = false;
  const total = () => widths.reduce((sum, w) => sum + w, 0) + 2 * lastUsed - (under ? widths[lastUsed]! + 2 : 0);
  if (limit !== null) {
    if (wraps) {
      const room = limit - (total() - widths[lastUsed]!);
      if (room >= Math.min(widths[lastUsed]!, Math.max(MIN_WRAPPED_WIDTH, displayWidth(headers[lastUsed]!))))
        widths[lastUsed] = Math.min(widths[lastUsed]!, room);
      else under = true;
    }
    let excess = total() - limit;
    /** Cuts the widest of `columns` first, none below `min` (or its header), until the table fits. */
    const shrink = (columns: number[], min: number) => {
      const floor = (col: number) => Math.max(Math.min(min, widths[col]!), displayWidth(headers[col]!));
      while (excess > 0) {
        const shrinkable = columns.filter((col) => widths[col]! > floor(col));
        if (shrinkable.length === 0) return;
        const widest = shrinkable.reduce((a, b) => (widths[b]! > widths[a]! ? b : a));
        const next = Math.max(...shrinkable.filter((col) => col !== widest).map((col) => widths[col]!), floor(widest));
        const cut = Math.max(1, Math.min(excess, widths[widest]! - next));
        widths[widest] = widths[widest]! - cut;
        excess -= cut;
      }
    };
    const cuttable = (col: number) => !wraps || col !== lastUsed;
    shrink(flex.filter(cuttable), MIN_FLEX_WIDTH);
    // Free text at its floor and still too wide (an id of 64 characters): the widest other
    // column is cut too, rather than every line losing all that follows it.
    shrink(
      headers.map((_, col) => col).filter((col) => !flex.includes(col) && cuttable(col)),
      MIN_FIXED_WIDTH,
    );
  }
  const start = total() - (under ? 0 : widths[lastUsed]!);
  const line = (cells: StyledCell[], isHeader = false) => {
    const shownCells = under ? cells.slice(0, lastUsed) : cells;
    const text = shownCells
      .map((cell, col) => {
        const shown =
          wraps && col === lastUsed ? truncate(cell.text, MAX_WRAPPED_CHARS) : truncate(cell.text, widths[col]!);
        const pad = col === shownCells.length - 1 ? '' : ' '.repeat(widths[col]! - displayWidth(shown));
        return { shown, pad, style: cell.style };
      })
      .map(({ shown, pad, style }) => (shown ? style(shown) : shown) + pad)
      .join('  ')
      .trimEnd();
    if (!wraps || limit === null) return text;
    // The last cell whole: continued under itself, or on lines of its own under the row.
    if (!under) return wrapLine(text, start + widths[lastUsed]!, start);
    const last = cells[lastUsed];
    if (isHeader || !last?.text) return text;
    const whole = truncate(last.text, MAX_WRAPPED_CHARS);
    return `${text}\n${wrapLine(`${UNDER_INDENT}${last.style(whole)}`, limit, UNDER_INDENT.length)}`;
  };
  const header = line(
    headers.map((text) => ({ text, style: same })),
    true,
  );
  const out = [c.bold(header), ...body.map((row) => line(row))];
  // Fixed columns alone wider than the terminal: cut whole lines rather than let them wrap.
  if (limit !== null && total() > limit)
    return out
      .join('\n')
      .split('\n')
      .map((text) => cutVisible(text, limit))
      .join('\n');
  return out.join('\n');
}

interface WrapOptions {
  /**
   * What a continued line starts with: a column (spaces up to it) or a prefix such as `# `.
   * Default: the line's own indentation plus two spaces.
   */
  continuation?: number | string;
  /** The width to wrap at (default: the output width; null leaves the text as it is). */
  width?: number | null;
}

/**
 * Prose wrapped at the terminal's width, at word boundaries, each continued line indented (the
 * one place human output wraps text: messages, summaries, banners, comments, and the last pass
 * over every command's output). Piped output without COLUMNS, and `--wide`, leave it
 * unwrapped. Widths are display columns (colour codes none, wide characters two); a word longer
 * than the line (a path, a URL) is broken at the line's end, after a `/` or `-` when one is near.
 */
export function wrap(text: string, options: WrapOptions = {}): string {
  return wrapText(text, options.width === undefined ? outputWidth : options.width, options.continuation);
}

/**
 * A moment as tables show it: "just now", "5 min ago", "3 h ago" within a day, then as
 * relativeDay does. The exact ISO stamp stays in --json.
 */
export function relativeTime(value: string | null | undefined, now = new Date()): string {
  if (!value) return '-';
  const moment = Date.parse(value);
  if (Number.isNaN(moment)) return value;
  const minutes = Math.round((now.getTime() - moment) / 60_000);
  if (minutes >= 0 && minutes < 1) return 'just now';
  if (minutes >= 0 && minutes < 60) return `${minutes} min ago`;
  if (minutes >= 0 && minutes < 24 * 60) return `${Math.round(minutes / 60)} h ago`;
  return relativeDay(new Date(moment).toISOString(), now);
}

/**
 * A command line to copy, after a label ("More: bourdon recent … --cursor …"): within the
 * output width it is continued over lines with ` \\`, and a word too long for a line (a cursor,
 * a long path, a quoted JSON argument) is broken with a backslash at the line's end, so it
 * still pastes into a shell as one command (wrapExample). The last pass leaves it as it is.
 * `width` is stdout's unless given (stderr's, for a command printed there).
 */
export function commandText(line: string, label = '', width: number | null = outputWidth): string {
  if (width === null) return label + line;
  return wrapExample(line, width, label, { indent: '  ', breakWords: true }).join('\n');
}

/** commandText for a command given as its shell words (already quoted). */
export function commandHint(label: string, words: readonly string[]): string {
  return commandText(words.join(' '), label);
}

/** "1 note", "3 notes". */
/** Quotes a word for a POSIX shell only when it needs it (commands printed to be pasted). */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export { plural } from '../core/store/words.js';

export function list(items: readonly string[]): string {
  return items.length ? items.join(', ') : '-';
}
