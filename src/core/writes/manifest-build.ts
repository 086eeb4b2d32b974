/**
 * The manifest a live commit writes, built exactly as the Python engine's commit_l5 builds it
 * (plus notes): the live manifest parsed (or refused with the reason), merged or replaced row by
 * row as the writer's ceiling allows, stamped. Pure: no file is written here, so it runs on a
 * server's write thread as well as in place (commit-steps.ts).
 */
import { canSee, policyOf, rowLevel, type AccessLevel, type VisibilityPolicy } from '../trust/access.js';
import { pyRepr } from '../python-str.js';
import { enumError, type CommitArgs } from './commit-input.js';
import { MAX_MANIFEST_BYTES } from '../store/library.js';
import { AGENT_TYPES, isObject, type RawObject } from '../store/manifest.js';
import {
  ENTITY_LIST_FIELDS,
  NOTE_LIST_FIELDS,
  SESSION_LIST_FIELDS,
  entityKey,
  incomingEntityKey,
  mergeRows,
  noteKey,
  sessionKey,
  sortSessions,
} from './merge.js';
import { NotYamlMapping, parseYamlMapping } from '../store/yaml.js';

/** Thrown inside the gate for a refused commit; becomes the `{error, agent_id, mode}` payload. */
export class CommitRefused extends Error {}

/**
 * `datetime.now(timezone.utc).isoformat()`: six digits of microseconds (omitted when zero) and
 * +00:00. `microseconds` are those within the Date's millisecond (store/dates.ts `preciseNow`).
 */
function pythonIsoUtc(moment: Date, microseconds = 0): string {
  const base = moment.toISOString().slice(0, 19);
  const fraction = moment.getUTCMilliseconds() * 1000 + microseconds;
  return fraction === 0 ? `${base}+00:00` : `${base}.${String(fraction).padStart(6, '0')}+00:00`;
}

/** The agent type a commit ends up with: the given one, else the existing one; must be in the enum. */
function resolveType(args: CommitArgs, existing: RawObject | null, mode: string): string {
  const existingAgent = existing && isObject(existing.agent) ? existing.agent : null;
  const existingType = existingAgent ? existingAgent.type : undefined;
  const resolved = args.agent_type ? args.agent_type : existingType;
  if (resolved === null || resolved === undefined) {
    throw new CommitRefused(
      `agent_type is required for a new manifest (agent_id=${pyRepr(args.agent_id)}, mode=${pyRepr(mode)})`,
    );
  }
  if (typeof resolved !== 'string' || !(AGENT_TYPES as readonly string[]).includes(resolved)) {
    throw new CommitRefused(enumError(resolved));
  }
  return resolved;
}

export function parseExisting(data: Buffer, file: string): RawObject {
  if (data.length > MAX_MANIFEST_BYTES) {
    throw new CommitRefused(
      `cannot merge into ${file}: it is ${data.length} bytes; the limit is ${MAX_MANIFEST_BYTES}`,
    );
  }
  let doc: RawObject | null = null;
  try {
    doc = parseYamlMapping(data);
  } catch (error) {
    if (error instanceof NotYamlMapping && error.syntax)
      throw new CommitRefused(
        `cannot merge into ${file}: ${error.message}; fix the file or commit with mode 'replace'`,
      );
  }
  if (!doc) {
    throw new CommitRefused(
      `cannot merge into ${file}: it is not a YAML mapping; fix the file or commit with mode 'replace'`,
    );
  }
  return doc;
}

/** A row list to merge into: kept in place; absent or null becomes []; anything else refuses. */
function rowList(manifest: RawObject, key: string, file: string): unknown[] {
  const value = manifest[key];
  if (Array.isArray(value)) return value;
  if (value === null || value === undefined) {
    manifest[key] = [];
    return manifest[key] as unknown[];
  }
  throw new CommitRefused(`cannot merge into ${file}: ${key} is not a list`);
}

/** The rows a commit added and updated, as its summary counts them. */
export type CommitCounts = {
  entities_added: number;
  entities_updated: number;
  sessions_added: number;
  sessions_updated: number;
  notes_added: number;
};

export interface BuiltManifest {
  manifest: RawObject;
  payloadCounts: CommitCounts;
}

/**
 * Whether a row is one a writer capped at `ceiling` may see (and so merge into or count): at
 * the level its manifest's visibility_policy gives it (D19), as every read sees it.
 */
function visibleAt(ceiling: AccessLevel, row: unknown, policy: VisibilityPolicy | null): boolean {
  return isObject(row) && canSee(ceiling, rowLevel(row, policy));
}

/**
 * mergeRows over the rows the writer may see only: a hidden row is never matched, so it is
 * neither changed nor counted as updated, and an incoming row with its key lands as a row of
 * its own. Rows the writer adds are appended to the full list.
 */
function mergeVisibleRows(
  rows: unknown[],
  incoming: readonly RawObject[],
  listFields: readonly string[],
  existingKey: (row: RawObject) => string | null,
  ceiling: AccessLevel,
  policy: VisibilityPolicy | null,
  incomingKey = existingKey,
): { added: number; updated: number } {
  if (ceiling === 'private') return mergeRows(rows, incoming, listFields, existingKey, incomingKey);
  const visible = rows.filter((row) => visibleAt(ceiling, row, policy));
  const before = visible.length;
  const counts = mergeRows(visible, incoming, listFields, existingKey, incomingKey);
  for (let index = before; index < visible.length; index += 1) rows.push(visible[index]);
  return counts;
}

