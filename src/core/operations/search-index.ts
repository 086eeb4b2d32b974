/**
 * The search index behind search_memory: every row a caller may see at one access level —
 * entities, sessions, notes and the workstreams their project names make — in one index whose
 * words sit in MiniSearch's radix tree and whose postings are scored as MiniSearch scores them
 * (search-postings.ts; bench/README.md, "Search", says why). Built from the snapshot's records
 * (which a one-shot CLI call reads from the parsed cache), in memory only: nothing is written.
 *
 * One index per store, access level and grant set, holding only the rows visible at that level
 * in the manifests that caller may read, so a hidden row is never scored, counted or suggested.
 * When the snapshot changes, the manifests removed and added are taken out of the index and put
 * in (one changed manifest re-indexes that manifest alone); the rest stays.
 */
import { agentsInScope, type OperationContext } from '../context.js';
import type { AgentRecord } from '../store/library.js';
import type { Entity, Note, Session } from '../store/manifest.js';
import { canSee, type AccessLevel } from '../store/visibility.js';
import { redactNullable, redactText } from '../trust/redaction.js';
import type { LibraryStore } from '../store/library.js';
import { dayOf } from '../store/dates.js';
import { Postings } from './search-postings.js';
import { fold, foldCached, splitWords } from './search-words.js';

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

/**
 * How the index splits a field's text (MiniSearch's `tokenize`) and folds each word (its
 * `processTerm`; an empty word is left out): test/search.postings.test.ts gives MiniSearch the same.
 */
export const INDEX_WORDS = {
  fields: FIELDS,
  tokenize: (text: string): string[] => (text ? splitWords(text) : []),
  processTerm: foldCached,
};

export class SearchIndex {
  /** The rows' words and postings, scored as MiniSearch scores them (search-postings.ts). */
  readonly postings = new Postings(
    FIELDS,
    FIELDS.map((field) => FIELD_BOOSTS[field]),
    INDEX_WORDS.tokenize,
    INDEX_WORDS.processTerm,
  );
  /** The rows by id (read once a hit). */
  private readonly byId: (IndexedRow | undefined)[] = [];
  /**
   * By row id: the number of the group its results are grouped in (entities by name, workstreams
   * by folded name), or -1 (a row of its own); read once a hit, without the row's strings.
   */
  private groupOf = new Int32Array(0);
  /**
   * By row id: its kind (a place in SEARCH_KINDS), plus ALIASED for an entity with aliases, plus
   * what a search noted of its aliases or workstream name (ALIAS_NOTED and the bits `noteAliases`
   * was given).
   */
  private kinds = new Uint16Array(0);
  private readonly entityGroups = new Map<string, number>();
  private readonly workstreamGroups = new Map<string, number>();
  private groups = 0;
  /** The day each entity row with a valid_to ends (its rows only: most have none). */
  readonly validTo = new Map<number, string>();
  private readonly ids = new Map<AgentRecord, number[]>();
  agents: readonly AgentRecord[] = [];

  constructor(readonly level: AccessLevel) {}

  /** Brings the index to `agents`: the manifests no longer there out, the new ones in. */
  update(agents: readonly AgentRecord[]): void {
    if (agents !== this.agents) {
      const next = new Set(agents);
      for (const agent of [...this.ids.keys()]) if (!next.has(agent)) this.remove(agent);
      this.reserve(agents);
      for (const agent of agents) if (!this.ids.has(agent)) this.add(agent);
      this.agents = agents;
      // The arrays by row cut to the rows once a build is in (they grow by doubling).
      this.postings.fit();
      this.resizeRows();
    }
    // The words' entries added (by this call or by add) packed once, not manifest by manifest.
    this.postings.pack();
  }

  /**
   * Room in the arrays by row for the rows of `agents` not yet indexed (at most: a workstream is
   * counted once a project name), made at once rather than by doubling as a build goes.
   */
  reserve(agents: readonly AgentRecord[]): void {
    let rows = 0;
    for (const agent of agents) {
      if (this.ids.has(agent)) continue;
      for (const entity of agent.entities) if (canSee(this.level, entity.visibility)) rows++;
      for (const session of agent.sessions)
        if (canSee(this.level, session.visibility)) rows += 1 + session.project_focus.length;
      for (const note of agent.notes) if (canSee(this.level, note.visibility)) rows += 1 + note.project_focus.length;
    }
    this.postings.reserve(rows);
    this.resizeRows();
  }

  /** Whether `agent`'s manifest is indexed. */
  holds(agent: AgentRecord): boolean {
    return this.ids.has(agent);
  }

