/**
 * The version-history operations (spec §5.13–15, §8): list an agent's versions, explain what
 * changed between two of them (structured and redacted, never raw bytes), and roll back to
 * one byte for byte. Trusted callers only; rollback is audited before it happens and refused
 * when the audit record cannot be written.
 */
import path from 'node:path';
import type { AccessLevel } from '../trust/access.js';
import { appendAudit, auditRecord, type AuditDecision } from '../trust/audit.js';
import type { OperationContext } from '../context.js';
import { BourdonError, codeOf, describeError, FAILURES, type ErrorCode } from '../errors.js';
import { withLibraryGate } from '../fs/gate.js';
import { currentVersion, historyKeep, readHistory, readLive, type HistoryState } from './history.js';
import { MAX_VERSION_LIMIT, type ExplainInput, type ListVersionsInput, type RollbackInput } from './inputs.js';
import type { RowCounts, VersionRecord } from './version-record.js';
import {
  runCountsJob,
  runExplainJob,
  runRollbackJob,
  type CountsJob,
  type ExplainJob,
  type ManifestDiffResult,
  type RollbackJob,
} from './version-jobs.js';
import { countsOnWriteThread, explainOnWriteThread, rollbackOnWriteThread } from './write-thread.js';
import { pyRepr } from '../python-str.js';
import { invalidAgentIdMessage, isValidAgentId } from '../store/ids.js';
import { MANIFEST_SUFFIX } from '../store/library.js';
import type { FieldChange, ManifestDiff } from './manifest-diff.js';
import { denialPayload } from '../trust/policy.js';
import { coded, type DenialPayload, type Failed, type OneOf } from '../payload.js';
import { readText } from '../trust/redaction.js';
import { plural } from '../store/words.js';
import { rollbackAuditDetail, rollbackNotes, type RollbackNote } from './rollback-notes.js';

/** The diff's row shape, for the commands that render explain_memory_change's answer. */
export type { FieldChange, NoteId, SessionId } from './manifest-diff.js';

export const DEFAULT_VERSION_LIMIT = 20;
export { MAX_VERSION_LIMIT };

const ROLLBACK_OP = 'rollback_agent_memory';

function trustedOnly(ctx: OperationContext, op: string): DenialPayload | null {
  if (ctx.caller.tier === 'trusted') return null;
  return denialPayload(ctx.caller, op, `tier '${ctx.caller.tier}' may not call this tool`);
}

function unknownVersion(version: unknown, agentId: string): string {
  return `unknown version ${pyRepr(version)} for agent ${pyRepr(agentId)}`;
}

function liveBytes(ctx: OperationContext, agentId: string): Buffer | null {
  try {
    return readLive(path.join(ctx.store.paths.agents, `${agentId}${MANIFEST_SUFFIX}`));
  } catch {
    return null;
  }
}

/**
 * A version as listed; a rollback's also says which version it restored and why
 * (`restored_version`, `reason`: rollback-notes.ts), a field the spec's listing lacks
 * (docs/conformance.md, D18).
 */
export interface VersionView extends VersionRecord, Partial<RollbackNote> {
  current: boolean;
}

/** What a caller capped below private sees of a version: counts of its rows, no whole-file facts. */
export interface CappedVersionView extends Omit<VersionRecord, 'sha256' | 'bytes'>, Partial<RollbackNote> {
  sha256: null;
  bytes: null;
  current: boolean;
}

/** Visible counts per archive hash and ceiling: archived bytes never change, so entries never go stale. */
const visibleCountCache = new Map<string, RowCounts>();
const MAX_CACHED_COUNTS = 4096;

/**
 * Rows of each archived version a caller capped at `ceiling` may see (null counts when
 * unreadable), counted on a server's write thread for the versions not cached yet.
 */
async function visibleCounts(
  ctx: OperationContext,
  state: HistoryState,
  records: readonly VersionRecord[],
  ceiling: AccessLevel,
): Promise<RowCounts[]> {
  const keyOf = (record: VersionRecord) => `${record.sha256}:${ceiling}`;
  const known = new Map<VersionRecord, RowCounts>();
  const missing: VersionRecord[] = [];
  for (const record of records) {
    const cached = visibleCountCache.get(keyOf(record));
    if (cached) known.set(record, cached);
    else missing.push(record);
  }
  if (missing.length > 0) {
    const job: CountsJob = { state, versions: missing.map((r) => r.version), ceiling };
    // Injected file operations (tests) cannot cross to a thread: those run in place.
    const counted = (ctx.files ? null : await countsOnWriteThread(job, ctx.warn)) ?? runCountsJob(job, ctx.files);
    if (visibleCountCache.size + missing.length > MAX_CACHED_COUNTS) visibleCountCache.clear();
    missing.forEach((record, index) => {
      visibleCountCache.set(keyOf(record), counted[index]!);
      known.set(record, counted[index]!);
    });
  }
  return records.map((record) => known.get(record)!);
}

