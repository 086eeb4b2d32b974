/**
 * Read queries over a set of manifests. Pure functions: the caller decides which agents are
 * in scope (grants) and at which level rows are visible; these only filter, match and order.
 */
import { canSee, type AccessLevel } from '../trust/access.js';
import { foldKey, type Session } from '../store/manifest.js';
import type { AgentRecord } from '../store/library.js';
import { agentIndex } from '../store/indexes.js';

export interface EntityMatch {
  name: string;
  agents: string[];
  types: string[];
  summaries: Record<string, string>;
  tags: string[];
}

export interface SessionRef {
  agent: string;
  date: string;
  cwd: string | null;
  project_focus: string[];
  key_actions?: string[];
  files_touched?: string[];
}

function pushUnique<T>(list: T[], value: T): void {
  if (!list.includes(value)) list.push(value);
}

/**
 * Entities whose name or alias equals `name` (case-insensitive), grouped by exact entity
 * name in the order first seen (agents in id order, entities in file order).
 */
export function findEntityMatches(agents: readonly AgentRecord[], name: string, level: AccessLevel): EntityMatch[] {
  const key = foldKey(name);
  if (!key) return [];
  const groups = new Map<string, EntityMatch>();
  for (const agent of agents) {
    for (const entity of agentIndex(agent).entitiesByKey.get(key) ?? []) {
      if (!canSee(level, entity.visibility)) continue;
      let group = groups.get(entity.name);
      if (!group) {
        group = { name: entity.name, agents: [], types: [], summaries: {}, tags: [] };
        groups.set(entity.name, group);
      }
      pushUnique(group.agents, agent.id);
      if (entity.type) pushUnique(group.types, entity.type);
      if (entity.summary && !(agent.id in group.summaries)) group.summaries[agent.id] = entity.summary;
      for (const tag of entity.tags) pushUnique(group.tags, tag);
    }
  }
  return [...groups.values()];
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

export interface DatedSession {
  agent: string;
  session: Session;
}
