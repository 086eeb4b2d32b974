/**
 * The candidates of a Codex turn brief, as the engine gathers them: the library's entities
 * (merged across agents by name) and sessions visible at the level, then Codex's newest threads;
 * candidates of one kind and name merged into one (the first stays, unless a later one matches
 * the prompt strictly better and replaces it; the others lend it their agents and evidence).
 *
 * The engine rebuilds and scores every row on every turn. Here the library side is prepared once
 * per snapshot and level (each name's tokens, the merge groups, an index from name tokens and
 * prefixes to rows), so a turn only looks at the rows the prompt can match and, for a prompt
 * asking to continue, the groups naming the repository; what a group's merge lends is kept too.
 * Nothing else can pass the recognition gate, so the brief is the same.
 */
import type { Row } from '../native/sqlite.js';
import { THREAD_DATE_COLUMNS } from '../native/codex-state.js';
import { stateTimestampDate } from '../native/python-dates.js';
import { truthy } from '../native/python-values.js';
import { containsWord, pyStrip, scrubNativeText } from '../native/scrub.js';
import type { AgentRecord } from '../store/manifest-file.js';
import type { Session } from '../store/manifest.js';
import { canSee, type AccessLevel } from '../trust/access.js';

export type CandidateKind = 'project' | 'preference' | 'handoff' | 'entity' | 'session' | 'thread';
export type CandidateSource = 'codex_l5' | 'l6_federation' | 'codex_rollout' | 'codex_state';

export interface Candidate {
  kind: CandidateKind;
  name: string;
  summary: string;
  source: CandidateSource;
  sourceAgents: readonly string[];
  aliases: readonly string[];
  dateText: string | null;
  cwd: string | null;
  projectFocus: readonly string[];
  filesTouched: readonly string[];
  evidence: readonly string[];
  /** Name, summary, project focus and cwd, lower-cased: what the repository is looked for in. */
  text: string;
  /** The name lower-cased. */
  lowerName: string;
}

/** `_safe_summary`: the engine's native-memory scrubber, 220 code points unless told. */
export const clean = (value: string, limit = 220): string => scrubNativeText(value, limit);

const TOKEN = /[a-zA-Z0-9]+/g;

/** Runs of ASCII letters and digits, lower-cased. */
function tokens(value: string): string[] {
  return (value.match(TOKEN) ?? []).map((token) => token.toLowerCase());
}

const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a about again am an and anything are as at be can do for from how i is it keep like me new of on or please ' +
    'remind should tell the there to was we what whats with working'
  ).split(' '),
);

/** The prompt as scoring reads it, tokenised once per turn. */
export interface PromptView {
  readonly text: string;
  readonly lower: string;
  readonly tokens: readonly string[];
  readonly tokenSet: ReadonlySet<string>;
  /** Tokens of more than two characters that are not stop words. */
  readonly terms: ReadonlySet<string>;
}

export function promptView(prompt: string): PromptView {
  const all = tokens(prompt);
  return {
    text: prompt,
    lower: prompt.toLowerCase(),
    tokens: all,
    tokenSet: new Set(all),
    terms: new Set(all.filter((token) => !STOPWORDS.has(token) && token.length > 2)),
  };
}

/** A name as the prompt is matched against it, worked out once per distinct name. */
interface NameView {
  readonly raw: string;
  /** Lower-cased, then stripped. */
  readonly lower: string;
  readonly tokens: readonly string[];
  /** Its distinct tokens that are not stop words. */
  readonly terms: readonly string[];
}

function nameView(raw: string): NameView {
  const all = tokens(raw);
  return {
    raw,
    lower: pyStrip(raw.toLowerCase()),
    tokens: all,
    terms: [...new Set(all)].filter((token) => !STOPWORDS.has(token)),
  };
}

function containsRun(haystack: readonly string[], needle: readonly string[]): boolean {
  if (needle.length === 0 || needle.length > haystack.length) return false;
  outer: for (let start = 0; start + needle.length <= haystack.length; start++) {
    for (let i = 0; i < needle.length; i++) if (haystack[start + i] !== needle[i]) continue outer;
    return true;
  }
  return false;
}

