/** Flags shared by the query commands, named after the tools' arguments. */
import { Flags } from '@oclif/core';
import { ACCESS_LEVELS } from '../core/trust/access.js';
import { cliSince, SINCE_FORMS } from './read-commands.js';

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
