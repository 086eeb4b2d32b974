/**
 * Writes to the live store (spec §5.10, §8, §9). A commit is validated (commit-input.ts),
 * then, under the library gate, the manifest is re-read from disk, merged or replaced exactly
 * as the Python engine does, serialised (YAML 1.1-safe), checked to read back as written, and
 * written as a new version (history-writer.ts). Nothing is written when anything fails.
 */
import path from 'node:path';
import type { OperationContext } from '../context.js';
import { canSee, rowVisibility, type AccessLevel } from '../trust/access.js';
import { BourdonError } from '../errors.js';
import { withLibraryGate, type GateHandle } from '../fs/gate.js';
import { steadyNow } from './clock.js';
import { currentVersion, historyKeep, latestStamp, readHistory, readLive } from './history.js';
import { writeVersion } from './history-writer.js';
import { parsedLibraryCachePath } from '../store/config.js';
import { pyRepr } from '../store/ids.js';
import { enumError, precheckCommit, type CommitArgs } from './commit-input.js';
import { MANIFEST_SUFFIX, MAX_MANIFEST_BYTES } from '../store/library.js';
import { AGENT_TYPES, isObject, type RawObject } from '../store/manifest.js';
import {
  ENTITY_LIST_FIELDS,
  NOTE_LIST_FIELDS,
  SESSION_LIST_FIELDS,
  entityKey,
  incomingEntityKey,
  mergeRows,
  noteKey,
  sameValue,
  sessionKey,
  sortSessions,
} from './merge.js';
import { parseYaml, yamlErrorReason } from '../store/yaml.js';
import { serialiseManifestAsync, SerialiseRefused } from './serialise.js';

export { serialiseManifest } from './serialise.js';

/** The commit's input shape, for the adapters that build one. */
export type { CommitArgs };

/** What a write is recorded as in the version history. */
export interface WriteOrigin {
  op: string;
  actor: string | null;
  /**
   * The most the writer may read (default private). A writer capped below private neither
   * changes nor detects rows above its ceiling (docs/trust.md, "Writes from capped callers").
   */
  ceiling?: AccessLevel;
}

/** Thrown inside the gate for a refused commit; becomes the `{error, agent_id, mode}` payload. */
class CommitRefused extends Error {}

/** `datetime.now(timezone.utc).isoformat()`: microseconds (omitted when zero) and +00:00. */
function pythonIsoUtc(moment: Date): string {
  const base = moment.toISOString().slice(0, 19);
  const ms = moment.getUTCMilliseconds();
  return ms === 0 ? `${base}+00:00` : `${base}.${String(ms).padStart(3, '0')}000+00:00`;
}

/** A refused commit, as the engine answers it. */
export type CommitFailure = { error: string; agent_id: string; mode: string };

/** What a live commit answers: its counts, the totals the writer may see, and the version it holds. */
export type CommitSummary = {
  agent_id: string;
  path: string;
  mode: string;
} & CommitCounts & {
    total_entities: number;
    total_sessions: number;
    total_notes: number;
    /** The manifest's `last_updated` as written (a string unless the file says otherwise). */
    last_updated: unknown;
    version: number;
  };

