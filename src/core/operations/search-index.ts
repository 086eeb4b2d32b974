/**
 * The search index behind search_memory: every row a caller may see at one access level —
 * entities, sessions, notes and the workstreams their project names make — in one MiniSearch
 * index (bench/README.md, "Search", says why MiniSearch). Built from the snapshot's records
 * (which a one-shot CLI call reads from the parsed cache), in memory only: nothing is written.
 *
 * One index per store, access level and grant set, holding only the rows visible at that level
 * in the manifests that caller may read, so a hidden row is never scored, counted or suggested.
 * When the snapshot changes, the manifests removed and added are taken out of the index and put
 * in (one changed manifest re-indexes that manifest alone); the rest stays.
 */
import MiniSearch from 'minisearch';
import { agentsInScope, type OperationContext } from '../context.js';
import type { AgentRecord } from '../store/library.js';
import type { Entity, Note, Session } from '../store/manifest.js';
import { canSee, type AccessLevel } from '../store/visibility.js';
import { redactNullable, redactText } from '../trust/redaction.js';
import type { LibraryStore } from '../store/library.js';
import { dayOf } from '../store/dates.js';

export const SEARCH_KINDS = ['entity', 'session', 'note', 'workstream'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

/** One indexed row, as the answer reads it back. Note texts are held redacted, as list_notes serves them. */
export type IndexedRow =
  | { kind: 'entity'; agent: AgentRecord; entity: Entity }
  | { kind: 'session'; agent: AgentRecord; session: Session }
  | { kind: 'note'; agent: AgentRecord; note: Note; position: number; title: string | null; text: string }
  | { kind: 'workstream'; agent: AgentRecord; name: string; day: string | null };

/** The indexed fields, each with its weight: a name counts most, then aliases, then tags. */
export const FIELD_BOOSTS = {
  name: 8,
  aliases: 6,
  title: 5,
  tags: 3,
  project_focus: 2.5,
  type: 1.5,
  summary: 1.2,
  key_actions: 1.2,
  text: 1,
  cwd: 0.8,
  files_touched: 0.6,
} as const;
export type SearchField = keyof typeof FIELD_BOOSTS;
const FIELDS = Object.keys(FIELD_BOOSTS) as SearchField[];

type SearchDocument = { id: number } & Partial<Record<SearchField, string>>;

/** Case and accents folded: `Café` and `CAFE` are both `cafe`. */
export function fold(text: string): string {
  // Most words are ASCII: lower-casing is all they need (and costs a fraction of normalising).
  if (ASCII.test(text)) return text.toLowerCase();
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

// eslint-disable-next-line no-control-regex -- the ASCII range is what it tests
const ASCII = /^[\u0000-\u007f]*$/;

/**
 * fold() of an indexed word, or null for an empty one, remembered: a library repeats its words,
 * and a lookup costs less than folding again (the memory is dropped past FOLD_CACHE words).
 */
const folds = new Map<string, string | null>();
const FOLD_CACHE = 100_000;
function foldCached(term: string): string | null {
  let folded = folds.get(term);
  if (folded === undefined) {
    const text = fold(term);
    folded = text.length > 0 ? text : null;
    if (folds.size >= FOLD_CACHE) folds.clear();
    folds.set(term, folded);
  }
  return folded;
}

/** Words as the index splits them: on spaces and punctuation (MiniSearch's own rule). */
const WORD_BREAK = /[\n\r\p{Z}\p{P}]+/u;
export function words(text: string): string[] {
  return text
    .split(WORD_BREAK)
    .map(fold)
    .filter((word) => word.length > 0);
}

export class SearchIndex {
  /**
   * Every indexed word, with how many times the rows of this index hold it (kept per manifest,
   * so a manifest taken out takes its words with it): a query word found here is looked up as
   * written and as a prefix only; only a word the index lacks is expanded for typos.
   */
  /**
   * Every indexed word, with how many manifests' rows in this index hold it (kept per manifest,
   * so a manifest taken out takes its words with it): a query word found here is looked up as
   * written and as a prefix only; only a word the index lacks is expanded for typos.
   */
  readonly vocabulary = new Map<string, number>();
  private counting: Set<string> | null = null;
  private readonly words = new Map<AgentRecord, Set<string>>();
  readonly engine = new MiniSearch<SearchDocument>({
    fields: FIELDS,
    idField: 'id',
    tokenize: (text) => (text ? text.split(WORD_BREAK) : []),
    processTerm: (term) => {
      const folded = foldCached(term);
      if (folded === null) return null;
      this.counting?.add(folded);
      return folded;
    },
    // A query's words come folded already (words()); they are not counted.
    searchOptions: { processTerm: (term) => term },
  });
  readonly rows = new Map<number, IndexedRow>();
  /** The day each entity row with a valid_to ends (its rows only: most have none). */
  readonly validTo = new Map<number, string>();
  private readonly ids = new Map<AgentRecord, number[]>();
  private nextId = 1;
  agents: readonly AgentRecord[] = [];

  constructor(readonly level: AccessLevel) {}

  /** Brings the index to `agents`: the manifests no longer there out, the new ones in. */
  update(agents: readonly AgentRecord[]): void {
    if (agents === this.agents) return;
    const next = new Set(agents);
    const removed = [...this.ids.keys()].filter((agent) => !next.has(agent));
    for (const agent of removed) {
      const ids = this.ids.get(agent)!;
      this.engine.discardAll(ids);
      for (const word of this.words.get(agent) ?? []) {
        const left = (this.vocabulary.get(word) ?? 0) - 1;
        if (left > 0) this.vocabulary.set(word, left);
        else this.vocabulary.delete(word);
      }
      this.words.delete(agent);
      for (const id of ids) {
        this.rows.delete(id);
        this.validTo.delete(id);
      }
      this.ids.delete(agent);
    }
    for (const agent of agents) if (!this.ids.has(agent)) this.add(agent);
    this.agents = agents;
  }

  private add(agent: AgentRecord): void {
    const ids: number[] = [];
    const documents: SearchDocument[] = [];
    const put = (row: IndexedRow, fields: Partial<Record<SearchField, string>>) => {
      const id = this.nextId++;
      ids.push(id);
      this.rows.set(id, row);
      documents.push({ id, ...fields });
    };
    const level = this.level;
    for (const entity of agent.entities) {
      if (!canSee(level, entity.visibility)) continue;
      const until = entity.valid_to === null ? null : dayOf(entity.valid_to);
      if (until !== null) this.validTo.set(this.nextId, until);
      put(
        { kind: 'entity', agent, entity },
        {
          name: entity.name,
          aliases: entity.aliases.join('\n'),
          tags: entity.tags.join('\n'),
          type: entity.type ?? '',
          summary: entity.summary ?? '',
        },
      );
    }
    const projects = new Map<string, { name: string; day: string | null }>();
    const project = (name: string, day: string | null) => {
      const key = fold(name.trim());
      if (!key) return;
      const known = projects.get(key);
      if (!known) projects.set(key, { name: name.trim(), day });
      else if (day && (!known.day || day > known.day)) known.day = day;
    };
    for (const session of agent.sessions) {
      if (!canSee(level, session.visibility)) continue;
      put(
        { kind: 'session', agent, session },
        {
          key_actions: session.key_actions.join('\n'),
          project_focus: session.project_focus.join('\n'),
          cwd: session.cwd ?? '',
          files_touched: session.files_touched.join('\n'),
        },
      );
      for (const name of session.project_focus) project(name, session.day);
    }
    agent.notes.forEach((note, index) => {
      if (!canSee(level, note.visibility)) return;
      // Held as list_notes serves it: a text that looks like a credential is never indexed.
      const title = redactNullable(note.title);
      const text = redactText(note.text);
      put(
        { kind: 'note', agent, note, position: index + 1, title, text },
        { title: title ?? '', text, tags: note.tags.join('\n'), project_focus: note.project_focus.join('\n') },
      );
      for (const name of note.project_focus) project(name, note.day);
    });
    for (const { name, day } of projects.values()) put({ kind: 'workstream', agent, name, day }, { name });
    const counted = new Set<string>();
    this.counting = counted;
    try {
      this.engine.addAll(documents);
    } finally {
      this.counting = null;
    }
    for (const word of counted) this.vocabulary.set(word, (this.vocabulary.get(word) ?? 0) + 1);
    this.words.set(agent, counted);
    this.ids.set(agent, ids);
  }

  /** Whether some indexed word is `word` or begins with it. */
  knows(word: string): boolean {
    if (this.vocabulary.has(word)) return true;
    for (const known of this.vocabulary.keys()) if (known.startsWith(word)) return true;
    return false;
  }
}

const indexes = new WeakMap<LibraryStore, Map<string, SearchIndex>>();

/**
 * The index of the rows this caller may see at `level`, up to date with the store's snapshot:
 * one per access level and grant set, kept with the store, changed manifest by manifest.
 */
export function searchIndex(ctx: OperationContext, level: AccessLevel): SearchIndex {
  const agents = agentsInScope(ctx);
  let byScope = indexes.get(ctx.store);
  if (!byScope) {
    byScope = new Map();
    indexes.set(ctx.store, byScope);
  }
  const scope = ctx.caller.tier === 'trusted' ? '*' : [...ctx.caller.grants].sort().join('\0');
  const key = `${level}\u0001${scope}`;
  let index = byScope.get(key);
  if (!index) {
    index = new SearchIndex(level);
    byScope.set(key, index);
  }
  index.update(agents);
  return index;
}
