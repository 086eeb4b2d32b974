/**
 * Library-wide indexes, so that a query's cost follows its answer, not the number of agents:
 * which agents answer to a folded name (find_entity, query_agent_memory), and every visible
 * dated session of the library in list_recent_work order, per access level (paging by binary
 * search instead of walking to an offset). Built per agent list (a snapshot's, or a caller's
 * scoped one) on first use, and derived from the previous list's when only a few agents
 * changed: the agents removed and added are taken out and put in, the rest is shared, so one
 * changed manifest costs that agent's rows (and, for the session order, a copy of the top-level
 * lists).
 */
import { canSee, type AccessLevel } from './visibility.js';
import { agentIndex, listOf, pushCompact, type CompactLists, type DatedSession } from './indexes.js';
import type { AgentRecord } from './manifest-file.js';

/** Below this many agents a per-agent loop is as cheap as an index and builds nothing. */
const SMALL_LIBRARY = 32;

interface LibraryIndex {
  agents: readonly AgentRecord[];
  /** The index this one may be derived from (cleared once it has served, so no chain forms). */
  base: LibraryIndex | null;
  /** Folded name → the agents answering to it, in id order. */
  holders: HolderIndex | null;
  sessions: Map<AccessLevel, DatedSession[]>;
}

const built = new WeakMap<readonly AgentRecord[], LibraryIndex>();
let latest: LibraryIndex | null = null;

function libraryIndex(agents: readonly AgentRecord[]): LibraryIndex {
  let index = built.get(agents);
  if (!index) {
    if (latest) latest.base = null;
    index = { agents, base: latest, holders: null, sessions: new Map() };
    built.set(agents, index);
    latest = index;
  }
  return index;
}

/**
 * Lets the previous snapshot's records go once this index has derived what it is likely to
 * need (the name map and one session order); a part asked for later is built whole.
 */
function releaseBase(index: LibraryIndex): void {
  if (index.holders && index.sessions.size > 0) index.base = null;
}

/** The agents only in `base` and only in `next`, or null when too much changed to derive. */
function changes(base: LibraryIndex | null, next: readonly AgentRecord[]) {
  if (!base) return null;
  const before = new Set(base.agents);
  const after = new Set(next);
  const removed = base.agents.filter((agent) => !after.has(agent));
  const added = next.filter((agent) => !before.has(agent));
  return removed.length + added.length > next.length / 2 ? null : { removed, added };
}

const byId = (a: AgentRecord, b: AgentRecord) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Folded name → the agents answering to it, in id order: a full map shared by every index derived
 * from it, and the keys that changed since, with their new lists (null: no agent answers any
 * more). A change costs the changed agents' keys, not a copy of every key in the library (65,000
 * at 50 full agents): the changes are merged into a new full map only once they reach an eighth
 * of it, so that cost is spread over many changes.
 */
class HolderIndex {
  constructor(
    readonly full: CompactLists<string, AgentRecord>,
    readonly changed: ReadonlyMap<string, AgentRecord | AgentRecord[] | null>,
  ) {}

  get(key: string): AgentRecord | AgentRecord[] | undefined {
    const changed = this.changed.get(key);
    return changed === undefined ? this.full.get(key) : (changed ?? undefined);
  }
}

/** Changes are merged into a new full map once there are this many, or an eighth of it. */
const MIN_MERGE = 64;

function holderMap(index: LibraryIndex): HolderIndex {
  if (index.holders) return index.holders;
  const base = index.base?.holders ?? null;
  const diff = base ? changes(index.base!, index.agents) : null;
  let holders: HolderIndex;
  if (diff && base) {
    // The base's lists are shared, never changed: a key the change touches gets its own list.
    const changed = new Map(base.changed);
    const touched = new Set<string>(); // keys whose list this change made its own
    const listFor = (key: string): AgentRecord[] => {
      if (!touched.has(key)) {
        touched.add(key);
        const found = changed.get(key);
        changed.set(key, [...listOf(found === undefined ? base.full.get(key) : (found ?? undefined))]);
      }
      return changed.get(key) as AgentRecord[];
    };
    for (const agent of diff.removed) {
      for (const key of agentIndex(agent).keys()) {
        const list = listFor(key);
        const at = list.indexOf(agent);
        if (at >= 0) list.splice(at, 1);
      }
    }
    for (const agent of diff.added) for (const key of agentIndex(agent).keys()) listFor(key).push(agent);
    for (const key of touched) {
      const list = changed.get(key) as AgentRecord[];
      if (list.length === 0) changed.set(key, null);
      else if (list.length === 1) changed.set(key, list[0]!);
      else list.sort(byId);
    }
    holders =
      changed.size >= Math.max(MIN_MERGE, base.full.size / 8)
        ? merged(base.full, changed)
        : new HolderIndex(base.full, changed);
  } else {
    const full: CompactLists<string, AgentRecord> = new Map();
    for (const agent of index.agents) for (const key of agentIndex(agent).keys()) pushCompact(full, key, agent);
    // Snapshots are sorted by id already; a caller's own list may not be.
    for (const list of full.values()) if (Array.isArray(list)) list.sort(byId);
    holders = new HolderIndex(full, new Map());
  }
  index.holders = holders;
  releaseBase(index);
  return holders;
}

