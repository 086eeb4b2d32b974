/**
 * Read queries over a set of manifests. Pure functions: the caller decides which agents are
 * in scope (grants) and at which level rows are visible; these only filter, match and order.
 */
import { canSee, type AccessLevel } from '../trust/access.js';
import { foldKey, type Entity, type Session } from '../store/manifest.js';
import type { AgentRecord } from '../store/library.js';
import { agentIndex } from '../store/indexes.js';
import { entityHolders } from '../store/library-indexes.js';
import type { EntityMatch, SessionRef } from '../rows.js';

export type { EntityMatch, SessionRef };

/** Appends `value` unless `seen` has it: one lookup, so a list of thousands stays linear to build. */
function pushUnique<T>(list: T[], seen: Set<T>, value: T): void {
  if (seen.has(value)) return;
  seen.add(value);
  list.push(value);
}

/**
 * Entities whose name or alias equals `name` (case-insensitive), grouped by exact entity
 * name in the order first seen (agents in id order, entities in file order).
 */
export function findEntityMatches(agents: readonly AgentRecord[], name: string, level: AccessLevel): EntityMatch[] {
  const key = foldKey(name);
  if (!key) return [];
  const matches = new EntityMatchGroups();
  for (const agent of entityHolders(agents, key)) {
    for (const entity of agentIndex(agent).answering(key)) {
      if (canSee(level, entity.visibility)) matches.add(agent.id, entity);
    }
  }
  return matches.list();
}

/**
 * findEntityMatches' group for `name` alone — the agents that hold an entity of exactly that
 * name at `level`, its types and tags, in the same order — without building the groups of the
 * other names the key answers to, nor the summaries (search_memory's entity results list these).
 */
export function entityNamed(
  agents: readonly AgentRecord[],
  name: string,
  level: AccessLevel,
): { agents: string[]; types: string[]; tags: string[] } | undefined {
  const key = foldKey(name);
  if (!key) return undefined;
  const found = { agents: [] as string[], types: [] as string[], tags: [] as string[] };
  const seen = { agents: new Set<string>(), types: new Set<string>(), tags: new Set<string>() };
  for (const agent of entityHolders(agents, key)) {
    for (const entity of agentIndex(agent).answering(key)) {
      if (entity.name !== name || !canSee(level, entity.visibility)) continue;
      pushUnique(found.agents, seen.agents, agent.id);
      if (entity.type) pushUnique(found.types, seen.types, entity.type);
      for (const tag of entity.tags) pushUnique(found.tags, seen.tags, tag);
    }
  }
  return found.agents.length ? found : undefined;
}

/**
 * Entity rows grouped by exact name, in the order first seen: each group lists the agents that
 * hold the name, the types and tags they give it, and each agent's summary of it (its last row's
 * that has one, as the engine answers).
 */
export class EntityMatchGroups {
  private readonly groups = new Map<
    string,
    { match: EntityMatch; agents: Set<string>; types: Set<string>; tags: Set<string> }
  >();

  get size(): number {
    return this.groups.size;
  }

  has(name: string): boolean {
    return this.groups.has(name);
  }

  add(agentId: string, entity: Entity): void {
    let group = this.groups.get(entity.name);
    if (!group) {
      const match: EntityMatch = { name: entity.name, agents: [], types: [], summaries: {}, tags: [] };
      group = { match, agents: new Set(), types: new Set(), tags: new Set() };
      this.groups.set(entity.name, group);
    }
    const { match } = group;
    pushUnique(match.agents, group.agents, agentId);
    if (entity.type) pushUnique(match.types, group.types, entity.type);
    // Two rows of one name in one agent: the later row's summary, as the engine's find_entity overwrites.
    if (entity.summary) match.summaries[agentId] = entity.summary;
    for (const tag of entity.tags) pushUnique(match.tags, group.tags, tag);
  }

  list(): EntityMatch[] {
    return [...this.groups.values()].map((group) => group.match);
  }
}

export function sessionRef(agent: string, session: Session, summary = false): SessionRef {
  const ref: SessionRef = {
    agent,
    date: session.date,
    cwd: session.cwd,
    project_focus: [...session.project_focus],
  };
  if (!summary) {
    ref.key_actions = [...session.key_actions];
    ref.files_touched = [...session.files_touched];
  }
  return ref;
}