export interface PromptMatch {
  score: number;
  /** The first name reaching the score ('' without a match): the reason says "prompt matched <name>". */
  name: string;
}

const NO_MATCH: PromptMatch = { score: 0, name: '' };

/**
 * The prompt component: the best over the candidate's name, aliases and project focus — the
 * whole prompt 40, inside the prompt 36, its tokens a run of the prompt's 30, else 12 per shared
 * meaningful term (at most 24). The first name reaching the best is the one named. `inPrompt`,
 * when given, holds every name of these lists that occurs in the prompt (the library's, found by
 * prefix), so no name is searched for.
 */
function promptMatch(names: readonly NameView[], prompt: PromptView, inPrompt?: ReadonlySet<string>): PromptMatch {
  let best = 0;
  let bestName = '';
  for (const name of names) {
    if (!name.lower) continue;
    let score: number;
    if (inPrompt ? inPrompt.has(name.lower) : prompt.lower.includes(name.lower))
      score = prompt.lower === name.lower ? 40 : 36;
    // A run of the prompt's tokens starts with one of them (a set lookup rules most names out).
    else if (prompt.tokenSet.has(name.tokens[0]) && containsRun(prompt.tokens, name.tokens)) score = 30;
    else {
      let overlap = 0;
      for (const term of name.terms) if (prompt.terms.has(term)) overlap++;
      score = Math.min(24, overlap * 12);
    }
    if (score > best) {
      best = score;
      bestName = name.raw;
    }
  }
  return best ? { score: best, name: bestName } : NO_MATCH;
}

/** A library row a candidate is built from, only when a turn needs it. */
type Entry =
  { kind: 'entity'; entity: MergedEntity } | { kind: 'session'; session: Session; agent: string; name: string };

interface MergedEntity {
  name: string;
  type: string;
  aliases: string[];
  summary: string;
  sourceAgents: string[];
  tags: string[];
}

/** What a merged-away candidate lends the survivor: its agents and evidence, in order. */
interface Contribution {
  readonly sourceAgents: readonly string[];
  readonly evidence: readonly string[];
}

/** The names of one prefix: each distinct name's lists, and the names' distinct lengths. */
interface PrefixBucket {
  readonly lists: Map<string, number[]>;
  readonly lengths: number[];
}

/** A group's distinct name lists and where each first appears among its members. */
interface Contenders {
  readonly lists: Int32Array;
  readonly members: Int32Array;
}

/** The library side of a turn, per snapshot and level. */
export interface PreparedLibrary {
  readonly entries: readonly Entry[];
  /**
   * The distinct name lists (name, aliases, project focus) and each entry's: a project's sessions
   * share one, so a turn matches it once. Per list, the groups its entries are in.
   */
  readonly nameLists: readonly (readonly NameView[])[];
  readonly listOf: Int32Array;
  readonly listGroups: readonly (readonly number[])[];
  /** Entry indexes per merge group (kind and lower-cased name), groups in order of first appearance. */
  readonly groups: readonly (readonly number[])[];
  readonly groupOf: Int32Array;
  /** Each entry's name as written (the first of its list), and its candidate kind. */
  readonly firstNames: readonly string[];
  readonly kinds: readonly CandidateKind[];
  /** Name token → the name lists holding it. */
  readonly byToken: ReadonlyMap<string, number[]>;
  /** A lower-cased name's first three characters (all of a shorter one) → the names starting so. */
  readonly byPrefix: ReadonlyMap<string, PrefixBucket>;
  /**
   * Filled as turns ask: each entry's cleaned summary and candidate (never changed: a merge
   * works on a copy), each group's gate text and lent suffixes.
   */
  readonly summaries: (string | undefined)[];
  readonly evidence: (readonly string[] | undefined)[];
  readonly candidates: (Candidate | undefined)[];
  readonly gateTexts: (string | undefined)[];
  readonly lent: Map<number, Map<number, Contribution>>;
  /** Per group of several members: its distinct name lists in order of first appearance (the survivor is one of their first members). */
  readonly contenders: (Contenders | undefined)[];
  /** Per repository name (lower-cased): the groups a continuation prompt keeps for it, in order. */
  readonly continuing: Map<string, readonly number[]>;
  /** Per-turn scratch: the turn that last matched each name list, and its match. */
  readonly seenIn: Uint32Array;
  readonly matches: (PromptMatch | undefined)[];
  turn: number;
}

