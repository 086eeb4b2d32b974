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

/** The agents that hold a name, and the types and tags they give it, each once in the order met. */
class Holders {
  readonly agents: string[] = [];
  readonly types: string[] = [];
  readonly tags: string[] = [];
  private readonly seen = { agents: new Set<string>(), types: new Set<string>(), tags: new Set<string>() };

  add(agentId: string, entity: Entity): void {
    pushUnique(this.agents, this.seen.agents, agentId);
    if (entity.type) pushUnique(this.types, this.seen.types, entity.type);
    for (const tag of entity.tags) pushUnique(this.tags, this.seen.tags, tag);
  }
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
  const found = new Holders();
  for (const agent of entityHolders(agents, key)) {
    for (const entity of agentIndex(agent).answering(key))
      if (entity.name === name && canSee(level, entity.visibility)) found.add(agent.id, entity);
  }
  return found.agents.length ? found : undefined;
}

/**
 * Entity rows grouped by exact name, in the order first seen: each group lists the agents that
 * hold the name, the types and tags they give it, and each agent's summary of it (its last row's
 * that has one, as the engine answers).
 */
export class EntityMatchGroups {
  private readonly groups = new Map<string, { match: EntityMatch; holders: Holders }>();

  get size(): number {
    return this.groups.size;
  }

  has(name: string): boolean {
    return this.groups.has(name);
  }

  add(agentId: string, entity: Entity): void {
    let group = this.groups.get(entity.name);
    if (!group) {
      const holders = new Holders();
      // The match lists the holders' own lists (filled as rows come).
      const match: EntityMatch = {
        name: entity.name,
        agents: holders.agents,
        types: holders.types,
        summaries: {},
        tags: holders.tags,
      };
      group = { match, holders };
      this.groups.set(entity.name, group);
    }
    group.holders.add(agentId, entity);
    // Two rows of one name in one agent: the later row's summary, as the engine's find_entity overwrites.
    if (entity.summary) group.match.summaries[agentId] = entity.summary;
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