/** The rows of `existing` a writer capped at `ceiling` may not see: a capped replace keeps them. */
function hiddenRows(existing: RawObject | null, key: string, ceiling: AccessLevel): unknown[] {
  const rows = existing?.[key];
  const policy = policyOf(existing);
  return Array.isArray(rows) ? rows.filter((row) => isObject(row) && !visibleAt(ceiling, row, policy)) : [];
}

/** Builds the manifest a commit writes (the engine's commit_l5, plus notes). */
export function buildManifest(
  args: CommitArgs,
  existing: RawObject | null,
  now: Date,
  file: string,
  ceiling: AccessLevel = 'private',
  microseconds = 0,
): BuiltManifest {
  const mode = args.mode ?? 'merge';
  const base = mode === 'merge' ? existing : null;
  const type = resolveType(args, base, mode);
  const stamp = pythonIsoUtc(now, microseconds);
  let manifest: RawObject;
  if (!base) {
    manifest = {
      spec_version: '0.1',
      agent: { id: args.agent_id, type },
      last_updated: stamp,
      recent_sessions: [],
      known_entities: [],
    };
    // A replace keeps the manifest's visibility_policy (D19): a commit cannot set one, and the
    // rows a capped writer's replace keeps (hiddenRows) stay at the level the policy gave them.
    if (existing && existing.visibility_policy !== undefined) manifest.visibility_policy = existing.visibility_policy;
  } else {
    manifest = base;
    if (!isObject(manifest.agent)) manifest.agent = {};
    const agent = manifest.agent as RawObject;
    agent.id = args.agent_id;
    agent.type = type;
    if (!('spec_version' in manifest)) manifest.spec_version = '0.1';
    manifest.last_updated = stamp;
    if (!('known_entities' in manifest)) manifest.known_entities = [];
    if (!('recent_sessions' in manifest)) manifest.recent_sessions = [];
  }
  const agent = manifest.agent as RawObject;
  if (args.instance !== null && args.instance !== undefined) agent.instance = args.instance;
  if (args.role_narrative !== null && args.role_narrative !== undefined) agent.role_narrative = args.role_narrative;

  const entities = rowList(manifest, 'known_entities', file);
  const sessions = rowList(manifest, 'recent_sessions', file);
  const incomingNotes = (args.notes ?? []) as RawObject[];
  // A capped writer's replace replaces what it can see: the rows it cannot see are kept.
  const keptEntities = mode === 'replace' ? hiddenRows(existing, 'known_entities', ceiling) : [];
  const keptSessions = mode === 'replace' ? hiddenRows(existing, 'recent_sessions', ceiling) : [];
  const keptNotes = mode === 'replace' ? hiddenRows(existing, 'notes', ceiling) : [];
  for (const row of keptEntities) entities.push(row);
  for (const row of keptSessions) sessions.push(row);
  let notes: unknown[] | null = null;
  if (incomingNotes.length > 0 || keptNotes.length > 0 || 'notes' in manifest) {
    if (!('notes' in manifest)) manifest.notes = [];
    notes = rowList(manifest, 'notes', file);
    for (const row of keptNotes) notes.push(row);
  }
  const payloadCounts = mergeCommitRows({ entities, sessions, notes }, args, ceiling, policyOf(manifest));
  sortSessions(sessions);
  return { manifest, payloadCounts };
}

/**
 * Merges a commit's rows into the lists they land in, in place: entities by lower-cased name,
 * sessions by (date, cwd), notes by (date, text), list fields unioned; notes only when there is
 * a notes list. The live write (buildManifest) and staging (stageCommit) both merge with it.
 */
export function mergeCommitRows(
  into: { entities: unknown[]; sessions: unknown[]; notes: unknown[] | null },
  rows: Pick<CommitArgs, 'entities' | 'sessions' | 'notes'>,
  ceiling: AccessLevel = 'private',
  policy: VisibilityPolicy | null = null,
): CommitCounts {
  const incoming = (list: unknown[] | null | undefined) => (list ?? []) as RawObject[];
  const e = mergeVisibleRows(
    into.entities,
    incoming(rows.entities),
    ENTITY_LIST_FIELDS,
    entityKey,
    ceiling,
    policy,
    incomingEntityKey,
  );
  const s = mergeVisibleRows(into.sessions, incoming(rows.sessions), SESSION_LIST_FIELDS, sessionKey, ceiling, policy);
  const notesAdded = into.notes
    ? mergeVisibleRows(into.notes, incoming(rows.notes), NOTE_LIST_FIELDS, noteKey, ceiling, policy).added
    : 0;
  return {
    entities_added: e.added,
    entities_updated: e.updated,
    sessions_added: s.added,
    sessions_updated: s.updated,
    notes_added: notesAdded,
  };
}

/** Rows of one list; with a ceiling, only those a caller capped there may see. */
export function rowCount(manifest: RawObject, key: string, ceiling: AccessLevel = 'private'): number {
  const value = manifest[key];
  if (!Array.isArray(value)) return 0;
  if (ceiling === 'private') return value.length;
  const policy = policyOf(manifest);
  return value.filter((row) => visibleAt(ceiling, row, policy)).length;
}