export function commitError(args: CommitArgs, message: string): CommitFailure {
  return { error: message, agent_id: args.agent_id, mode: args.mode ?? 'merge' };
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

function parseExisting(data: Buffer, file: string): RawObject {
  if (data.length > MAX_MANIFEST_BYTES) {
    throw new CommitRefused(
      `cannot merge into ${file}: it is ${data.length} bytes; the limit is ${MAX_MANIFEST_BYTES}`,
    );
  }
  let doc: unknown;
  try {
    doc = parseYaml(data.toString('utf8'));
  } catch (error) {
    const reason = yamlErrorReason(error);
    throw new CommitRefused(`cannot merge into ${file}: ${reason}; fix the file or commit with mode 'replace'`);
  }
  if (!isObject(doc)) {
    throw new CommitRefused(
      `cannot merge into ${file}: it is not a YAML mapping; fix the file or commit with mode 'replace'`,
    );
  }
  return doc;
}

/** The manifest a merge starts from: the live file, re-read under the gate. */
export function loadExisting(ctx: OperationContext, agentId: string, livePath: string): RawObject | null {
  const live = readLive(livePath);
  if (live) return parseExisting(live, livePath);
  // The engine also merges into a manifest that declares this id under another file name.
  const other = ctx.store.snapshot().byId.get(agentId);
  if (other && path.resolve(other.path) !== path.resolve(livePath)) {
    const data = readLive(other.path);
    if (data) return parseExisting(data, other.path);
  }
  return null;
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

/** Builds the manifest a commit writes (the engine's commit_l5, plus notes). */
/** Whether a row is one a writer capped at `ceiling` may see (and so merge into or count). */
function visibleAt(ceiling: AccessLevel, row: unknown): boolean {
  return isObject(row) && canSee(ceiling, rowVisibility(row.visibility));
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
  incomingKey = existingKey,
): { added: number; updated: number } {
  if (ceiling === 'private') return mergeRows(rows, incoming, listFields, existingKey, incomingKey);
  const visible = rows.filter((row) => visibleAt(ceiling, row));
  const before = visible.length;
  const counts = mergeRows(visible, incoming, listFields, existingKey, incomingKey);
  for (let index = before; index < visible.length; index += 1) rows.push(visible[index]);
  return counts;
}

/** The rows of `existing` a writer capped at `ceiling` may not see: a capped replace keeps them. */
function hiddenRows(existing: RawObject | null, key: string, ceiling: AccessLevel): unknown[] {
  const rows = existing?.[key];
  return Array.isArray(rows) ? rows.filter((row) => isObject(row) && !visibleAt(ceiling, row)) : [];
}

export function buildManifest(
  args: CommitArgs,
  existing: RawObject | null,
  now: Date,
  file: string,
  ceiling: AccessLevel = 'private',
): BuiltManifest {
  const mode = args.mode ?? 'merge';
  const base = mode === 'merge' ? existing : null;
  const type = resolveType(args, base, mode);
  const stamp = pythonIsoUtc(now);
  let manifest: RawObject;
  if (!base) {
    manifest = {
      spec_version: '0.1',
      agent: { id: args.agent_id, type },
      last_updated: stamp,
      recent_sessions: [],
      known_entities: [],
    };
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
  const payloadCounts = mergeCommitRows({ entities, sessions, notes }, args, ceiling);
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
): CommitCounts {
  const incoming = (list: unknown[] | null | undefined) => (list ?? []) as RawObject[];
  const e = mergeVisibleRows(
    into.entities,
    incoming(rows.entities),
    ENTITY_LIST_FIELDS,
    entityKey,
    ceiling,
    incomingEntityKey,
  );
  const s = mergeVisibleRows(into.sessions, incoming(rows.sessions), SESSION_LIST_FIELDS, sessionKey, ceiling);
  const notesAdded = into.notes
    ? mergeVisibleRows(into.notes, incoming(rows.notes), NOTE_LIST_FIELDS, noteKey, ceiling).added
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
function rowCount(manifest: RawObject, key: string, ceiling: AccessLevel = 'private'): number {
  const value = manifest[key];
  if (!Array.isArray(value)) return 0;
  return ceiling === 'private' ? value.length : value.filter((row) => visibleAt(ceiling, row)).length;
}

/**
 * A live commit; the caller holds the library gate. Returns the write summary or an error
 * payload. Asynchronous only while the manifest is serialised (on a server, off the event loop:
 * serialise.ts); the durable write after it is the same synchronous sequence as ever.
 */
export async function commitLocked(
  ctx: OperationContext,
  args: CommitArgs,
  origin: WriteOrigin,
  gate: GateHandle,
): Promise<CommitSummary | CommitFailure> {
  const problem = precheckCommit(args);
  if (problem) return commitError(args, problem);
  const paths = ctx.store.paths;
  const file = `${args.agent_id}${MANIFEST_SUFFIX}`;
  const livePath = path.join(paths.agents, file);
  try {
    // Of two files declaring one id the last by name is served: a write to an id-named file that
    // sorts before the served one would never be read back. Refused, not hidden.
    const served = ctx.store.snapshot().byId.get(args.agent_id);
    if (served && served.file > file) {
      throw new CommitRefused(
        `agent id ${pyRepr(args.agent_id)} is served from agents/${served.file} (the last file by name that declares it); a write to agents/${file} would be hidden behind it: remove or rename the duplicate first`,
      );
    }
    const mode = args.mode ?? 'merge';
    const ceiling = origin.ceiling ?? 'private';
    // A capped writer's replace needs the live rows too: the ones it cannot see are kept.
    const existing = mode === 'merge' || ceiling !== 'private' ? loadExisting(ctx, args.agent_id, livePath) : null;
    // The merge works in place: keep the rows as they were to tell a write that changes nothing.
    const before = existing ? structuredClone(existing) : null;
    // Stamped no earlier than the agent's last write, should the clock have gone back.
    const now = steadyNow(ctx.now(), [latestStamp(paths, args.agent_id, ctx.files), existing?.last_updated]);
    const { manifest, payloadCounts } = buildManifest(args, existing, now, livePath, ceiling);
    // Totals of what the writer may see: a capped writer learns nothing of hidden rows.
    const totals = {
      total_entities: rowCount(manifest, 'known_entities', ceiling),
      total_sessions: rowCount(manifest, 'recent_sessions', ceiling),
      total_notes: rowCount(manifest, 'notes', ceiling),
    };
    // Identical rows (only the stamp would move): no write and no new version. The payload keeps
    // the engine's counts (the conformance fixtures fix them) and names the version in place.
    const summary = { agent_id: args.agent_id, path: livePath, mode, ...payloadCounts, ...totals };
    const unchanged = before ? unchangedVersion(ctx, args.agent_id, livePath, before, manifest) : null;
    if (unchanged !== null) return { ...summary, last_updated: before!.last_updated, version: unchanged };
    const data = await serialiseManifestAsync(manifest);
    const record = writeVersion({
      paths,
      agentId: args.agent_id,
      livePath,
      data,
      op: origin.op,
      actor: origin.actor,
      now,
      keep: historyKeep(ctx.env, ctx.warn),
      gate,
      writer: ctx.files,
      warn: ctx.warn,
      counts: {
        entities: rowCount(manifest, 'known_entities'),
        sessions: rowCount(manifest, 'recent_sessions'),
        notes: rowCount(manifest, 'notes'),
      },
    });
    // serialiseManifest proved `data` reads back as `manifest`: the store takes it as parsed.
    ctx.store.written(file, data, manifest, parsedLibraryCachePath(paths.root, ctx.env));
    return { ...summary, last_updated: manifest.last_updated, version: record.version };
  } catch (error) {
    if (error instanceof CommitRefused || error instanceof SerialiseRefused || error instanceof BourdonError)
      return commitError(args, error.message);
    throw error;
  }
}

/**
 * The version the live file holds when the merged manifest equals it but for `last_updated`,
 * else null (something changed, or the live file is not a recorded version).
 */
function unchangedVersion(
  ctx: OperationContext,
  agentId: string,
  livePath: string,
  before: RawObject,
  after: RawObject,
): number | null {
  if (!sameValue({ ...before, last_updated: null }, { ...after, last_updated: null })) return null;
  return currentVersion(readHistory(ctx.store.paths, agentId, ctx.files), readLive(livePath));
}

/** A live commit: validated first, then merged and written under the library gate. */
export async function commitLive(
  ctx: OperationContext,
  args: CommitArgs,
  origin: WriteOrigin,
): Promise<CommitSummary | CommitFailure> {
  const problem = precheckCommit(args);
  if (problem) return commitError(args, problem);
  try {
    return await withLibraryGate(ctx.store.paths, (gate) => commitLocked(ctx, args, origin, gate), { warn: ctx.warn });
  } catch (error) {
    // The gate could not be taken (busy, read-only or full library): nothing was written.
    if (error instanceof BourdonError) return commitError(args, error.message);
    throw error;
  }
}