const prepared = new WeakMap<readonly AgentRecord[], Map<AccessLevel, PreparedLibrary>>();

/** The prepared library for these agents at this level, built once per snapshot. */
export function preparedLibrary(agents: readonly AgentRecord[], level: AccessLevel): PreparedLibrary {
  let byLevel = prepared.get(agents);
  if (!byLevel) prepared.set(agents, (byLevel = new Map()));
  let library = byLevel.get(level);
  if (!library) byLevel.set(level, (library = prepare(agents, level)));
  return library;
}

function appendUnique(list: string[], seen: Set<string>, value: string): void {
  if (seen.has(value)) return;
  seen.add(value);
  list.push(value);
}

/** The engine's `build_recognition_manifest` entities: merged by stripped, lower-cased name, agents in id order. */
function mergedEntities(agents: readonly AgentRecord[], level: AccessLevel): MergedEntity[] {
  const byKey = new Map<string, { entity: MergedEntity; seen: [Set<string>, Set<string>, Set<string>] }>();
  for (const agent of agents) {
    for (const entity of agent.entities) {
      if (!canSee(level, entity.visibility)) continue;
      const name = pyStrip(entity.name);
      if (!name) continue;
      const key = name.toLowerCase();
      let merged = byKey.get(key);
      if (!merged) {
        const first: MergedEntity = {
          name,
          type: entity.type || 'topic',
          aliases: [],
          // The first agent's summary as written (even blank); a later one fills it only when empty.
          summary: entity.summary ?? '',
          sourceAgents: [],
          tags: [],
        };
        merged = { entity: first, seen: [new Set(), new Set(), new Set()] };
        byKey.set(key, merged);
      }
      const [agentSeen, aliasSeen, tagSeen] = merged.seen;
      const target = merged.entity;
      appendUnique(target.sourceAgents, agentSeen, agent.id);
      for (const alias of entity.aliases) if (pyStrip(alias)) appendUnique(target.aliases, aliasSeen, pyStrip(alias));
      for (const tag of entity.tags) if (pyStrip(tag)) appendUnique(target.tags, tagSeen, pyStrip(tag));
      const summary = entity.summary === null ? '' : pyStrip(entity.summary);
      if (summary && !target.summary) target.summary = summary;
    }
  }
  return [...byKey.values()].map(({ entity }) => entity);
}

const nonBlank = (items: readonly string[]): string[] => items.filter((item) => pyStrip(item) !== '');

function index(map: Map<string, number[]>, key: string, entry: number): void {
  const list = map.get(key);
  if (!list) map.set(key, [entry]);
  else if (list[list.length - 1] !== entry) list.push(entry);
}

