/**
 * The library side of a Codex turn brief: the library's entities (merged across agents by name)
 * and sessions visible at the level, prepared once per snapshot and level — each name's tokens,
 * the merge groups, an index from name tokens and prefixes to rows — and each row's candidate,
 * built when a turn first needs it and kept (gather.ts gathers a turn's from them).
 */
import { pyStrip } from '../../native/scrub.js';
import type { AgentRecord } from '../../store/manifest-file.js';
import type { Session } from '../../store/manifest.js';
import { canSee, type AccessLevel } from '../../trust/access.js';
import { clean, matchText, type Candidate, type CandidateKind, type Contribution } from './candidates.js';
import { nameView, type NameView, type PromptMatch } from './prompt-match.js';

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

/** The names of one prefix: each distinct name's lists, and the names' distinct lengths. */
interface PrefixBucket {
  readonly lists: Map<string, number[]>;
  readonly lengths: number[];
}

/** A group's distinct name lists and where each first appears among its members. */
export interface Contenders {
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

export function appendUnique(list: string[], seen: Set<string>, value: string): void {
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
      // Only aliases written as text, as the engine's compiler keeps them (`aliases: [7, orb]` is `orb`).
      for (const alias of entity.textOnly?.aliases ?? entity.aliases)
        if (pyStrip(alias)) appendUnique(target.aliases, aliasSeen, pyStrip(alias));
      for (const tag of entity.tags) if (pyStrip(tag)) appendUnique(target.tags, tagSeen, pyStrip(tag));
      // A later row fills an empty summary only with one written as text, as the engine's does.
      const summary = entity.summary === null || entity.textOnly?.summary === null ? '' : pyStrip(entity.summary);
      if (summary && !target.summary) target.summary = summary;
    }
  }
  return [...byKey.values()].map(({ entity }) => entity);
}

export const nonBlank = (items: readonly string[]): string[] => items.filter((item) => pyStrip(item) !== '');

function index(map: Map<string, number[]>, key: string, entry: number): void {
  const list = map.get(key);
  if (!list) map.set(key, [entry]);
  else if (list[list.length - 1] !== entry) list.push(entry);
}

/**
 * A session as the engine's compiler reads it: its lists' items only where written as text
 * (`project_focus: [Orbit, 12]` is `[Orbit]`), where the tools serve them all as text (model.ts
 * `textOnly`). Its cwd stays for the evidence (`cwd 12`); the candidate takes it only when written
 * as text (`candidateCwd`).
 */
function writtenAsText(session: Session): Session {
  const only = session.textOnly;
  if (!only) return session;
  return {
    ...session,
    project_focus: only.project_focus ?? session.project_focus,
    key_actions: only.key_actions ?? session.key_actions,
    files_touched: only.files_touched ?? session.files_touched,
  };
}

/** A session's cwd as the engine's candidate takes it: only when written as text. */
const candidateCwd = (session: Session): string | null => (session.textOnly?.cwd === null ? null : session.cwd);

function prepare(agents: readonly AgentRecord[], level: AccessLevel): PreparedLibrary {
  const entries: Entry[] = mergedEntities(agents, level).map((entity) => ({ kind: 'entity', entity }));
  const sessions: Entry[] = [];
  for (const agent of agents) {
    for (const row of agent.sessions) {
      if (!canSee(level, row.visibility)) continue;
      const session = writtenAsText(row);
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
    const raw: [string, ...string[]] =
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
    groups[group]!.push(position);
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
    const inGroups = listGroups[list]!;
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
export function summaryOf(library: PreparedLibrary, position: number): string {
  let summary = library.summaries[position];
  if (summary === undefined) {
    const entry = library.entries[position]!;
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

export const agentsOf = (entry: Entry): readonly string[] =>
  entry.kind === 'entity' ? entry.entity.sourceAgents : entry.agent ? [entry.agent] : [];

/** What an entry lends as evidence, worked out once. */
export function evidenceAt(library: PreparedLibrary, position: number): readonly string[] {
  let evidence = library.evidence[position];
  if (!evidence) library.evidence[position] = evidence = evidenceOf(library.entries[position]!);
  return evidence;
}

/** The candidate an entry stands for, built once (its lists shared with the library's: never change it). */
export function candidateOf(library: PreparedLibrary, position: number): Candidate {
  return (library.candidates[position] ??= buildCandidate(library, position));
}

function buildCandidate(library: PreparedLibrary, position: number): Candidate {
  const entry = library.entries[position]!;
  const summary = summaryOf(library, position);
  const evidence = evidenceAt(library, position);
  if (entry.kind === 'entity') {
    const { entity } = entry;
    return {
      kind: library.kinds[position]!,
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
    cwd: candidateCwd(session),
    projectFocus: focus,
    filesTouched: nonBlank(session.files_touched),
    evidence,
    text: matchText(entry.name, summary, focus, candidateCwd(session)),
    lowerName: entry.name.toLowerCase(),
  };
}
