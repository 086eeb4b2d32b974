/**
 * The candidates of a Codex turn brief, as the engine gathers them: the library's entities
 * (merged across agents by name) and sessions visible at the level, then Codex's newest threads;
 * candidates of one kind and name merged into one. The prompt decides which merge survives, so
 * the merge runs per turn, but only for the names the prompt can match (found through an index
 * of name tokens and prefixes built once per library snapshot and level) and, for a prompt that
 * asks to continue, the ones naming the repository.
 */
import type { Row } from '../native/sqlite.js';
import { THREAD_DATE_COLUMNS } from '../native/codex-state.js';
import { containsWord, pyStrip, scrubNativeText } from '../native/scrub.js';
import type { AgentRecord } from '../store/manifest-file.js';
import { canSee, type AccessLevel } from '../trust/access.js';
import { stateTimestampDate } from '../native/python-dates.js';

export type CandidateKind = 'project' | 'preference' | 'handoff' | 'entity' | 'session' | 'thread';
export type CandidateSource = 'codex_l5' | 'l6_federation' | 'codex_rollout' | 'codex_state';

export interface Candidate {
  kind: CandidateKind;
  name: string;
  summary: string;
  source: CandidateSource;
  sourceAgents: string[];
  aliases: readonly string[];
  dateText: string | null;
  cwd: string | null;
  projectFocus: readonly string[];
  filesTouched: readonly string[];
  evidence: string[];
}

/** `_safe_summary`: the engine's native-memory scrubber, 220 code points unless told. */
export const clean = (value: string, limit = 220): string => scrubNativeText(value, limit);

const TOKEN = /[a-zA-Z0-9]+/g;

/** Runs of ASCII letters and digits, lower-cased. */
export function tokens(value: string): string[] {
  return (value.match(TOKEN) ?? []).map((token) => token.toLowerCase());
}

export const STOPWORDS: ReadonlySet<string> = new Set(
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
  reason: string;
}

const NO_MATCH: PromptMatch = { score: 0, reason: '' };

/** The prompt component: the best of the candidate's name, aliases and project focus. */
export function promptMatch(names: readonly string[], prompt: PromptView): PromptMatch {
  let best = 0;
  let bestName = '';
  for (const name of names) {
    const lower = pyStrip(name.toLowerCase());
    if (!lower) continue;
    let score: number;
    if (prompt.lower === lower) score = 40;
    else if (prompt.lower.includes(lower)) score = 36;
    else {
      const nameTokens = tokens(name);
      if (containsRun(prompt.tokens, nameTokens)) score = 30;
      else {
        let overlap = 0;
        for (const term of new Set(nameTokens)) if (!STOPWORDS.has(term) && prompt.terms.has(term)) overlap++;
        score = Math.min(24, overlap * 12);
      }
    }
    if (score > best) {
      best = score;
      bestName = name;
    }
  }
  return best ? { score: best, reason: `prompt matched ${bestName}` } : NO_MATCH;
}

const namesOf = (candidate: Candidate): string[] => [candidate.name, ...candidate.aliases, ...candidate.projectFocus];

/** A library row a candidate is built from, only when a turn needs it. */
type Entry =
  | { kind: 'entity'; entity: MergedEntity }
  | { kind: 'session'; session: AgentRecord['sessions'][number]; agent: string; name: string };

interface MergedEntity {
  name: string;
  type: string;
  aliases: string[];
  summary: string;
  sourceAgents: string[];
  tags: string[];
}

