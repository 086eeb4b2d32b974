/**
 * The rows read answers list across agents, below both of their users: the operations that
 * build them from local manifests (operations/queries.ts) and federation, which merges peers'
 * rows into them.
 */

/** Entities of one name across agents: who lists it, its types, each agent's summary, its tags. */
export interface EntityMatch {
  name: string;
  agents: string[];
  types: string[];
  summaries: Record<string, string>;
  tags: string[];
}

/** A session as answers list it: its agent, day, folder and focus (actions and files unless summarised). */
export interface SessionRef {
  agent: string;
  date: string;
  cwd: string | null;
  project_focus: string[];
  key_actions?: string[];
  files_touched?: string[];
}
