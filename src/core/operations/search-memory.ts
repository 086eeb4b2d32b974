/**
 * search_memory (and `bourdon search`): everything a caller may see, ranked. The words are
 * looked up in the search index (search-index.ts) with field weights (a name counts most, then
 * aliases, then tags, then summaries and actions), prefixes, typo tolerance (one edit in a word
 * of up to seven letters, two in a longer one, a swap of two neighbouring letters counting as
 * one; only for a word the index's vocabulary lacks) and case and accents folded; a row whose `valid_to` is past scores a quarter; an entity
 * or workstream whose name or alias is the whole query comes first. Entities are grouped by
 * name as find_entity groups them, workstreams by project. Peers are asked in
 * search-federation.ts.
 */
import { createContext, tellUnknownAgent, type OperationContext } from '../context.js';
import type { AgentRecord, LibraryStore } from '../store/library.js';
import { remembered } from '../lazy.js';
import { entityNamed } from './queries.js';
import type { Failed, OneOf } from '../payload.js';
import { dayOf, sinceDay } from '../store/dates.js';
import type { AccessLevel } from '../store/visibility.js';
import type { Answer, searchMemoryAnswer, SearchResult } from './answers.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type SearchMemoryInput } from './inputs.js';
import { access } from './read-common.js';
import {
  FIELD_BOOSTS,
  searchIndex,
  SEARCH_KINDS,
  warmSearchIndex,
  type IndexedRow,
  type SearchKind,
} from './search-index.js';
import { holds, snippet } from './search-snippet.js';
import { words } from './search-words.js';
import { groupHits, groupIds, pageOf } from './search-grouping.js';
import type { GroupMatch, TermQuery } from './search-scoring.js';
import { searchPeers } from './search-federation.js';

export type SearchMemoryAnswer = Answer<typeof searchMemoryAnswer>;
export type SearchMemoryOutput = OneOf<SearchMemoryAnswer | Failed<SearchMemoryAnswer>>;

/** Longest query taken (longer text is cut), and the most words of it looked up. */
export const SEARCH_TEXT_LIMIT = 200;
const MAX_TERMS = 12;
/** Hits (rows, best first by the index's score) grouped and ranked further. */
export const MAX_HITS = 1_000;
/** What a row whose valid_to is past scores, against a current one. */
export const SUPERSEDED_WEIGHT = 0.25;
/** Weights of a fuzzy and a prefix match against an exact one (MiniSearch's own are 0.45 and 0.375). */
export const MATCH_WEIGHTS = { fuzzy: 0.45, prefix: 0.5 };

export interface SearchFilters {
  kinds: ReadonlySet<SearchKind> | null;
  agent: string | null;
  since: string | null;
}

/** Edits a word may be off by: none up to three letters, one up to seven, two beyond. */
export function editsFor(term: string): number {
  return term.length <= 3 ? 0 : term.length <= 7 ? 1 : 2;
}

/** `term` with two neighbouring letters swapped, each way it differs from `term`. */
function swaps(term: string): string[] {
  if (term.length < 3 || term.length > 24) return [];
  const out = new Set<string>();
  for (let i = 0; i + 1 < term.length; i++) {
    if (term[i] === term[i + 1]) continue;
    out.add(term.slice(0, i) + term[i + 1] + term[i] + term.slice(i + 2));
  }
  return [...out];
}

/**
 * The index query: each word as written (prefix, fuzzy) or with one swap (fuzzy one edit less);
 * `origin` learns which word each swapped form stands for.
 */
export function termQueries(terms: readonly string[], origin: Map<string, string>, known: (term: string) => boolean) {
  return terms.flatMap((term): TermQuery[] => {
    const prefix = term.length >= 3;
    origin.set(term, term);
    // A word the index holds (or begins) is taken as meant: no typo expansion, which on a
    // common word would score every row holding any word one edit away.
    if (known(term)) return [{ term, fuzzy: 0, prefix }];
    const edits = editsFor(term);
    const swapped = swaps(term).filter((form) => !origin.has(form));
    for (const form of swapped) origin.set(form, term);
    return [
      { term, fuzzy: edits, prefix },
      ...swapped.map((form) => ({ term: form, fuzzy: Math.max(0, edits - 1), prefix: false })),
    ];
  });
}

