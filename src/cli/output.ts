/**
 * Human output: colour only on a TTY and never with NO_COLOR, aligned tables, relative dates.
 */
/** The few styles human output uses; plain strings when colour is off. */
export interface Colors {
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

/** Whether human output may use colour: a TTY, and NO_COLOR unset or empty. */
export function colorWanted(): boolean {
  const noColor = process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '';
  return !noColor && Boolean(process.stdout.isTTY);
}

/**
 * Loads chalk only when colour will be shown (a TTY), so scripts and hooks do not pay for it.
 * Called once by the base command before a command runs.
 */
export async function setupColors(): Promise<void> {
  if (!colorWanted()) return;
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level: 1 });
  active = {
    bold: chalk.bold,
    dim: chalk.dim,
    red: chalk.red,
    green: chalk.green,
    cyan: chalk.cyan,
    yellow: chalk.yellow,
    magenta: chalk.magenta,
    gray: chalk.gray,
  };
}

export function colors(): Colors {
  return active;
}

/** Visible width of a string, ignoring ANSI colour codes. */
function width(text: string): number {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '').length;
}

/** Aligned columns; the last column is never padded. */
export function table(headers: string[], rows: string[][]): string {
  const c = colors();
  const all = [headers, ...rows];
  const widths = headers.map((_, col) => Math.max(...all.map((row) => width(row[col] ?? ''))));
  const line = (row: string[]) =>
    row
      .map((cell, col) => (col === row.length - 1 ? cell : cell + ' '.repeat(widths[col] - width(cell))))
      .join('  ')
      .trimEnd();
  return [c.bold(line(headers)), ...rows.map(line)].join('\n');
}

/** "today", "yesterday", "3 days ago", "in 2 days" for a YYYY-MM-DD day (or ISO datetime). */
export function relativeDay(value: string | null | undefined, now = new Date()): string {
  if (!value) return '-';
  const day = value.slice(0, 10);
  const parsed = Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10)));
  if (Number.isNaN(parsed)) return value;
  const today = Date.UTC(now.getFullYear(), now.getMonth(), now.getDate());
  const days = Math.round((today - parsed) / 86_400_000);
  if (days === 0) return 'today';
  if (days === 1) return 'yesterday';
  if (days === -1) return 'tomorrow';
  if (days < 0) return `in ${-days} days`;
  if (days < 60) return `${days} days ago`;
  if (days < 730) return `${Math.round(days / 30)} months ago`;
  return `${Math.round(days / 365)} years ago`;
}

export function list(items: readonly string[]): string {
  return items.length ? items.join(', ') : '-';
}