function prepare(agents: readonly AgentRecord[], level: AccessLevel): PreparedLibrary {
  const entries: Entry[] = mergedEntities(agents, level).map((entity) => ({ kind: 'entity', entity }));
  const sessions: Entry[] = [];
  for (const agent of agents) {
    for (const session of agent.sessions) {
      if (!canSee(level, session.visibility)) continue;
      // Named by the first project focus, else the first key action; neither → not a candidate.
      const name = nonBlank(session.project_focus)[0] ?? nonBlank(session.key_actions)[0];
      if (name) sessions.push({ kind: 'session', session, agent: agent.id, name });
    }
  }
  // Newest first by the date as written; a stable sort keeps agent order among equal dates.
  const dateOf = (entry: Entry): string => (entry.kind === 'session' ? entry.session.date : '');
  sessions.sort((a, b) => (dateOf(a) === dateOf(b) ? 0 : dateOf(a) < dateOf(b) ? 1 : -1));
  entries.push(...sessions);

  const views = new Map<string, NameView>();
  const viewOf = (raw: string): NameView => {
    let view = views.get(raw);
    if (!view) views.set(raw, (view = nameView(raw)));
    return view;
  };
  const listIds = new Map<string, number>();
  const nameLists: NameView[][] = [];
  const listGroups: number[][] = [];
  const listOf = new Int32Array(entries.length);
  const groupKeys = new Map<string, number>();
  const groups: number[][] = [];
  const groupOf = new Int32Array(entries.length);
  const byToken = new Map<string, number[]>();
  const byPrefix = new Map<string, PrefixBucket>();
  const firstNames: string[] = [];
  const kinds: CandidateKind[] = [];
  entries.forEach((entry, position) => {
    const raw =
      entry.kind === 'entity'
        ? [entry.entity.name, ...entry.entity.aliases]
        : [entry.name, ...nonBlank(entry.session.project_focus)];
    firstNames.push(raw[0]);
    const kind = entry.kind === 'entity' ? entityKind(entry.entity) : 'session';
    kinds.push(kind);
    const groupKey = `${kind}\u0000${raw[0].toLowerCase()}`;
    let group = groupKeys.get(groupKey);
    if (group === undefined) {
      group = groups.length;
      groupKeys.set(groupKey, group);
      groups.push([]);
    }
    groups[group].push(position);
    groupOf[position] = group;
    const joined = raw.join('\u0000');
    let list = listIds.get(joined);
    if (list === undefined) {
      list = nameLists.length;
      listIds.set(joined, list);
      const own = raw.map(viewOf);
      nameLists.push(own);
      listGroups.push([]);
      for (const view of own) {
        for (const token of view.tokens) index(byToken, token, list);
        if (!view.lower) continue;
        const prefix = view.lower.slice(0, 3);
        let bucket = byPrefix.get(prefix);
        if (!bucket) byPrefix.set(prefix, (bucket = { lists: new Map(), lengths: [] }));
        const { length } = view.lower;
        if (!bucket.lists.has(view.lower) && !bucket.lengths.includes(length)) bucket.lengths.push(length);
        index(bucket.lists, view.lower, list);
      }
    }
    listOf[position] = list;
    const inGroups = listGroups[list];
    if (inGroups[inGroups.length - 1] !== group && !inGroups.includes(group)) inGroups.push(group);
  });
  return {
    entries,
    nameLists,
    listOf,
    listGroups,
    firstNames,
    kinds,
    groups,
    groupOf,
    byToken,
    byPrefix,
    summaries: new Array<string | undefined>(entries.length),
    evidence: new Array<readonly string[] | undefined>(entries.length),
    candidates: new Array<Candidate | undefined>(entries.length),
    gateTexts: new Array<string | undefined>(groups.length),
    lent: new Map(),
    contenders: new Array<Contenders | undefined>(groups.length),
    continuing: new Map(),
    seenIn: new Uint32Array(nameLists.length),
    matches: new Array<PromptMatch | undefined>(nameLists.length),
    turn: 0,
  };
}

function entityKind(entity: MergedEntity): CandidateKind {
  if (entity.type === 'project' || entity.type === 'preference') return entity.type;
  return entity.tags.includes('workflow') || entity.tags.includes('handoff') ? 'handoff' : 'entity';
}

function sessionSummary(session: Session): string {
  const actions = nonBlank(session.key_actions);
  if (actions.length) return actions.slice(0, 2).join('; ');
  const focus = nonBlank(session.project_focus);
  if (focus.length) return `Recent work focused on ${focus.slice(0, 3).join(', ')}.`;
  return 'Recent federated work item.';
}

/** An entry's summary as its candidate carries it (cleaned), kept once worked out. */
function summaryOf(library: PreparedLibrary, position: number): string {
  let summary = library.summaries[position];
  if (summary === undefined) {
    const entry = library.entries[position];
    summary = clean(entry.kind === 'entity' ? entry.entity.summary : sessionSummary(entry.session));
    library.summaries[position] = summary;
  }
  return summary;
}