  private remove(agent: AgentRecord): void {
    const ids = this.ids.get(agent)!;
    this.postings.remove(ids.map((id) => ({ id, values: valuesOf(this.byId[id]!) })));
    for (const id of ids) {
      this.byId[id] = undefined;
      this.groupOf[id] = -1;
      this.kinds[id] = 0;
      if (this.validTo.delete(id)) {
        if (id < this.rowWeights.length) this.rowWeights[id] = 1;
        this.weighed.day = '';
      }
    }
    this.ids.delete(agent);
  }

  /** Indexes one manifest's rows visible at this level. */
  add(agent: AgentRecord): void {
    if (this.ids.has(agent)) return;
    const ids: number[] = [];
    const put = (row: IndexedRow) => {
      const id = this.postings.add(valuesOf(row));
      ids.push(id);
      this.byId[id] = row;
      this.setGroup(id, row);
      return id;
    };
    const level = this.level;
    for (const entity of agent.entities) {
      if (!canSee(level, entity.visibility)) continue;
      const id = put({ kind: 'entity', agent, entity });
      const until = entity.valid_to === null ? null : dayOf(entity.valid_to);
      if (until !== null) {
        this.validTo.set(id, until);
        this.weighed.day = '';
      }
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
      put({ kind: 'session', agent, session });
      for (const name of session.project_focus) project(name, session.day);
    }
    agent.notes.forEach((note, index) => {
      if (!canSee(level, note.visibility)) return;
      // Held as list_notes serves it: a text that looks like a credential is never indexed.
      // The parsed note's own strings when redaction left them as they were (not a second copy).
      const title = same(redactNullable(note.title), note.title);
      const text = same(redactText(note.text), note.text);
      put({ kind: 'note', agent, note, position: index + 1, title, text });
      for (const name of note.project_focus) project(name, note.day);
    });
    for (const { name, day } of projects.values()) put({ kind: 'workstream', agent, name, day });
    this.ids.set(agent, ids);
  }

  /** Whether some indexed word is `word` or begins with it. */
  knows(word: string): boolean {
    return this.postings.knows(word);
  }

  /** The row indexed as `id`. */
  rowAt(id: number): IndexedRow | undefined {
    return this.byId[id];
  }

  /** Every row indexed. */
  *indexed(): Iterable<IndexedRow> {
    for (const row of this.byId) if (row) yield row;
  }

  /** Group numbers given so far (every group number is below it; a number is never given to another name). */
  get groupCount(): number {
    return this.groups;
  }

  /** The group row `id` is shown in: an entity's name, a workstream's folded name; -1: its own. */
  groupAt(id: number): number {
    return id < this.groupOf.length ? this.groupOf[id]! : -1;
  }

  /** Whether row `id` is an entity with aliases. */
  hasAliases(id: number): boolean {
    return ((this.kinds[id] ?? 0) & ALIASED) !== 0;
  }

  /** The kind of row `id` (an indexed row), without reading the row. */
  kindAt(id: number): SearchKind {
    return SEARCH_KINDS[this.kinds[id]! & KIND_MASK]!;
  }

  /**
   * What a search noted of row `id`'s aliases or workstream name (six bits, `noteAliases`), or
   * -1 if none has:
   * kept with the row, so that later searches need not read its aliases (search-grouping.ts).
   */
  notedAliases(id: number): number {
    const kind = this.kinds[id]!;
    return kind & ALIAS_NOTED ? kind >> ALIAS_SHIFT : -1;
  }

  /** Keeps `bits` (0–63) for row `id`'s aliases or name until the row leaves the index. */
  noteAliases(id: number, bits: number): void {
    this.kinds[id] = (this.kinds[id]! & (KIND_MASK | ALIASED)) | ALIAS_NOTED | ((bits & 63) << ALIAS_SHIFT);
  }

  /** The index's own arrays by row made as long as the postings' (which every id is below). */
  private resizeRows(): void {
    const size = this.postings.rows;
    if (size === this.groupOf.length) return;
    const kept = Math.min(size, this.groupOf.length);
    const groupOf = new Int32Array(size).fill(-1);
    groupOf.set(this.groupOf.subarray(0, kept));
    this.groupOf = groupOf;
    const kinds = new Uint16Array(size);
    kinds.set(this.kinds.subarray(0, kept));
    this.kinds = kinds;
  }

  private setGroup(id: number, row: IndexedRow): void {
    if (id >= this.groupOf.length) this.resizeRows();
    this.kinds[id] =
      SEARCH_KINDS.indexOf(row.kind) + (row.kind === 'entity' && row.entity.aliases.length ? ALIASED : 0);
    if (row.kind !== 'entity' && row.kind !== 'workstream') return;
    const numbers = row.kind === 'entity' ? this.entityGroups : this.workstreamGroups;
    const key = row.kind === 'entity' ? row.entity.name : fold(row.name);
    let group = numbers.get(key);
    if (group === undefined) numbers.set(key, (group = this.groups++));
    this.groupOf[id] = group;
  }