/** The kinds a `kind` argument names, or a one-line reason it names another. */
export function parseKinds(kind: string | null | undefined): ReadonlySet<SearchKind> | null | { error: string } {
  if (!kind || !kind.trim()) return null;
  const named = kind.split(',').map((part) => part.trim().toLowerCase());
  const unknown = named.find((part) => !(SEARCH_KINDS as readonly string[]).includes(part));
  if (unknown !== undefined)
    return { error: `unknown kind ${JSON.stringify(unknown)} (use ${SEARCH_KINDS.join(', ')})` };
  return new Set(named as SearchKind[]);
}

function rowDay(row: IndexedRow): string | null {
  if (row.kind === 'session') return row.session.day;
  if (row.kind === 'note') return row.note.day;
  if (row.kind === 'workstream') return row.day;
  return null;
}

function kept(row: IndexedRow, filters: SearchFilters): boolean {
  if (filters.kinds && !filters.kinds.has(row.kind)) return false;
  if (filters.agent !== null && row.agent.id !== filters.agent) return false;
  if (filters.since !== null) {
    const day = rowDay(row);
    if (day === null || day < filters.since) return false;
  }
  return true;
}

function superseded(row: IndexedRow, today: string): boolean {
  if (row.kind !== 'entity' || row.entity.valid_to === null) return false;
  const until = dayOf(row.entity.valid_to);
  return until !== null && until < today;
}

/** Who holds an entity name: its agents, types and tags (entityNamed). */
type Holders = ReturnType<typeof entityNamed>;

/** A group the answer shows: its rows (the best first), and what they matched together. */
interface Shown {
  rows: IndexedRow[];
  match: GroupMatch;
}

const unique = (values: Iterable<string>) => [...new Set(values)];
/** The indexed fields in the order a result lists those it matched: by name (sorted once, not per result). */
const BY_NAME = Object.keys(FIELD_BOOSTS).sort();

/** The parts a result's snippet is cut from: the fields that matched, the most telling first. */
function snippetSource(row: IndexedRow, fields: ReadonlySet<string>, terms: ReadonlySet<string>): string[] {
  switch (row.kind) {
    case 'entity': {
      const { entity } = row;
      const parts = [entity.summary ?? ''];
      if (fields.has('aliases')) parts.push(`aka ${entity.aliases.join(', ')}`);
      if (fields.has('tags')) parts.push(`tags: ${entity.tags.join(', ')}`);
      if (fields.has('type') && entity.type) parts.push(`type: ${entity.type}`);
      return parts.some(Boolean) ? parts : [entity.name];
    }
    case 'session': {
      const { session } = row;
      const actions = session.key_actions.filter((action) => holds(action, terms));
      const parts = actions.length ? actions : fields.size ? [] : [...session.key_actions];
      if (fields.has('project_focus')) parts.push(`project: ${session.project_focus.join(', ')}`);
      if (fields.has('cwd') && session.cwd) parts.push(`in ${session.cwd}`);
      if (fields.has('files_touched'))
        parts.push(`files: ${session.files_touched.filter((file) => holds(file, terms)).join(', ')}`);
      return parts.length ? parts : [...session.key_actions];
    }
    case 'note':
      return [row.title ?? '', row.text];
    case 'workstream':
      return [row.name];
  }
}