function evidenceOf(entry: Entry): string[] {
  const evidence: string[] = [];
  if (entry.kind === 'entity') {
    const { entity } = entry;
    if (entity.sourceAgents.length) evidence.push(`known by ${entity.sourceAgents.slice(0, 4).join(', ')}`);
    if (entity.aliases.length) evidence.push(`aliases: ${entity.aliases.slice(0, 3).join(', ')}`);
    return evidence;
  }
  const { session } = entry;
  if (session.date) evidence.push(`session date ${session.date}`);
  if (session.cwd) evidence.push(`cwd ${session.cwd}`);
  if (session.files_touched.length) evidence.push(`files touched: ${session.files_touched.slice(0, 3).join(', ')}`);
  return evidence;
}

const agentsOf = (entry: Entry): readonly string[] =>
  entry.kind === 'entity' ? entry.entity.sourceAgents : entry.agent ? [entry.agent] : [];

/** What an entry lends as evidence, worked out once. */
function evidenceAt(library: PreparedLibrary, position: number): readonly string[] {
  let evidence = library.evidence[position];
  if (!evidence) library.evidence[position] = evidence = evidenceOf(library.entries[position]);
  return evidence;
}

/** The text `cwd_repo` scoring searches: name, summary, focus and cwd, lower-cased. */
function matchText(name: string, summary: string, focus: readonly string[], cwd: string | null): string {
  return [name, summary, ...focus, cwd ?? ''].join(' ').toLowerCase();
}

/** The candidate an entry stands for, built once (its lists shared with the library's: never change it). */
function candidateOf(library: PreparedLibrary, position: number): Candidate {
  return (library.candidates[position] ??= buildCandidate(library, position));
}

function buildCandidate(library: PreparedLibrary, position: number): Candidate {
  const entry = library.entries[position];
  const summary = summaryOf(library, position);
  const evidence = evidenceAt(library, position);
  if (entry.kind === 'entity') {
    const { entity } = entry;
    return {
      kind: library.kinds[position],
      name: entity.name,
      summary,
      source: entity.sourceAgents.length === 1 && entity.sourceAgents[0] === 'codex' ? 'codex_l5' : 'l6_federation',
      sourceAgents: entity.sourceAgents,
      aliases: entity.aliases,
      dateText: null,
      cwd: null,
      projectFocus: [],
      filesTouched: [],
      evidence,
      text: matchText(entity.name, summary, [], null),
      lowerName: entity.name.toLowerCase(),
    };
  }
  const { session, agent } = entry;
  const focus = nonBlank(session.project_focus);
  return {
    kind: 'session',
    name: entry.name,
    summary,
    source: agent === 'codex' ? 'codex_l5' : 'l6_federation',
    sourceAgents: agent ? [agent] : [],
    aliases: [],
    dateText: session.date || null,
    cwd: session.cwd,
    projectFocus: focus,
    filesTouched: nonBlank(session.files_touched),
    evidence,
    text: matchText(entry.name, summary, focus, session.cwd),
    lowerName: entry.name.toLowerCase(),
  };
}

/** What the members after `from` lend a group's survivor, kept per group and starting point. */
function lentAfter(library: PreparedLibrary, group: number, from: number): Contribution {
  let byStart = library.lent.get(group);
  if (!byStart) library.lent.set(group, (byStart = new Map()));
  let lent = byStart.get(from);
  if (!lent) {
    const agents: string[] = [];
    const evidence: string[] = [];
    const agentSeen = new Set<string>();
    const evidenceSeen = new Set<string>();
    const members = library.groups[group];
    for (let i = from + 1; i < members.length; i++) {
      const entry = library.entries[members[i]];
      for (const agent of agentsOf(entry)) appendUnique(agents, agentSeen, agent);
      for (const item of evidenceAt(library, members[i])) appendUnique(evidence, evidenceSeen, item);
    }
    byStart.set(from, (lent = { sourceAgents: agents, evidence }));
  }
  return lent;
}

/** The survivor with what is lent added to its own lists (new lists: the old ones may be shared). */
function absorb(survivor: Candidate, lent: Contribution): void {
  const agents = new Set(survivor.sourceAgents);
  const newAgents = lent.sourceAgents.filter((agent) => !agents.has(agent));
  if (newAgents.length) survivor.sourceAgents = [...survivor.sourceAgents, ...newAgents];
  const evidence = new Set(survivor.evidence);
  const newEvidence = lent.evidence.filter((item) => !evidence.has(item));
  if (newEvidence.length) survivor.evidence = [...survivor.evidence, ...newEvidence];
}

