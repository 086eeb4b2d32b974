/** Flags shared by the query commands, named after the tools' arguments. */
import { Flags } from '@oclif/core';
import { UsageError } from '../core/errors.js';
import { ACCESS_LEVELS } from '../core/trust/access.js';
import { localDay, parseCalendarDay } from '../core/store/dates.js';

export const accessFlags = {
  'access-level': Flags.string({
    description:
      'Read at this level: public, team or private (default: the tool default, or $BOURDON_DEFAULT_ACCESS_LEVEL).',
    options: [...ACCESS_LEVELS],
  }),
  'include-private': Flags.boolean({
    description: 'Include private rows (same as --access-level private).',
    default: false,
  }),
};

export function accessArgs(flags: { 'access-level'?: string; 'include-private'?: boolean }): {
  access_level?: string;
  include_private?: boolean;
} {
  const out: { access_level?: string; include_private?: boolean } = {};
  if (flags['access-level']) out.access_level = flags['access-level'];
  if (flags['include-private']) out.include_private = true;
  return out;
}

/** `--wide`: tables show every column in full instead of fitting the terminal. */
export const wideFlag = {
  wide: Flags.boolean({
    description: 'Show every column in full instead of fitting the terminal width.',
    default: false,
  }),
};

/** A page size flag: out-of-range values are usage errors (exit 2), not silently clamped. */
export function limitFlag(max: number, fallback: number) {
  return Flags.integer({ description: `Page size, 1 to ${max} (default ${fallback}).`, min: 1, max, helpValue: '<n>' });
}

const SINCE_FORMS = 'YYYY-MM-DD, an ISO datetime, today, yesterday, 7d (days ago) or 2w (weeks ago)';

/**
 * A `--since` day as people type it. Forms the tools accept (a day or an ISO datetime) pass
 * through unchanged, so --json echoes them as the MCP tool would; `today`, `yesterday`, `7d`
 * and `2w` (CLI only) become the local calendar day they name. Anything else is a usage
 * error: on the command line a typo must not silently widen the query to the default window.
 */
function cliSince(input: string, now: Date = new Date()): string {
  const text = input.trim();
  if (parseCalendarDay(text)) return text;
  const daysAgo = (days: number) => localDay(new Date(now.getFullYear(), now.getMonth(), now.getDate() - days));
  const lower = text.toLowerCase();
  if (lower === 'today') return daysAgo(0);
  if (lower === 'yesterday') return daysAgo(1);
  const relative = /^(\d{1,4})([dw])$/.exec(lower);
  if (relative) return daysAgo(Number(relative[1]) * (relative[2] === 'w' ? 7 : 1));
  throw new UsageError(`expected ${SINCE_FORMS}, not ${JSON.stringify(input.slice(0, 60))}`);
}

export function sinceFlag(description: string) {
  return Flags.custom<string>({
    description: `${description} ${SINCE_FORMS}.`,
    helpValue: '<day>',
    parse: async (input) => cliSince(input),
  })();
}

/** Quotes a word for a POSIX shell only when it needs it. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command that fetches the next page: the command, every flag that shaped this query
 * (the cursor carries only the offset and the day cutoff), then the cursor.
 */
export function nextPageCommand(
  command: string,
  shaping: Record<string, string | number | boolean | undefined>,
  cursor: string,
): string[] {
  const words = ['bourdon', command];
  for (const [name, value] of Object.entries(shaping)) {
    if (value === undefined || value === false || value === '') continue;
    words.push(`--${name}`);
    if (value !== true) words.push(shellWord(String(value)));
  }
  words.push('--cursor', cursor);
  return words;
}

/** The flags every paged listing shares that shape its query (for the next-page command). */
export function shaping(flags: {
  since?: string;
  agent?: string;
  limit?: number;
  'access-level'?: string;
  'include-private'?: boolean;
  library?: string;
}): Record<string, string | number | boolean | undefined> {
  return {
    library: flags.library,
    since: flags.since,
    agent: flags.agent,
    'access-level': flags['access-level'],
    'include-private': flags['include-private'],
    limit: flags.limit,
  };
}
