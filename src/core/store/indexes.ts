/**
 * Per-agent indexes, built on first use and kept as long as that manifest is unchanged. When
 * one manifest of fifty changes, only its index is rebuilt; queries combine the per-agent
 * indexes at query time (a map lookup per agent, or a k-way merge of sorted lists), so warm
 * queries never scan every row and a reload never re-indexes the whole library. Indexes
 * cover every row whatever its visibility; queries filter by level as they walk them.
 * Library-wide indexes built from these (which agents answer to a name, every session in
 * list_recent_work order) are in library-indexes.ts.
 */
import { canSee, type AccessLevel } from './visibility.js';
import type { AgentRecord } from './manifest-file.js';
import { foldKey, newestFirst, type Entity, type Session } from './manifest.js';

/** A session with the agent whose manifest holds it. */
export interface DatedSession {
  agent: string;
  session: Session;
}

interface AgentIndex {
  /** The agent's entities answering to a folded name or alias, in file order. */
  answering(key: string): readonly Entity[];
  /** Whether any entity answers to the folded key. */
  answers(key: string): boolean;
  /** Every folded name and alias the agent's entities answer to. */
  keys(): Iterable<string>;
  /** The file positions of the agent's entities of a folded name, in file order (recognition merge key). */
  named(key: string): readonly number[];
  /** The folded name of the entity at a file position. */
  foldedName(position: number): string;
  /** Sessions newest first; equal days keep file order. */
  sessionsByRecency: Session[];
  /** Folded project focus → sessions, newest first. */
  sessionsByProject: Map<string, Session[]>;
  /**
   * The file positions of the entities with a name or alias spelled as `phrase` (its tokens
   * joined by spaces): what recognition looks prompt phrases up in.
   */
  spelled(phrase: string): readonly number[];
  /** The most tokens any phrase of this agent has. */
  longestPhrase: number;
}

/**
 * A map whose values are lists, held compactly: a key with one value keeps the value itself, not
 * a one-item list (most names have one entity, most keys one agent: a server holds tens of
 * thousands of such keys). Values are rows, agents or file positions, never lists themselves.
 */
export type CompactLists<K, V extends object | number> = Map<K, V | V[]>;

export function listOf<V extends object | number>(value: V | V[] | undefined): readonly V[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

export function pushCompact<K, V extends object | number>(map: CompactLists<K, V>, key: K, value: V): void {
  const found = map.get(key);
  if (found === undefined) map.set(key, value);
  else if (Array.isArray(found)) found.push(value);
  else map.set(key, [found, value]);
}

export function tokenize(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * An agent's index, each part built on first use: a one-shot CLI query pays only for the part
 * it reads (find_entity needs the name index, not the session order or recognition phrases).
 */
class LazyAgentIndex implements AgentIndex {
  // Entities are held by file position (a small integer costs no memory of its own), and each
  // name is folded once: every part below keys on that one string (bench/README.md, memory).
  private folded?: string[];
  private byKey?: CompactLists<string, Entity>;
  private byName?: CompactLists<string, number>;
  private recency?: { sessionsByRecency: Session[]; sessionsByProject: Map<string, Session[]> };
  private recognition?: { byPhrase: CompactLists<string, number>; longestPhrase: number };

  constructor(private readonly agent: AgentRecord) {}

  private foldedNames(): string[] {
    this.folded ??= this.agent.entities.map((entity) => foldKey(entity.name));
    return this.folded;
  }

  /** Folded name or alias → the entities answering to it: what find_entity and query read. */
  private keyed(): CompactLists<string, Entity> {
    if (!this.byKey) {
      const byKey: CompactLists<string, Entity> = new Map();
      const folded = this.foldedNames();
      this.agent.entities.forEach((entity, position) => {
        const name = folded[position]!;
        pushCompact(byKey, name, entity);
        // Most entities have no alias: the set that keeps a key from naming the entity twice is
        // made only for those that do.
        if (entity.aliases.length === 0) return;
        const keys = new Set(entity.aliases.map(foldKey));
        keys.delete(name);
        for (const key of keys) if (key) pushCompact(byKey, key, entity);
      });
      this.byKey = byKey;
    }
    return this.byKey;
  }

  private recencyParts() {
    if (!this.recency) {
      const sessionsByRecency = [...this.agent.sessions].sort(newestFirst);
      const sessionsByProject = new Map<string, Session[]>();
      for (const session of sessionsByRecency) {
        for (const key of new Set(session.project_focus.map(foldKey))) if (key) push(sessionsByProject, key, session);
      }
      this.recency = { sessionsByRecency, sessionsByProject };
    }
    return this.recency;
  }

  private recognitionParts() {
    if (!this.recognition) {
      const byPhrase: CompactLists<string, number> = new Map();
      const folded = this.foldedNames();
      let longestPhrase = 0;
      this.agent.entities.forEach((entity, position) => {
        const key = folded[position]!;
        const seen = new Set<string>();
        for (const text of [entity.name, ...entity.aliases]) {
          const tokens = tokenize(text);
          const joined = tokens.join(' ');
          if (!tokens.length || seen.has(joined)) continue;
          seen.add(joined);
          // A name already written as its tokens shares the folded name's string.
          pushCompact(byPhrase, joined === key ? key : joined, position);
          longestPhrase = Math.max(longestPhrase, tokens.length);
        }
      });
      this.recognition = { byPhrase, longestPhrase };
    }
    return this.recognition;
  }

  answering(key: string): readonly Entity[] {
    return listOf(this.keyed().get(key));
  }
  answers(key: string): boolean {
    return this.keyed().has(key);
  }
  keys(): Iterable<string> {
    return this.keyed().keys();
  }
  named(key: string): readonly number[] {
    if (!this.byName) {
      const byName: CompactLists<string, number> = new Map();
      this.foldedNames().forEach((name, position) => pushCompact(byName, name, position));
      this.byName = byName;
    }
    return listOf(this.byName.get(key));
  }
  foldedName(position: number): string {
    return this.foldedNames()[position]!;
  }
  get sessionsByRecency() {
    return this.recencyParts().sessionsByRecency;
  }
  get sessionsByProject() {
    return this.recencyParts().sessionsByProject;
  }
  spelled(phrase: string): readonly number[] {
    return listOf(this.recognitionParts().byPhrase.get(phrase));
  }
  get longestPhrase() {
    return this.recognitionParts().longestPhrase;
  }
}

const cache = new WeakMap<AgentRecord, AgentIndex>();

export function agentIndex(agent: AgentRecord): AgentIndex {
  let index = cache.get(agent);
  if (!index) {
    index = new LazyAgentIndex(agent);
    cache.set(agent, index);
  }
  return index;
}

/**
 * Visible sessions focused on a project, newest first (by the date as written); equal dates in
 * the order the engine loads manifests, by file name (`copilot-vscode.l5.yaml` before
 * `copilot.l5.yaml`), a pulled manifest after the library's own, then each file's own order.
 */
export function sessionsForProject(
  agents: readonly AgentRecord[],
  project: string,
  level: AccessLevel,
): DatedSession[] {
  const key = foldKey(project);
  if (!key) return [];
  const out: DatedSession[] = [];
  const byFile = (a: AgentRecord, b: AgentRecord) =>
    Number(Boolean(a.origin)) - Number(Boolean(b.origin)) || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0);
  for (const agent of [...agents].sort(byFile)) {
    for (const session of agentIndex(agent).sessionsByProject.get(key) ?? []) {
      if (canSee(level, session.visibility)) out.push({ agent: agent.id, session });
    }
  }
  return out.sort((a, b) => newestFirst(a.session, b.session));
}