/** A new full map: `full` with `changed` applied. */
function merged(
  full: CompactLists<string, AgentRecord>,
  changed: ReadonlyMap<string, AgentRecord | AgentRecord[] | null>,
): HolderIndex {
  const next = new Map(full);
  for (const [key, value] of changed) {
    if (value === null) next.delete(key);
    else next.set(key, value);
  }
  return new HolderIndex(next, new Map());
}

/**
 * The agents of `agents` with an entity answering to the folded `key`, in their order (agent
 * lists are in id order: snapshots and the scoped lists filtered from them).
 */
export function entityHolders(agents: readonly AgentRecord[], key: string): readonly AgentRecord[] {
  if (agents.length <= SMALL_LIBRARY) return agents.filter((agent) => agentIndex(agent).answers(key));
  return listOf(holderMap(libraryIndex(agents)).get(key));
}

/** list_recent_work order: a later date first, then a greater agent id, then the agent's own order. */
function recencyBefore(a: DatedSession, b: DatedSession): boolean {
  const da = a.session.date;
  const db = b.session.date;
  return da !== db ? da > db : a.agent > b.agent;
}

const visibleByAgent = new WeakMap<AgentRecord, Map<AccessLevel, DatedSession[]>>();

/** One agent's dated sessions visible at `level`, newest first (undated rows never fall in a window). */
export function agentSessions(agent: AgentRecord, level: AccessLevel): DatedSession[] {
  let levels = visibleByAgent.get(agent);
  if (!levels) visibleByAgent.set(agent, (levels = new Map()));
  let rows = levels.get(level);
  if (!rows) {
    rows = [];
    for (const session of agentIndex(agent).sessionsByRecency) {
      if (session.day !== null && canSee(level, session.visibility)) rows.push({ agent: agent.id, session });
    }
    levels.set(level, rows);
  }
  return rows;
}

/** Merges two lists each in recency order (their agents distinct) into one. */
function mergeRecency(a: readonly DatedSession[], b: readonly DatedSession[]): DatedSession[] {
  const out: DatedSession[] = new Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = recencyBefore(b[j]!, a[i]!) ? b[j++]! : a[i++]!;
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}

/** Several agents' rows in recency order (a stable sort keeps each agent's own order). */
function gather(agents: readonly AgentRecord[], level: AccessLevel): DatedSession[] {
  const rows: DatedSession[] = [];
  for (const agent of agents) for (const row of agentSessions(agent, level)) rows.push(row);
  return rows.sort((a, b) => (recencyBefore(a, b) ? -1 : recencyBefore(b, a) ? 1 : 0));
}

/** Every dated session of `agents` visible at `level`, in list_recent_work order. */
export function librarySessions(agents: readonly AgentRecord[], level: AccessLevel): readonly DatedSession[] {
  const index = libraryIndex(agents);
  let rows = index.sessions.get(level);
  if (rows) return rows;
  const baseRows = index.base?.sessions.get(level);
  const diff = baseRows ? changes(index.base, index.agents) : null;
  if (baseRows && diff) {
    const gone = new Set(diff.removed.map((agent) => agent.id));
    const kept = gone.size ? baseRows.filter((row) => !gone.has(row.agent)) : baseRows;
    rows = diff.added.length ? mergeRecency(kept, gather(diff.added, level)) : [...kept];
  } else rows = gather(agents, level);
  index.sessions.set(level, rows);
  releaseBase(index);
  return rows;
}

/** Where a page starts in `rows` after the row a cursor names: (date, agent) and its rank in that group. */
export function positionAfter(rows: readonly DatedSession[], date: string, agent: string, rank: number): number {
  // The first row not before the group (date, agent): binary search on the recency order.
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const row = rows[mid]!;
    const ahead = row.session.date !== date ? row.session.date > date : row.agent > agent;
    if (ahead) low = mid + 1;
    else high = mid;
  }
  let at = low;
  for (let taken = 0; taken < rank && at < rows.length; taken++, at++) {
    const row = rows[at]!;
    if (row.session.date !== date || row.agent !== agent) break;
  }
  return at;
}

/** The rank of rows[at] in its (date, agent) group, counting from 1. */
export function rankInGroup(rows: readonly DatedSession[], at: number): number {
  const { agent, session } = rows[at]!;
  const { date } = session;
  let rank = 1;
  for (let before = rows[at - 1]; before?.agent === agent && before.session.date === date; before = rows[at - rank])
    rank += 1;
  return rank;
}