/** The text the continuation gate looks for the repository in: name, summary and focus, lower-cased. */
function gateText(library: PreparedLibrary, group: number): string {
  let text = library.gateTexts[group];
  if (text === undefined) {
    const first = library.groups[group][0];
    const entry = library.entries[first];
    const focus = entry.kind === 'session' ? nonBlank(entry.session.project_focus) : [];
    text = [library.firstNames[first], summaryOf(library, first), ...focus].join(' ').toLowerCase();
    library.gateTexts[group] = text;
  }
  return text;
}

/** A group's contenders, worked out on first use. */
function contendersOf(library: PreparedLibrary, group: number): Contenders {
  let contenders = library.contenders[group];
  if (!contenders) {
    const members = library.groups[group];
    const lists: number[] = [];
    const firsts: number[] = [];
    const seen = new Set<number>();
    members.forEach((entry, i) => {
      const list = library.listOf[entry];
      if (!seen.has(list)) {
        seen.add(list);
        lists.push(list);
        firsts.push(i);
      }
    });
    library.contenders[group] = contenders = { lists: Int32Array.from(lists), members: Int32Array.from(firsts) };
  }
  return contenders;
}

/**
 * The groups a continuation prompt keeps for a repository whatever the prompt says: those whose
 * first member names it as a word (name, summary and focus). Kept per repository name: a Codex
 * session asks about one repository turn after turn.
 */
function continuingGroups(library: PreparedLibrary, repo: string): readonly number[] {
  let groups = library.continuing.get(repo);
  if (!groups) {
    const found: number[] = [];
    for (let group = 0; group < library.groups.length; group++) {
      const text = gateText(library, group);
      if (text.includes(repo) && containsWord(text, repo)) found.push(group);
    }
    if (library.continuing.size >= 16) library.continuing.clear();
    library.continuing.set(repo, (groups = found));
  }
  return groups;
}

const threadCache = new WeakMap<readonly Row[], readonly Candidate[]>();

/**
 * Codex's threads as candidates: named by title or first message, dated, newest first. Kept per
 * row list (the state database's rows are kept while its stamp holds); never changed in place.
 */
export function threadCandidates(rows: readonly Row[]): readonly Candidate[] {
  const kept = threadCache.get(rows);
  if (kept) return kept;
  const candidates: Candidate[] = [];
  for (const row of rows) {
    const title = clean(sqlText(row.title), 180);
    const firstMessage = clean(sqlText(row.first_user_message), 180);
    const threadName = title || firstMessage || '(untitled)';
    const stamp = THREAD_DATE_COLUMNS.map((column) => row[column]).find(truthy);
    const date = stamp === undefined ? '' : stateTimestampDate(sqlText(stamp));
    if (!date || threadName === '(untitled)') continue;
    const cwd = typeof row.cwd === 'string' ? row.cwd : null;
    const hasRollout = truthy(row.rollout_path);
    const evidence = [`thread date ${date}`];
    if (hasRollout) evidence.push('rollout available');
    if (cwd) evidence.push(`cwd ${cwd}`);
    const summary = clean(cwd ? `cwd ${cwd}` : 'Recent Codex thread metadata.');
    const name = clean(threadName, 120);
    candidates.push({
      kind: 'thread',
      name,
      summary,
      source: hasRollout ? 'codex_rollout' : 'codex_state',
      sourceAgents: ['codex'],
      aliases: [],
      dateText: date,
      cwd,
      projectFocus: [],
      filesTouched: [],
      evidence,
      text: matchText(name, summary, [], cwd),
      lowerName: name.toLowerCase(),
    });
  }
  threadCache.set(rows, candidates);
  return candidates;
}

/** `str(value or "")` of a SQLite value. */
function sqlText(value: unknown): string {
  if (!truthy(value)) return '';
  return value instanceof Uint8Array ? `b'${Buffer.from(value).toString('latin1')}'` : String(value);
}