/** The library side of a turn, per snapshot and level: the entries, their merge groups, the match index. */
export interface PreparedLibrary {
  readonly entries: readonly Entry[];
  /** Entry indexes per merge group, groups in order of first appearance. */
  readonly groups: readonly (readonly number[])[];
  readonly groupOf: Int32Array;
  /** Name token → entries with a name, alias or focus holding it. */
  readonly byToken: ReadonlyMap<string, number[]>;
  /** A lower-cased name's first three characters (all of a shorter one) → entries. */
  readonly byPrefix: ReadonlyMap<string, number[]>;
  /** Each entry's names the prompt is matched against: name, aliases, project focus. */
  readonly names: readonly (readonly string[])[];
  /** Each entry's name, summary and focus, lower-cased (the continuation gate reads it). */
  readonly semantic: readonly string[];
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
  const byKey = new Map<string, { entity: MergedEntity; seen: Set<string>[] }>();
  for (const agent of agents) {
    for (const entity of agent.entities) {
      if (!canSee(level, entity.visibility)) continue;
      const name = pyStrip(entity.name);
      if (!name) continue;
      const key = name.toLowerCase();
      let merged = byKey.get(key);
      if (!merged) {
        merged = {
          entity: {
            name,
            type: entity.type || 'topic',
            aliases: [],
            summary: entity.summary ?? '',
            sourceAgents: [],
            tags: [],
          },
          seen: [new Set(), new Set(), new Set()],
        };
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

function sessionName(session: AgentRecord['sessions'][number]): string {
  return nonBlank(session.project_focus)[0] ?? nonBlank(session.key_actions)[0] ?? '';
}

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
      const name = sessionName(session);
      if (name) sessions.push({ kind: 'session', session, agent: agent.id, name });
    }
  }
  // Newest first by the date as written; a stable sort keeps agent order among equal dates.
  const dateOf = (entry: Entry): string => (entry.kind === 'session' ? entry.session.date : '');
  sessions.sort((a, b) => (dateOf(a) === dateOf(b) ? 0 : dateOf(a) < dateOf(b) ? 1 : -1));
  entries.push(...sessions);

  const groupKeys = new Map<string, number>();
  const groups: number[][] = [];
  const groupOf = new Int32Array(entries.length);
  const byToken = new Map<string, number[]>();
  const byPrefix = new Map<string, number[]>();
  const semantic: string[] = [];
  const allNames: string[][] = [];
  entries.forEach((entry, position) => {
    const names =
      entry.kind === 'entity'
        ? [entry.entity.name, ...entry.entity.aliases]
        : [entry.name, ...nonBlank(entry.session.project_focus)];
    allNames.push(names);
    const kind = entry.kind === 'entity' ? entityKind(entry.entity) : 'session';
    const key = `${kind}\u0000${names[0].toLowerCase()}`;
    let group = groupKeys.get(key);
    if (group === undefined) {
      group = groups.length;
      groupKeys.set(key, group);
      groups.push([]);
    }
    groups[group].push(position);
    groupOf[position] = group;
    for (const name of names) {
      for (const token of tokens(name)) index(byToken, token, position);
      const lower = pyStrip(name.toLowerCase());
      if (lower) index(byPrefix, lower.slice(0, 3), position);
    }
    const summary = entry.kind === 'entity' ? entry.entity.summary : sessionSummary(entry.session);
    semantic.push(
      [names[0], clean(summary), ...(entry.kind === 'session' ? nonBlank(entry.session.project_focus) : [])]
        .join(' ')
        .toLowerCase(),
    );
  });
  return { entries, groups, groupOf, byToken, byPrefix, names: allNames, semantic };
}

function entityKind(entity: MergedEntity): CandidateKind {
  if (entity.type === 'project' || entity.type === 'preference') return entity.type;
  return entity.tags.includes('workflow') || entity.tags.includes('handoff') ? 'handoff' : 'entity';
}

function sessionSummary(session: AgentRecord['sessions'][number]): string {
  const actions = nonBlank(session.key_actions);
  if (actions.length) return actions.slice(0, 2).join('; ');
  const focus = nonBlank(session.project_focus);
  if (focus.length) return `Recent work focused on ${focus.slice(0, 3).join(', ')}.`;
  return 'Recent federated work item.';
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

function contributionOf(entry: Entry): Contribution {
  const sourceAgents = entry.kind === 'entity' ? entry.entity.sourceAgents : entry.agent ? [entry.agent] : [];
  return { sourceAgents, evidence: evidenceOf(entry) };
}

/** The candidate an entry stands for, built fresh (a merge changes its lists). */
export function candidateOf(entry: Entry): Candidate {
  const evidence = evidenceOf(entry);
  if (entry.kind === 'entity') {
    const { entity } = entry;
    return {
      kind: entityKind(entity),
      name: entity.name,
      summary: clean(entity.summary),
      source: entity.sourceAgents.length === 1 && entity.sourceAgents[0] === 'codex' ? 'codex_l5' : 'l6_federation',
      sourceAgents: [...entity.sourceAgents],
      aliases: entity.aliases,
      dateText: null,
      cwd: null,
      projectFocus: [],
      filesTouched: [],
      evidence,
    };
  }
  const { session, agent } = entry;
  return {
    kind: 'session',
    name: entry.name,
    summary: clean(sessionSummary(session)),
    source: agent === 'codex' ? 'codex_l5' : 'l6_federation',
    sourceAgents: agent ? [agent] : [],
    aliases: [],
    dateText: session.date || null,
    cwd: session.cwd,
    projectFocus: nonBlank(session.project_focus),
    filesTouched: nonBlank(session.files_touched),
    evidence,
  };
}

/** Codex's threads as candidates: named by title or first message, dated, newest first. */
export function threadCandidates(rows: readonly Row[]): Candidate[] {
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
    candidates.push({
      kind: 'thread',
      name: clean(threadName, 120),
      summary: clean(cwd ? `cwd ${cwd}` : 'Recent Codex thread metadata.'),
      source: hasRollout ? 'codex_rollout' : 'codex_state',
      sourceAgents: ['codex'],
      aliases: [],
      dateText: date,
      cwd,
      projectFocus: [],
      filesTouched: [],
      evidence,
    });
  }
  return candidates;
}

/** Python truthiness of a SQLite value. */
function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === 0 || value === '') return false;
  return !(value instanceof Uint8Array && value.length === 0);
}

