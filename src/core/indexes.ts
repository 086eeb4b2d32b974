/**
 * Per-snapshot indexes, built on first use and dropped with the snapshot, so warm queries
 * never scan every manifest. They cover every row whatever its visibility; queries filter by
 * level while walking the (short) candidate lists.
 */
import type { AgentRecord } from './library.js';
import { foldKey, type Entity } from './manifest.js';
import { byDateOnly, byRecency, type DatedSession } from './queries.js';

export interface EntityHit {
  agent: AgentRecord;
  entity: Entity;
}

export interface LibraryIndexes {
  /** Folded name or alias → entities, in agent-id then file order. */
  entitiesByKey: Map<string, EntityHit[]>;
  /** Every session, newest first, equal days by agent id descending (list_recent_work order). */
  sessionsByRecency: DatedSession[];
  /** Folded project focus → sessions, newest first, equal days in agent-id order. */
  sessionsByProject: Map<string, DatedSession[]>;
}

const cache = new WeakMap<readonly AgentRecord[], LibraryIndexes>();

export function indexesFor(agents: readonly AgentRecord[]): LibraryIndexes {
  let indexes = cache.get(agents);
  if (!indexes) {
    indexes = build(agents);
    cache.set(agents, indexes);
  }
  return indexes;
}

function build(agents: readonly AgentRecord[]): LibraryIndexes {
  const entitiesByKey = new Map<string, EntityHit[]>();
  const all: DatedSession[] = [];
  const sessionsByProject = new Map<string, DatedSession[]>();
  for (const agent of agents) {
    for (const entity of agent.entities) {
      const keys = new Set([foldKey(entity.name), ...entity.aliases.map(foldKey)]);
      for (const key of keys) {
        if (!key) continue;
        const list = entitiesByKey.get(key);
        if (list) list.push({ agent, entity });
        else entitiesByKey.set(key, [{ agent, entity }]);
      }
    }
    for (const session of agent.sessions) {
      const dated = { agent: agent.id, session };
      all.push(dated);
      for (const key of new Set(session.project_focus.map(foldKey))) {
        if (!key) continue;
        const list = sessionsByProject.get(key);
        if (list) list.push(dated);
        else sessionsByProject.set(key, [dated]);
      }
    }
  }
  all.sort(byRecency);
  for (const list of sessionsByProject.values()) list.sort(byDateOnly);
  return { entitiesByKey, sessionsByRecency: all, sessionsByProject };
}