function resultOf(group: Shown, score: number, today: string, holders: (name: string) => Holders): SearchResult {
  // A group is opened by the row it is made for.
  const first = group.rows[0]!;
  const { fields, terms } = group.match;
  const matched = BY_NAME.filter((field) => fields.has(field));
  const text = snippet(snippetSource(first, fields, terms), terms);
  const common = { score: Math.round(score * 1000) / 1000, matched, snippet: text };
  switch (first.kind) {
    case 'entity': {
      const entities: (IndexedRow & { kind: 'entity' })[] = [];
      for (const row of group.rows) if (row.kind === 'entity') entities.push(row);
      // Every agent that holds the name at this level, as find_entity lists them, not only the rows that matched.
      const whole = holders(first.entity.name);
      return {
        kind: 'entity',
        name: first.entity.name,
        agents: whole ? [...whole.agents] : unique(entities.map((row) => row.agent.id)).sort(),
        types: whole ? [...whole.types] : unique(entities.flatMap((row) => (row.entity.type ? [row.entity.type] : []))),
        tags: whole ? [...whole.tags] : unique(entities.flatMap((row) => row.entity.tags)),
        superseded: entities.every((row) => superseded(row, today)),
        ...common,
      };
    }
    case 'session':
      return {
        kind: 'session',
        agent: first.agent.id,
        date: first.session.date,
        cwd: first.session.cwd,
        project_focus: [...first.session.project_focus],
        key_actions: [...first.session.key_actions],
        ...common,
      };
    case 'note':
      return {
        kind: 'note',
        agent: first.agent.id,
        id: `${first.agent.id}:${first.position}`,
        date: first.note.date,
        title: first.title,
        tags: [...first.note.tags],
        project_focus: [...first.note.project_focus],
        ...common,
      };
    case 'workstream': {
      const days = group.rows.flatMap((row) => (row.kind === 'workstream' && row.day ? [row.day] : []));
      return {
        kind: 'workstream',
        name: first.name,
        agents: unique(group.rows.map((row) => row.agent.id)).sort(),
        last_activity: days.length ? days.sort().at(-1)! : null,
        ...common,
      };
    }
  }
}

/** Names whose holders one set of manifests keeps, at most (a page shows twenty). */
const HOLDERS_KEPT = 2_000;
const holdersKept = new WeakMap<readonly AgentRecord[], Map<AccessLevel, (name: string) => Holders>>();

/**
 * Who holds an entity name at `level` in `agents` (entityNamed), remembered for that set of
 * manifests — a set never changes (a change of the library brings another), and the names a
 * page shows come back search after search.
 */
function holdersIn(agents: readonly AgentRecord[], level: AccessLevel): (name: string) => Holders {
  let byLevel = holdersKept.get(agents);
  if (!byLevel) holdersKept.set(agents, (byLevel = new Map()));
  let holders = byLevel.get(level);
  if (!holders) byLevel.set(level, (holders = remembered((name) => entityNamed(agents, name, level), HOLDERS_KEPT)));
  return holders;
}

/** The best `limit` results the local library has for `query` at `level`, and how many it has in all. */
export function localSearch(
  ctx: OperationContext,
  query: string,
  level: AccessLevel,
  filters: SearchFilters,
  limit: number,
  /** Rows (best first by the index's score) grouped and ranked further; a test makes it small. */
  maxHits = MAX_HITS,
): { results: SearchResult[]; total: number } {
  const queryWords = words(query.slice(0, SEARCH_TEXT_LIMIT));
  const terms = unique(queryWords).slice(0, MAX_TERMS);
  if (!terms.length) return { results: [], total: 0 };
  const index = searchIndex(ctx, level);
  const today = ctx.now().toISOString().slice(0, 10);
  const filtered = filters.kinds !== null || filters.agent !== null || filters.since !== null;
  const origin = new Map<string, string>();
  const queries = termQueries(terms, origin, (term) => index.knows(term));
  const ranked = index.postings.rank(queries, {
    weights: MATCH_WEIGHTS,
    // Read for every posting: without filters, an array of row weights (1, or less for rows that ended).
    boost: filtered
      ? (id: number) => {
          const row = index.rowAt(id);
          if (!row || !kept(row, filters)) return 0;
          return superseded(row, today) ? SUPERSEDED_WEIGHT : 1;
        }
      : index.weightsOn(today, SUPERSEDED_WEIGHT),
    // Only the best hits are grouped and ranked further (a word every row holds would
    // otherwise cost the whole library on every search).
    limit: maxHits,
    // A swapped form counts as the word it was made from (several words together, below).
    word: (term) => terms.indexOf(origin.get(term) ?? term),
    // The rows in no order: only the groups shown are ordered (search-grouping.ts).
    ordered: false,
  });
  const phrase = queryWords.join(' ');
  const matched = new Set<string>();
  for (const derived of ranked.sources.values()) for (const { term } of derived) matched.add(term);
  const grouping = groupHits(index, ranked, terms.length, phrase, matched);
  const page = pageOf(grouping, ranked, limit).map(({ group, score }) => ({
    ids: groupIds(grouping, ranked, group),
    score,
  }));
  const total = ranked.ids.length < ranked.total ? ranked.total : grouping.count;
  const matches = index.postings.groupMatches(
    page.map(({ ids }) => ids),
    ranked,
  );
  // The manifests the index was just brought to (one read of the library's freshness a search).
  const holders = holdersIn(index.agents, level);
  const results = page.map(({ ids, score }, at) =>
    resultOf({ rows: ids.map((id) => index.rowAt(id)!), match: matches[at]! }, score, today, holders),
  );
  return { results, total };
}