export type ListVersionsAnswer = { agent_id: string; versions: VersionView[] | CappedVersionView[] };
type ListVersionsFailure = Failed<{ agent_id: string; versions: [] }>;
export type ListVersionsOutput = OneOf<ListVersionsAnswer | ListVersionsFailure | DenialPayload>;

export async function listMemoryVersions(ctx: OperationContext, args: ListVersionsInput): Promise<ListVersionsOutput> {
  const denied = trustedOnly(ctx, 'list_memory_versions');
  if (denied) return denied;
  if (!isValidAgentId(args.agent_id))
    return { error: invalidAgentIdMessage(args.agent_id), agent_id: args.agent_id, versions: [] };
  const limit =
    args.limit === null || args.limit === undefined || !Number.isFinite(args.limit)
      ? DEFAULT_VERSION_LIMIT
      : Math.min(MAX_VERSION_LIMIT, Math.max(1, Math.trunc(args.limit)));
  let state: HistoryState;
  try {
    state = readHistory(ctx.store.paths, args.agent_id, ctx.files);
  } catch (error) {
    if (error instanceof BourdonError)
      return coded<ListVersionsFailure>({ error: error.message, agent_id: args.agent_id, versions: [] }, error.code);
    throw error;
  }
  const current = currentVersion(state, liveBytes(ctx, args.agent_id));
  const newest = [...state.records].reverse().slice(0, limit);
  const ceiling = ctx.caller.ceiling;
  if (ceiling !== 'private') {
    // A whole-file hash or size, or a count of every row, would tell a capped caller that
    // private rows exist or changed: it gets counts of what it may see, and no hash or size.
    let counts: RowCounts[];
    try {
      counts = await visibleCounts(ctx, state, newest, ceiling);
    } catch (error) {
      return coded<ListVersionsFailure>(
        { error: describeError(error), agent_id: args.agent_id, versions: [] },
        codeOf(error),
      );
    }
    // The version a rollback restored, but not the reason: that is the operator's audit log.
    const restores = await rollbackNotes(null, args.agent_id, state.records, newest);
    const capped: CappedVersionView[] = newest.map((record, index) => ({
      ...record,
      ...restores.get(record.version),
      sha256: null,
      bytes: null,
      ...counts[index]!,
      current: record.version === current,
    }));
    return { agent_id: args.agent_id, versions: capped };
  }
  const restores = await rollbackNotes(ctx.config?.audit ?? null, args.agent_id, state.records, newest);
  const versions: VersionView[] = newest.map((record) => ({
    ...record,
    ...restores.get(record.version),
    current: record.version === current,
  }));
  return { agent_id: args.agent_id, versions };
}

// ---------------------------------------------------------------------------------------
// explain_memory_change

export type ExplainAnswer = {
  agent_id: string;
  version: number;
  against: number | null;
  agent_changes: FieldChange[];
  entities: ManifestDiff['entities'];
  sessions: ManifestDiff['sessions'];
  notes: ManifestDiff['notes'];
  summary: string;
};
export type ExplainOutput = OneOf<
  ExplainAnswer | Failed<{ agent_id: string; version: number; against: number | null }> | DenialPayload
>;

export async function explainMemoryChange(ctx: OperationContext, args: ExplainInput): Promise<ExplainOutput> {
  const denied = trustedOnly(ctx, 'explain_memory_change');
  if (denied) return denied;
  const against = args.against ?? null;
  const fail = (message: string, code: ErrorCode = 'invalid_input') =>
    coded({ error: message, agent_id: args.agent_id, version: args.version, against }, code);
  if (!isValidAgentId(args.agent_id)) return fail(invalidAgentIdMessage(args.agent_id));
  let state: HistoryState;
  try {
    state = readHistory(ctx.store.paths, args.agent_id, ctx.files);
  } catch (error) {
    if (error instanceof BourdonError) return fail(error.message, error.code);
    throw error;
  }
  const has = (version: unknown) => state.records.some((record) => record.version === version);
  if (!has(args.version)) return fail(unknownVersion(args.version, args.agent_id), 'not_found');
  if (against !== null && !has(against)) return fail(unknownVersion(against, args.agent_id), 'not_found');
  const base = against ?? [...state.records].reverse().find((record) => record.version < args.version)?.version ?? null;
  const job: ExplainJob = { state, version: args.version, base, ceiling: ctx.caller.ceiling };
  let diff: ManifestDiffResult;
  try {
    // Injected file operations (tests) cannot cross to a thread: those run in place.
    diff = (ctx.files ? null : await explainOnWriteThread(job, ctx.warn)) ?? runExplainJob(job, ctx.files);
  } catch (error) {
    return fail(describeError(error), codeOf(error));
  }
  const summaryParts = [
    `version ${args.version} against ${base === null ? 'nothing (first version)' : `version ${base}`}:`,
    `entities ${diff.counts.entities},`,
    `sessions ${diff.counts.sessions},`,
    `notes ${diff.counts.notes}`,
  ];
  if (diff.agent_changes.length)
    summaryParts.push(
      `; ${plural(diff.agent_changes.length, 'other change')} (${diff.agent_changes.map((c) => c.field).join(', ')})`,
    );
  return {
    agent_id: args.agent_id,
    version: args.version,
    against: base,
    agent_changes: diff.agent_changes,
    entities: diff.entities,
    sessions: diff.sessions,
    notes: diff.notes,
    summary: summaryParts.join(' ').replace(' ;', ';'),
  };
}

