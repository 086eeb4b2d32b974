/**
 * The manifest's shape as the engine writes it: keys in its order, a null or empty-list value
 * left out, the federation filter on entities, and the `last_updated` stamp. Used by the cursor
 * and copilot-cli participants; its key lists also order the claude-code and mcp-memory rows (rows.ts).
 */

export const SPEC_VERSION = '0.1';

/** The private tags most participants' policies name, in the engine's order. */
export const PRIVATE_TAGS: readonly string[] = ['personal', 'financial', 'credential', 'health', 'family', 'legal'];

/** Top-level key order. */
export const MANIFEST_KEYS = [
  'spec_version',
  'agent',
  'last_updated',
  'capabilities',
  'recent_sessions',
  'known_entities',
  'visibility_policy',
] as const;
export const AGENT_KEYS = ['id', 'type', 'instance', 'spec_version_compat', 'role_narrative'] as const;
export const SESSION_KEYS = ['date', 'cwd', 'project_focus', 'key_actions', 'files_touched', 'visibility'] as const;
export const POLICY_KEYS = ['default', 'private_tags', 'team_tags'] as const;
export const ENTITY_KEYS = [
  'name',
  'type',
  'aliases',
  'summary',
  'last_touched',
  'tags',
  'visibility',
  'valid_from',
  'valid_to',
] as const;

/** An entity as a participant writes it: the L5 model's (core/store/model.ts). */
export type { WrittenEntity as Entity } from '../../core/store/model.js';

/** `source` with only `keys`, in that order, leaving out undefined, null and empty-list values. */
export function shaped(source: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const key of keys) {
    const value = source[key];
    if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) continue;
    result[key] = value;
  }
  return result;
}

/**
 * The engine's federation filter: an entity carrying one of the policy's private tags is dropped,
 * and so is one whose own visibility is private.
 */
export function federationFilter<T extends Record<string, unknown>>(
  entities: readonly T[],
  privateTags: readonly string[],
): T[] {
  const privateSet = new Set(privateTags);
  return entities.filter((entity) => {
    const tags = Array.isArray(entity.tags) ? (entity.tags as unknown[]) : [];
    if (tags.some((tag) => typeof tag === 'string' && privateSet.has(tag))) return false;
    return entity.visibility !== 'private';
  });
}

/** `now` in UTC, whole seconds, `+00:00` (Python's `isoformat(timespec="seconds")`). */
export function isoSeconds(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

/** Today's calendar date in UTC. */
export function utcDate(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/** The private tags most of the engine's participants write: `personal, financial, credential, health, family, legal`. */
export const PERSONAL_PRIVATE_TAGS: readonly string[] = [
  'personal',
  'financial',
  'credential',
  'health',
  'family',
  'legal',
];

/** What a participant says about itself and what it read, before it is shaped. */
export interface ManifestParts {
  readonly agent: {
    readonly id: string;
    readonly type: string;
    readonly instance?: string;
    readonly spec_version_compat?: string;
    readonly role_narrative: string;
  };
  readonly now: Date;
  readonly capabilities: readonly string[];
  readonly sessions: readonly Record<string, unknown>[];
  readonly entities: readonly Record<string, unknown>[];
  /** undefined: no visibility_policy is written (cascade). */
  readonly policy?: {
    readonly default: string;
    readonly private_tags?: readonly string[];
    readonly team_tags?: readonly string[];
  };
}

/** A manifest in the engine's key order, every row and block shaped, empty values left out. */
export function manifestOf(parts: ManifestParts): Record<string, unknown> {
  return shaped(
    {
      spec_version: SPEC_VERSION,
      agent: shaped(parts.agent, AGENT_KEYS),
      last_updated: isoSeconds(parts.now),
      capabilities: parts.capabilities,
      recent_sessions: parts.sessions.map((session) => shaped(session, SESSION_KEYS)),
      known_entities: parts.entities.map((entity) => shaped(entity, ENTITY_KEYS)),
      visibility_policy: parts.policy ? shaped(parts.policy, POLICY_KEYS) : undefined,
    },
    MANIFEST_KEYS,
  );
}