export async function searchMemory(ctx: OperationContext, args: SearchMemoryInput): Promise<SearchMemoryOutput> {
  // One turn of the event loop first: the OS event of a manifest written in place before this
  // call reaches the store's freshness, so the search reads it (docs/reliability.md).
  await new Promise((resolve) => setImmediate(resolve));
  const level = access(ctx, args, 'public');
  const query = args.query.slice(0, SEARCH_TEXT_LIMIT);
  const base = { query, access_level: level.echoed, include_private: args.include_private ?? false };
  const refuse = (error: string) => ({ error, ...base, results: [], truncated: false });
  if (level.error) return refuse(level.error);
  const kinds = parseKinds(args.kind);
  if (kinds && 'error' in kinds) return refuse(kinds.error);
  let since: string | null = null;
  if (args.since) {
    since = sinceDay(args.since, ctx.now());
    if (!since) return refuse(`since ${JSON.stringify(args.since.slice(0, 60))} is not a day (use YYYY-MM-DD)`);
  }
  const limit = Math.min(MAX_PAGE_SIZE, Math.max(1, args.limit ?? DEFAULT_PAGE_SIZE));
  const agent = args.agent ?? null;
  const localAgent = agent !== null && !agent.startsWith('peer:') ? agent : null;
  if (localAgent !== null) tellUnknownAgent(ctx, localAgent);
  const filters: SearchFilters = { kinds, agent, since };
  const local =
    agent !== null && localAgent === null
      ? { results: [], total: 0 }
      : localSearch(ctx, query, level.effective, filters, limit);
  const merged = await searchPeers(ctx, args, level, local.results, filters);
  const results = merged.results.slice(0, limit);
  const answer = { ...base, results, truncated: local.total > limit || merged.results.length > limit };
  return merged.unreachable ? { ...answer, peers_unreachable: merged.unreachable } : answer;
}

/**
 * The names a reader most likely meant by `text` ("did you mean"): the best entity and
 * workstream names the search finds at `level`, never one the level hides.
 */
export function searchSuggestions(ctx: OperationContext, text: string, level: AccessLevel, count = 3): string[] {
  const { results } = localSearch(
    ctx,
    text,
    level,
    { kinds: new Set(['entity', 'workstream']), agent: null, since: null },
    count * 2,
  );
  const names: string[] = [];
  for (const result of results) {
    if ((result.kind === 'entity' || result.kind === 'workstream') && !names.includes(result.name))
      names.push(result.name);
    if (names.length >= count) break;
  }
  return names;
}

/**
 * Builds, in the background, the index search_memory answers from by default (the operator's,
 * at the default access level), a manifest per turn of the event loop: `bourdon serve` calls it
 * as it starts, so that the first search does not pay for the whole build.
 */
export function warmSearchMemory(store: LibraryStore, env: Record<string, string | undefined>): Promise<void> {
  const ctx = createContext(store, { env, warn: () => {} });
  return warmSearchIndex(ctx, access(ctx, {}, 'public').effective).done;
}