// ---------------------------------------------------------------------------------------
// rollback_agent_memory

export type RollbackAnswer = {
  agent_id: string;
  restored_version: number;
  version: number;
  sha256: string;
  reason: string | null;
};
export type RollbackOutput = OneOf<
  RollbackAnswer | Failed<{ agent_id: string; version: number; reason: string | null }> | DenialPayload
>;

/**
 * A rollback keeps its own audit trail, whichever adapter asked (MCP, the CLI, the page): an
 * `allow` line before it changes anything (no line, no rollback), and a `deny` or `fail` line
 * when it is refused or does not happen, even after its `allow` (busy, a lost lock, a full disk).
 */
export async function rollbackAgentMemory(ctx: OperationContext, args: RollbackInput): Promise<RollbackOutput> {
  const auditPath = ctx.config?.audit ?? null;
  const trail = (decision: AuditDecision, detail: string) => {
    if (!auditPath) return;
    try {
      appendAudit(auditPath, auditRecord(ctx.caller.agent_id, ROLLBACK_OP, args.agent_id, decision, detail));
    } catch {
      // The answer says what went wrong; a refusal the trail cannot record is still a refusal.
    }
  };
  const denied = trustedOnly(ctx, ROLLBACK_OP);
  if (denied) {
    trail('deny', denied.error);
    return denied;
  }
  const reason = args.reason === null || args.reason === undefined ? null : readText(args.reason);
  const refuse = (message: string, code: ErrorCode) =>
    coded({ error: message, agent_id: args.agent_id, version: args.version, reason }, code);
  const fail = (message: string, code: ErrorCode = 'invalid_input') => {
    trail(FAILURES[code].audit, `${code}: ${message}`);
    return refuse(message, code);
  };
  if (!isValidAgentId(args.agent_id)) return fail(invalidAgentIdMessage(args.agent_id));
  // Restoring whole bytes would change private rows too, which a capped caller may neither
  // change nor detect: refused for every agent alike, whatever its rows (docs/trust.md).
  if (ctx.caller.ceiling !== 'private') {
    return fail(
      `rollback restores private rows too; it needs a caller that may read them (the operator, or a member on this machine)`,
      'access_denied',
    );
  }
  const known = (state: HistoryState) => state.records.some((record) => record.version === args.version);
  try {
    if (!known(readHistory(ctx.store.paths, args.agent_id, ctx.files)))
      return fail(unknownVersion(args.version, args.agent_id), 'not_found');
  } catch (error) {
    if (error instanceof BourdonError) return fail(error.message, error.code);
    throw error;
  }

  // Audited before it happens; no audit record, no rollback (and no line to say so).
  if (!auditPath) return refuse('rollback refused: no audit log is configured', 'unavailable');
  try {
    const detail = rollbackAuditDetail(args.version, reason);
    appendAudit(auditPath, auditRecord(ctx.caller.agent_id, ROLLBACK_OP, args.agent_id, true, detail));
  } catch (error) {
    return refuse(`rollback refused: the audit record could not be written (${describeError(error)})`, 'unavailable');
  }

  const file = `${args.agent_id}${MANIFEST_SUFFIX}`;
  const job: RollbackJob = {
    paths: ctx.store.paths,
    agentId: args.agent_id,
    version: args.version,
    actor: ctx.caller.agent_id,
    now: ctx.now(),
    keep: historyKeep(ctx.env, ctx.warn),
  };
  return withLibraryGate(
    ctx.store.paths,
    async (gate) => {
      // Reads meanwhile answer from the manifest as it was, until the store adopts the restored one.
      const release = ctx.store.holdWhileWriting(file);
      try {
        // Injected file operations (tests) cannot cross to a thread: those run in place.
        const onThread = ctx.files ? null : await rollbackOnWriteThread(job, gate.held, ctx.warn);
        const result = onThread ?? runRollbackJob(job, { gate, writer: ctx.files, warn: ctx.warn });
        if (result.kind === 'failed') return fail(result.message, 'unavailable');
        if (result.kind === 'unknown') return fail(unknownVersion(args.version, args.agent_id), 'not_found');
        if (result.kind === 'written') {
          if (onThread?.kind === 'written' && onThread.record) ctx.store.adopt(file, onThread.data, onThread.record);
          else ctx.store.invalidate(file);
        }
        return {
          agent_id: args.agent_id,
          restored_version: args.version,
          version: result.version,
          sha256: result.sha256,
          reason,
        };
      } finally {
        release();
      }
    },
    { warn: ctx.warn },
  ).catch((error: unknown) => {
    // The gate could not be taken (busy, read-only or full library): nothing was written.
    if (error instanceof BourdonError) return fail(error.message, error.code);
    throw error;
  });
}