  private rowWeights = new Float32Array(0);
  /** What `rowWeights` were set for: a day and a weight ('' once rows with a valid_to came or went). */
  private weighed = { day: '', superseded: 0 };
  /**
   * The rows' weights by id on `today`: 1, or `superseded` for a row whose valid_to is past; set
   * again only when the day or the rows with a valid_to changed (not at every search).
   */
  weightsOn(today: string, superseded: number): Float32Array {
    const size = this.postings.rows;
    if (this.rowWeights.length !== size) {
      this.rowWeights = new Float32Array(size).fill(1);
      this.weighed.day = '';
    }
    if (this.weighed.day !== today || this.weighed.superseded !== superseded) {
      for (const [id, until] of this.validTo) this.rowWeights[id] = until < today ? superseded : 1;
      this.weighed = { day: today, superseded };
    }
    return this.rowWeights;
  }
}

/** `original` when `text` equals it, so that the index holds one string, not two equal ones. */
function same<T extends string | null>(text: T, original: string | null): T {
  return text === original ? (original as T) : text;
}

const FIELD_IDS = new Map(FIELDS.map((field, id) => [field, id]));
/** A row's kind in the low bits of its 16-bit slot; ALIASED added for an entity with aliases. */
const KIND_MASK = 7;
const ALIASED = 8;
/** Set once a search noted the row's aliases, in the six bits above it. */
const ALIAS_NOTED = 16;
const ALIAS_SHIFT = 5;

/** A row's indexed texts by field id (undefined: a field its kind does not have). */
function valuesOf(row: IndexedRow): (string | undefined)[] {
  const values: (string | undefined)[] = new Array<string | undefined>(FIELDS.length);
  const set = (field: SearchField, text: string) => {
    values[FIELD_IDS.get(field)!] = text;
  };
  switch (row.kind) {
    case 'entity': {
      const { entity } = row;
      set('name', entity.name);
      set('aliases', entity.aliases.join('\n'));
      set('tags', entity.tags.join('\n'));
      set('type', entity.type ?? '');
      set('summary', entity.summary ?? '');
      break;
    }
    case 'session': {
      const { session } = row;
      set('key_actions', session.key_actions.join('\n'));
      set('project_focus', session.project_focus.join('\n'));
      set('cwd', session.cwd ?? '');
      set('files_touched', session.files_touched.join('\n'));
      break;
    }
    case 'note':
      set('title', row.title ?? '');
      set('text', row.text);
      set('tags', row.note.tags.join('\n'));
      set('project_focus', row.note.project_focus.join('\n'));
      break;
    case 'workstream':
      set('name', row.name);
      break;
  }
  return values;
}

const indexes = new WeakMap<LibraryStore, Map<string, SearchIndex>>();

function indexFor(store: LibraryStore, caller: OperationContext['caller'], level: AccessLevel): SearchIndex {
  let byScope = indexes.get(store);
  if (!byScope) {
    byScope = new Map();
    indexes.set(store, byScope);
  }
  const scope = caller.tier === 'trusted' ? '*' : [...caller.grants].sort().join('\0');
  const key = `${level}\u0001${scope}`;
  let index = byScope.get(key);
  if (!index) {
    index = new SearchIndex(level);
    byScope.set(key, index);
  }
  return index;
}

/**
 * The index of the rows this caller may see at `level`, up to date with the store's snapshot:
 * one per access level and grant set, kept with the store, changed manifest by manifest.
 */
export function searchIndex(ctx: OperationContext, level: AccessLevel): SearchIndex {
  const index = indexFor(ctx.store, ctx.caller, level);
  index.update(agentsInScope(ctx));
  return index;
}

/**
 * Builds `ctx`'s caller's index at `level` in the background, one manifest per turn of the
 * event loop, so that no request waits behind more than one manifest's build; a search that
 * comes before the end brings the index up to date itself (searchIndex). A server calls it as it
 * starts, for the level search_memory answers at by default. `done` resolves when it is built.
 */
export function warmSearchIndex(
  ctx: OperationContext,
  level: AccessLevel,
): { index: SearchIndex; done: Promise<void> } {
  const index = indexFor(ctx.store, ctx.caller, level);
  const build = async () => {
    index.reserve(agentsInScope(ctx));
    for (;;) {
      const next = agentsInScope(ctx).find((agent) => !index.holds(agent));
      if (!next) break;
      index.add(next);
      await new Promise((resolve) => setImmediate(resolve));
    }
    index.update(agentsInScope(ctx));
  };
  return { index, done: build() };
}
