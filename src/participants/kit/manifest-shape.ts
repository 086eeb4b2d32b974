/**
 * The manifest a participant returns, typed on the rows core's writer checks (core/store/model.ts
 * `writtenManifest`: `WrittenEntity`, `WrittenSession`), and the one way to assemble it
 * (`assembleManifest`): keys in the engine's order, a null or empty-list value left out, the
 * `last_updated` stamp, the federation filter on entities, the private tags most policies name.
 * A row's type is its named keys only (the schemas' loose index signature removed), so a
 * misspelt key does not compile.
 */
import type { WrittenEntity, WrittenManifest, WrittenSession } from '../../core/store/model.js';
import { lastUpdated, type StampZone } from './stamp.js';

export const SPEC_VERSION = '0.1';

/** The private tags most participants' policies name, in the engine's order (cursor and cascade name their own). */
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

/** A type's named keys, without the index signature a loose schema adds. */
type Named<T> = { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };

/**
 * Core's written row with the values it takes as text or a number or true/false (what cascade
 * passes through raw: `PassedRow`) narrowed to text, as every other source writes them.
 */
type AsText<T, K extends keyof T> = Omit<T, K> & {
  [P in K]?: NonNullable<T[P]> extends readonly unknown[] ? string[] : string;
};
/** An entity as a participant writes it (spec §2.3): core's `WrittenEntity`, its keys only, text values. */
export type Entity = AsText<Named<WrittenEntity>, 'type' | 'summary' | 'aliases'>;
/** A session as a participant writes it: core's `WrittenSession`, its keys only, text values. */
export type Session = AsText<Named<WrittenSession>, 'cwd' | 'project_focus' | 'key_actions' | 'files_touched'>;
/** The manifest's `agent` block. */
export type Agent = Named<WrittenManifest['agent']>;
/** A block whose lists a participant may hold as constants (`readonly string[]`). */
type ReadonlyLists<T> = {
  readonly [K in keyof T]: T[K] extends string[] | undefined ? readonly string[] | Exclude<T[K], string[]> : T[K];
};
/** The manifest's `visibility_policy` block. */
export type Policy = ReadonlyLists<Named<NonNullable<WrittenManifest['visibility_policy']>>>;
/**
 * A row whose values pass through as the source holds them (cascade's front matter): its keys
 * are the row's, its values are whatever the source held; the runner fits them to the model
 * (core/store/lenient-reader.ts), leaving out a value that does not fit.
 */
export type PassedRow<T> = { readonly [K in keyof T]?: unknown };

/** A manifest as a participant returns it, in the engine's key order, before any access filter. */
export type Manifest = {
  readonly spec_version: string;
  readonly agent: Agent;
  readonly last_updated: string;
  readonly capabilities?: readonly string[];
  readonly recent_sessions?: readonly (Session | PassedRow<Session>)[];
  readonly known_entities?: readonly (Entity | PassedRow<Entity>)[];
  readonly visibility_policy?: Policy;
};

/** Whether a value is left out of a row: undefined, null or an empty list. */
function absent(value: unknown): boolean {
  return value === undefined || value === null || (Array.isArray(value) && value.length === 0);
}

/**
 * `row` with only `keys`, in that order, leaving out undefined, null and empty-list values: the
 * one key-ordering rule of every block a manifest holds.
 */
export function ordered<T extends object>(row: T, keys: readonly (keyof T & string)[]): T {
  const fields = row as Record<string, unknown>;
  const result: Record<string, unknown> = {};
  for (const key of keys) {
    const value = fields[key];
    if (!absent(value)) result[key] = value;
  }
  return result as T;
}

/**
 * The engine's federation filter: an entity carrying one of the policy's private tags is dropped,
 * and so is one whose own visibility is private.
 */
export function federationFilter<T extends PassedRow<Entity>>(
  entities: readonly T[],
  privateTags: readonly string[],
): T[] {
  const privateSet = new Set(privateTags);
  return entities.filter((entity) => {
    const tags: readonly unknown[] = Array.isArray(entity.tags) ? entity.tags : [];
    if (tags.some((tag) => typeof tag === 'string' && privateSet.has(tag))) return false;
    return entity.visibility !== 'private';
  });
}

/** What a participant says about itself and what it read, before it is assembled. */
export interface ManifestParts {
  readonly agent: Agent;
  /** The export's clock: `last_updated`. */
  readonly now: Date;
  /** How the stamp writes its zone: `+00:00` unless the engine's exporter writes `Z` (openclaw). */
  readonly zone?: StampZone;
  readonly capabilities?: readonly string[];
  /** undefined: no `recent_sessions` (mcp-memory reads none). */
  readonly sessions?: readonly (Session | PassedRow<Session>)[];
  readonly entities?: readonly (Entity | PassedRow<Entity>)[];
  /** undefined: no `visibility_policy` is written (cascade). */
  readonly policy?: Policy;
  /**
   * `leave-out` (the default, as most of the engine's exporters): an empty `capabilities`,
   * `recent_sessions` or `known_entities` is not written. `write`: a list that was read is written
   * even when empty (`recent_sessions: []`), as the engine's claude-code, mcp-memory,
   * claude-desktop and openclaw exporters do.
   */
  readonly emptyLists?: 'leave-out' | 'write';
}

/** A manifest in the engine's key order, every row and block ordered, empty values left out. */
export function assembleManifest(parts: ManifestParts): Manifest {
  const manifest: Manifest = {
    spec_version: SPEC_VERSION,
    agent: ordered(parts.agent, AGENT_KEYS),
    last_updated: lastUpdated(parts.now, parts.zone),
    capabilities: parts.capabilities && [...parts.capabilities],
    recent_sessions: parts.sessions?.map((session) => ordered(session, SESSION_KEYS)),
    known_entities: parts.entities?.map((entity) => ordered(entity, ENTITY_KEYS)),
    visibility_policy: parts.policy && ordered(parts.policy, POLICY_KEYS),
  };
  if (parts.emptyLists !== 'write') return ordered(manifest, MANIFEST_KEYS);
  const result: Record<string, unknown> = {};
  for (const key of MANIFEST_KEYS) if (manifest[key] !== undefined) result[key] = manifest[key];
  return result as Manifest;
}