/** `str(value)` of a SQLite value that may be NULL (`None` reads as empty here: `value or ""`). */
function sqlText(value: unknown): string {
  if (!truthy(value)) return '';
  return value instanceof Uint8Array ? `b'${Buffer.from(value).toString('latin1')}'` : String(value);
}

/** A candidate with the prompt component it won its place with. */
export interface Gathered {
  candidate: Candidate;
  prompt: PromptMatch;
}

/** What a merged-away candidate lends the survivor: its agents and evidence. */
interface Contribution {
  readonly sourceAgents: readonly string[];
  readonly evidence: readonly string[];
}

/**
 * One group's survivor: the first candidate, replaced outright by a later one whose prompt score
 * is strictly higher; the others lend it their unseen agents and evidence. Only survivors are
 * built in full (`build`); a group of thousands of sessions lends through `lend`.
 */
function mergeGroup(
  size: number,
  build: (i: number) => Candidate,
  lend: (i: number) => Contribution,
  match: (i: number) => PromptMatch,
): Gathered {
  let current = build(0);
  let best = match(0);
  let agents = new Set(current.sourceAgents);
  let evidence = new Set(current.evidence);
  for (let i = 1; i < size; i++) {
    const nextMatch = match(i);
    if (nextMatch.score > best.score) {
      current = build(i);
      best = nextMatch;
      agents = new Set(current.sourceAgents);
      evidence = new Set(current.evidence);
      continue;
    }
    const next = lend(i);
    for (const agent of next.sourceAgents) {
      if (agents.has(agent)) continue;
      agents.add(agent);
      current.sourceAgents.push(agent);
    }
    for (const item of next.evidence) {
      if (evidence.has(item)) continue;
      evidence.add(item);
      current.evidence.push(item);
    }
  }
  return { candidate: current, prompt: best };
}

/**
 * The merged candidates a turn can keep, in the engine's order (first appearance of each kind and
 * name): every group one of whose members the prompt matches, and for a continuation prompt the
 * non-thread groups whose first member names the repository as a word. The rest cannot pass the
 * recognition gate, so they are never built.
 */
export function gatherCandidates(
  library: PreparedLibrary,
  threads: readonly Candidate[],
  prompt: PromptView,
  continuationRepo: string | null,
): Gathered[] {
  const matched = new Map<number, PromptMatch>();
  const consider = (entry: number): void => {
    if (!matched.has(entry)) matched.set(entry, promptMatch(library.names[entry], prompt));
  };
  for (const token of prompt.tokenSet) for (const entry of library.byToken.get(token) ?? []) consider(entry);
  for (let i = 0; i < prompt.lower.length; i++) {
    for (let width = 1; width <= 3 && i + width <= prompt.lower.length; width++) {
      for (const entry of library.byPrefix.get(prompt.lower.slice(i, i + width)) ?? []) consider(entry);
    }
  }
  const wanted = new Set<number>();
  for (const [entry, match] of matched) if (match.score > 0) wanted.add(library.groupOf[entry]);
  if (continuationRepo) {
    library.groups.forEach((members, group) => {
      const text = library.semantic[members[0]];
      if (text.includes(continuationRepo) && containsWord(text, continuationRepo)) wanted.add(group);
    });
  }
  const gathered: Gathered[] = [...wanted]
    .sort((a, b) => a - b)
    .map((group) => {
      const members = library.groups[group];
      return mergeGroup(
        members.length,
        (i) => candidateOf(library.entries[members[i]]),
        (i) => contributionOf(library.entries[members[i]]),
        (i) => matched.get(members[i]) ?? NO_MATCH,
      );
    });
  // Threads: a handful per turn, merged among themselves (no library row is a thread).
  const threadGroups = new Map<string, Candidate[]>();
  for (const thread of threads) {
    const key = thread.name.toLowerCase();
    const group = threadGroups.get(key);
    if (group) group.push(thread);
    else threadGroups.set(key, [thread]);
  }
  for (const members of threadGroups.values()) {
    const matches = members.map((thread) => promptMatch(namesOf(thread), prompt));
    gathered.push(
      mergeGroup(
        members.length,
        (i) => members[i],
        (i) => members[i],
        (i) => matches[i],
      ),
    );
  }
  return gathered;
}
