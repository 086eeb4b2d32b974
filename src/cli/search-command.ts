/**
 * `bourdon search`: its declaration (arguments, flags, payload: command-spec.ts, so the fast
 * path answers `--json` too) and its human rendering — each result on one line (kind, name or
 * agent and date, score), its snippet under it with the matching words highlighted, both cut
 * to fit 80 columns (or a narrower terminal).
 */
import { invoke } from '../core/operations/invoke.js';
import { searchMemoryOperation } from '../core/operations/read-operations.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../core/operations/inputs.js';
import type { SearchResult } from '../core/operations/answers.js';
import { SEARCH_KINDS } from '../core/operations/search-index.js';
import { parseSince } from '../core/store/dates.js';
import { ACCESS_FLAGS, accessArgs, defineReadCommand, SINCE_FORMS, type OpenLibrary } from './command-spec.js';
import { colors, outputColumns, printable, shellWord } from './output.js';
import { failed } from '../core/payload.js';
import { displayWidth, truncate } from './width.js';

/** The widest a search result's lines get, even on a wider terminal. */
export const SEARCH_COLUMNS = 80;

interface SearchFlags {
  library?: string;
  kind?: string;
  agent?: string;
  since?: string;
  limit?: number;
  'access-level'?: string;
  'include-private'?: boolean;
}

export async function searchPayload(open: OpenLibrary, args: { text: string }, flags: SearchFlags) {
  const input = {
    query: args.text,
    kind: flags.kind,
    agent: flags.agent,
    since: flags.since,
    limit: flags.limit,
    ...accessArgs(flags),
  };
  return invoke(searchMemoryOperation, open(flags.library), input);
}

export const searchCommand = defineReadCommand({
  args: [{ name: 'text', description: 'What to look for: a name, an alias, words of a summary, an action or a note.' }],
  flags: {
    kind: {
      type: 'string',
      description: `Only results of these kinds: ${SEARCH_KINDS.join(', ')} (comma-separated).`,
      helpValue: '<kind>',
    },
    agent: { type: 'string', description: 'Only rows of this agent.' },
    since: {
      type: 'since',
      description: `Only sessions, notes and workstreams dated on or after this day (entities carry no date and are left out): ${SINCE_FORMS}.`,
      helpValue: '<day>',
      parse: parseSince,
    },
    limit: {
      type: 'integer',
      description: `How many results, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE}).`,
      min: 1,
      max: MAX_PAGE_SIZE,
      helpValue: '<n>',
    },
    ...ACCESS_FLAGS,
  },
  payload: searchPayload,
});

/** A snippet's `**marks**` as highlighting, cut to `max` columns (an ellipsis when cut). */
export function highlighted(marked: string, max: number): string {
  const c = colors();
  const parts = printable(marked).split('**');
  let out = '';
  let width = 0;
  for (const [i, part] of parts.entries()) {
    const room = max - width;
    const piece = displayWidth(part) > room ? truncate(part, room) : part;
    out += i % 2 === 1 ? c.bold(c.yellow(piece)) : piece;
    width += displayWidth(piece);
    if (piece !== part) break;
  }
  return out;
}

function headline(result: SearchResult): string {
  switch (result.kind) {
    case 'entity':
      return `${result.name}${result.superseded ? ' (superseded)' : ''} — ${result.agents.join(', ')}`;
    case 'workstream':
      return `${result.name} — ${result.agents.join(', ')}`;
    case 'session':
      return `${result.agent}, ${result.date.slice(0, 10)}${result.project_focus.length ? ` — ${result.project_focus.join(', ')}` : ''}`;
    case 'note':
      return `${result.title ?? '(untitled)'} — ${result.agent}, ${result.date.slice(0, 10)}`;
  }
}

/** The results as a person reads them: a head line and a highlighted snippet each, within 80 columns. */
export function renderSearch(results: readonly SearchResult[], query: string): string {
  const c = colors();
  if (results.length === 0) return `Nothing matches "${printable(query)}".`;
  const columns = Math.min(SEARCH_COLUMNS, outputColumns() ?? SEARCH_COLUMNS);
  const kindWidth = Math.max(...results.map((result) => result.kind.length));
  return results
    .map((result) => {
      const score = ` ${result.score.toFixed(2)}`;
      const kind = result.kind.padEnd(kindWidth);
      const room = Math.max(10, columns - kindWidth - 2 - score.length);
      const head = truncate(printable(headline(result)), room);
      const pad = ' '.repeat(Math.max(0, room - displayWidth(head)));
      const line = `${c.cyan(kind)}  ${c.bold(head)}${pad}${c.dim(score)}`;
      return `${line}\n${' '.repeat(kindWidth + 2)}${highlighted(result.snippet, columns - kindWidth - 2)}`;
    })
    .join('\n');
}

/**
 * "Did you mean …?" for a find, query or summary that found nothing: the best names search
 * finds for the same words at the same level (never one the level hides), or '' when none.
 */
export async function didYouMean(
  open: OpenLibrary,
  text: string,
  flags: SearchFlags,
  kind: 'entity' | 'entity,workstream',
  agent?: string,
): Promise<string> {
  const payload = await searchPayload(
    open,
    { text },
    {
      library: flags.library,
      kind,
      agent,
      limit: 3,
      'access-level': flags['access-level'],
      'include-private': flags['include-private'],
    },
  );
  if (failed(payload)) return '';
  const names = [...new Set(payload.results.flatMap((result) => ('name' in result ? [result.name] : [])))];
  if (!names.length) return '';
  const quoted = names.map((name) => `"${printable(name)}"`);
  const choice = quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
  return `Did you mean ${choice}? (\`bourdon search ${shellWord(printable(text))}\` searches everything)`;
}