/** A candidate with the prompt component it won its place with. */
export interface Gathered {
  candidate: Candidate;
  prompt: PromptMatch;
}

/**
 * The merged candidates a turn can keep, in the engine's order (first appearance of each kind and
 * name): every group one of whose members the prompt matches, and for a continuation prompt the
 * non-thread groups whose first member names the repository as a word (`continuationRepo`,
 * lower-cased). The rest cannot pass the recognition gate, so they are never built.
 */
export function gatherCandidates(
  library: PreparedLibrary,
  threads: readonly Candidate[],
  prompt: PromptView,
  continuationRepo: string | null,
): Gathered[] {
  // Each name list is matched once per turn. The scratch arrays are the library's: gathering
  // is synchronous, so turns never interleave here.
  const turn = (library.turn = (library.turn + 1) >>> 0 || 1);
  const { seenIn, matches } = library;
  // Every name inside the prompt, whether or not it shares a token with it ("bourdon" in
  // "bourdonish"): found by its first characters at each place in the prompt, then looked up
  // whole at each length such names have.
  const { lower } = prompt;
  const inPrompt = new Set<string>();
  const inPromptLists: (readonly number[])[] = [];
  for (let i = 0; i < lower.length; i++) {
    for (let width = 1; width <= 3 && i + width <= lower.length; width++) {
      const bucket = library.byPrefix.get(lower.slice(i, i + width));
      if (!bucket) continue;
      for (const length of bucket.lengths) {
        if (length < width || i + length > lower.length) continue;
        const name = lower.slice(i, i + length);
        const lists = bucket.lists.get(name);
        if (!lists) continue;
        inPrompt.add(name);
        inPromptLists.push(lists);
      }
    }
  }
  const considered: number[] = [];
  const consider = (list: number): void => {
    if (seenIn[list] === turn) return;
    seenIn[list] = turn;
    matches[list] = promptMatch(library.nameLists[list], prompt, inPrompt);
    considered.push(list);
  };
  const matchOf = (list: number): PromptMatch => (seenIn[list] === turn ? matches[list]! : NO_MATCH);
  for (const lists of inPromptLists) for (const list of lists) consider(list);
  // The other names that can match share a token with the prompt.
  for (const token of prompt.tokenSet) for (const list of library.byToken.get(token) ?? []) consider(list);
  const wanted = new Set<number>();
  for (const list of considered)
    if (matches[list]!.score > 0) for (const group of library.listGroups[list]) wanted.add(group);
  if (continuationRepo) for (const group of continuingGroups(library, continuationRepo)) wanted.add(group);
  const gathered: Gathered[] = [...wanted]
    .sort((a, b) => a - b)
    .map((group) => {
      const members = library.groups[group];
      // The survivor is the last member to beat every one before it; those after it lend. A
      // member's match is its name list's, so only each list's first member can be the one.
      let survivor = 0;
      let best = matchOf(library.listOf[members[0]]);
      if (members.length > 1) {
        const { lists, members: firsts } = contendersOf(library, group);
        for (let i = 1; i < lists.length; i++) {
          const match = matchOf(lists[i]);
          if (match.score > best.score) {
            survivor = firsts[i];
            best = match;
          }
        }
      }
      const kept = candidateOf(library, members[survivor]);
      if (survivor === members.length - 1) return { candidate: kept, prompt: best };
      const candidate = { ...kept };
      absorb(candidate, lentAfter(library, group, survivor));
      return { candidate, prompt: best };
    });
  // Threads: a handful per turn, merged among themselves (no library row is a thread). Merging
  // replaces a candidate's lists, so each turn works on copies of the kept candidates.
  const threadGroups = new Map<string, { candidate: Candidate; prompt: PromptMatch }>();
  for (const thread of threads) {
    const key = thread.lowerName;
    const match = promptMatch([nameView(thread.name)], prompt);
    const current = threadGroups.get(key);
    if (!current || match.score > current.prompt.score)
      threadGroups.set(key, { candidate: { ...thread }, prompt: match });
    else absorb(current.candidate, thread);
  }
  gathered.push(...threadGroups.values());
  return gathered;
}
