/**
 * Staging (spec §2, §4): a quarantined member's commit never touches the live store. It lands
 * in `<library>/staging/<caller>/<agent_id>.l5.yaml`, merged with that caller's earlier staged
 * writes, invisible to every query until an operator promotes it (through the normal commit
 * path, so it gets a version, op `promote`) or rejects it.
 *
 * Where this differs from the Python engine's staging (federation_staging.py), it is to lose
 * nothing: rows merge with the live rules (list fields unioned, nulls never overwrite) instead
 * of a plain dict update; a staged file that does not parse is refused, not replaced; and
 * `mode: "replace"` is refused, since promotion always merges.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isTempOf, sweepAtomicTemps, writeDurable } from '../fs/atomic.js';
import { steadyNow } from './clock.js';
import { AccessDeniedError, BourdonError, codeOf, describeError } from '../errors.js';
import type { OperationContext } from '../context.js';
import { utcSeconds } from '../store/dates.js';
import { plural } from '../store/words.js';
import { withLibraryGate } from '../fs/gate.js';
import { pyRepr } from '../python-str.js';
import { invalidAgentIdMessage, isValidAgentId } from '../store/ids.js';
import { MANIFEST_SUFFIX, type LibraryStore } from '../store/library.js';
import { isObject, type RawObject } from '../store/manifest.js';
import { appendAudit, auditRecord } from '../trust/audit.js';
import { denialPayload } from '../trust/policy.js';
import { failed, type DenialPayload, type OneOf } from '../payload.js';
import { isDirectory, listOf, parseStaged, pruneEmptyDir, readStagedDoc, stagedPath } from './staged-file.js';
import { commitCapError, precheckCommit, type CommitArgs } from './commit-input.js';
import { validateStaged } from './staged-input.js';
import {
  buildManifest,
  commitError,
  commitLocked,
  loadExisting,
  mergeCommitRows,
  serialiseManifest,
  type CommitCounts,
  type CommitFailure,
  type CommitSummary,
} from './writes.js';
import { diffManifests, type ManifestDiff } from './manifest-diff.js';
import { digestOf, readLiveForDigest, readStagedBytes, stagedChangedMessage } from './staged-digest.js';
import { redactSecretsIn } from '../trust/redaction.js';

/**
 * Staged rows come from quarantined members, who never read above team: promoting them (and
 * previewing a promotion) must not merge into, or relabel, a private row either.
 */
const STAGED_ROWS_CEILING = 'team';

export function stagingNote(agentId: string): string {
  return `quarantined write staged for review; an operator must run \`bourdon staging promote ${agentId}\` before it propagates to the federation`;
}

export interface StagedWrite {
  caller: string;
  agent_id: string;
  path: string;
  staged_at: string;
  age_days: number;
  entities: number;
  sessions: number;
  notes: number;
  /** Why the file could not be read, or null. */
  error: string | null;
}

interface PromotedWrite {
  caller: string;
  path: string;
  /** The commit summary of the promotion (with its `version`). */
  result: CommitSummary;
}

export interface PromoteResult {
  agent_id: string;
  promoted: PromotedWrite[];
}

export interface RejectResult {
  agent_id: string;
  rejected: number;
  paths: string[];
}

/**
 * A quarantined caller's commit: merged into its staged file for this agent id, never into the
 * live store. Only the caller's own namespace; answers `{staged, agent_id, path, note}`.
 */
/** What a staged write answers. */
export type StagedCommit = { staged: true; agent_id: string; path: string; note: string };

export async function stageCommit(
  ctx: OperationContext,
  args: CommitArgs,
): Promise<OneOf<StagedCommit | CommitFailure | DenialPayload>> {
  const caller = ctx.caller;
  if (args.agent_id !== caller.agent_id) {
    return denialPayload(
      caller,
      'commit_to_federation',
      `quarantined members may only write their own namespace (${pyRepr(caller.agent_id)})`,
    );
  }
  const problem = validateStaged(args);
  if (problem) return commitError(args, problem);
  const dest = stagedPath(ctx.store, caller.agent_id, args.agent_id);
  return withLibraryGate(
    ctx.store.paths,
    (): StagedCommit | CommitFailure => {
      let existing: RawObject;
      try {
        existing = readStagedDoc(dest) ?? {};
      } catch (error) {
        return commitError(
          args,
          `${(error as Error).message}; an operator must reject it before more writes are staged`,
        );
      }
      const agent: RawObject = isObject(existing.agent) ? { ...existing.agent } : {};
      if (!('id' in agent)) agent.id = args.agent_id;
      if (args.agent_type && !agent.type) agent.type = args.agent_type;
      if (args.instance) agent.instance = args.instance;
      if (args.role_narrative) agent.role_narrative = args.role_narrative;
      const entities = listOf(existing, 'known_entities');
      const sessions = listOf(existing, 'recent_sessions');
      const hasNotes = (args.notes ?? []).length > 0 || Array.isArray(existing.notes);
      const notes = hasNotes ? listOf(existing, 'notes') : null;
      // The live write's merge (rows staged by members are merged as a commit merges them).
      mergeCommitRows({ entities, sessions, notes }, args);
      const manifest: RawObject = {
        spec_version: existing.spec_version || '0.1',
        agent,
        last_updated: utcSeconds(steadyNow(ctx.now(), [existing.last_updated])),
        known_entities: entities,
        recent_sessions: sessions,
      };
      if (notes) manifest.notes = notes;
      // The staged file is promoted as one commit: it keeps within a commit's caps, which also
      // bounds the work every later staged write for it can cost.
      const capProblem = commitCapError(
        { entities, sessions, notes: manifest.notes as unknown[] | undefined },
        'in a staged file; an operator must promote or reject it before more is staged',
      );
      if (capProblem) return commitError(args, capProblem);
      let data: Buffer;
      try {
        data = serialiseManifest(manifest);
      } catch (error) {
        return commitError(args, (error as Error).message);
      }
      sweepAtomicTemps(path.dirname(dest), (name) => isTempOf(name, path.basename(dest), true));
      try {
        writeDurable(dest, data, { writer: ctx.files });
      } catch (error) {
        return commitError(
          args,
          `cannot write ${dest}: ${describeError(error)}; nothing was staged, the staged file is unchanged`,
          codeOf(error),
        );
      }
      return { staged: true, agent_id: args.agent_id, path: dest, note: stagingNote(args.agent_id) };
    },
    { warn: ctx.warn },
  ).catch((error: unknown) => {
    // The gate could not be taken (busy, read-only or full library): nothing was staged.
    if (error instanceof BourdonError) return commitError(args, error.message, error.code);
    throw error;
  });
}

/** Every staged write, sorted by path (caller, then agent id). Never locks. */
export function listStaged(store: LibraryStore, now: Date = new Date()): StagedWrite[] {
  const root = store.paths.staging;
  let callers: string[];
  try {
    callers = fs.readdirSync(root).sort();
  } catch {
    return [];
  }
  const out: StagedWrite[] = [];
  for (const caller of callers) {
    const dir = path.join(root, caller);
    if (!isValidAgentId(caller) || !isDirectory(dir)) continue;
    let files: string[];
    try {
      files = fs.readdirSync(dir).sort();
    } catch {
      continue;
    }
    for (const file of files) {
      if (!file.endsWith(MANIFEST_SUFFIX)) continue;
      const agentId = file.slice(0, -MANIFEST_SUFFIX.length);
      const full = path.join(dir, file);
      if (!isValidAgentId(agentId)) continue;
      let stat: fs.Stats;
      try {
        stat = fs.lstatSync(full);
      } catch {
        continue;
      }
      if (!stat.isFile()) continue;
      let doc: RawObject = {};
      let error: string | null = null;
      try {
        doc = readStagedDoc(full) ?? {};
      } catch (problem) {
        error = (problem as Error).message;
      }
      out.push({
        caller,
        agent_id: agentId,
        path: full,
        staged_at: utcSeconds(stat.mtime),
        age_days: Math.round(((now.getTime() - stat.mtimeMs) / 86_400_000) * 10) / 10,
        entities: listOf(doc, 'known_entities').length,
        sessions: listOf(doc, 'recent_sessions').length,
        notes: listOf(doc, 'notes').length,
        error,
      });
    }
  }
  return out;
}

function checkAgentId(agentId: string): void {
  if (!isValidAgentId(agentId)) throw new BourdonError(invalidAgentIdMessage(agentId), 'invalid_input');
}

/**
 * The commit a staged file becomes when it is promoted: its rows, merged. A promotion is a
 * commit: the secret values in what it brings are redacted, as commit_to_federation redacts
 * them (a staged file edited by hand, or staged before a rule existed, still never carries one
 * live). The review runs the same, so it shows exactly what promoting writes.
 */
function stagedCommitArgs(doc: RawObject, agentId: string): CommitArgs {
  const agent = isObject(doc.agent) ? doc.agent : {};
  return {
    agent_id: agentId,
    agent_type: (agent.type as string | undefined) ?? null,
    instance: redactSecretsIn((agent.instance as string | undefined) ?? null),
    role_narrative: redactSecretsIn((agent.role_narrative as string | undefined) ?? null),
    entities: redactSecretsIn(listOf(doc, 'known_entities')),
    sessions: redactSecretsIn(listOf(doc, 'recent_sessions')),
    notes: redactSecretsIn(listOf(doc, 'notes')),
    mode: 'merge',
  };
}

export interface PromotionPreview {
  agent_id: string;
  staged: StagedWrite[];
  /** What promoting every staged write now would change in the live manifest: every value whole (a renderer escapes it). */
  diff: ManifestDiff | null;
  /** Why the promotion would be refused, or null. */
  error: string | null;
  /**
   * SHA-256 over the staged files this preview read (caller, agent and bytes of each, in path
   * order) and the live manifest's bytes it merged them into: what the diff shows follows from
   * exactly these, so a promotion given it writes what was shown — nothing staged after, and no
   * merge into a live manifest that changed meanwhile. Null when nothing is staged.
   */
  digest: string | null;
}

/**
 * What `promoteStaged` would do now, without writing: the staged rows merged into the live
 * manifest by the same merge a promotion runs, diffed against the live manifest as
 * explain_memory_change diffs versions. Trusted callers only; never locks.
 */
export function previewPromotion(ctx: OperationContext, agentId: string): PromotionPreview {
  if (ctx.caller.tier !== 'trusted') throw new AccessDeniedError('only trusted callers may review staged writes');
  checkAgentId(agentId);
  const staged = listStaged(ctx.store, ctx.now()).filter((item) => item.agent_id === agentId);
  const files = readStagedBytes(staged);
  const livePath = path.join(ctx.store.paths.agents, `${agentId}${MANIFEST_SUFFIX}`);
  const digest = digestOf(files, readLiveForDigest(livePath));
  const fail = (error: string): PromotionPreview => ({ agent_id: agentId, staged, diff: null, error, digest });
  if (staged.length === 0) return fail(`no staged writes for agent ${pyRepr(agentId)}`);
  let live: RawObject | null;
  try {
    live = loadExisting(ctx, agentId, livePath);
  } catch (error) {
    return fail(describeError(error));
  }
  let merged: RawObject | null = live === null ? null : structuredClone(live);
  for (const { item, data } of files) {
    try {
      const doc = parseStaged(item.path, data) ?? {};
      const args = stagedCommitArgs(doc, agentId);
      const problem = precheckCommit(args);
      if (problem) return fail(`cannot promote ${item.path}: ${problem}`);
      merged = buildManifest(args, merged, ctx.now(), livePath, STAGED_ROWS_CEILING).manifest;
      // The stamp shown is the staged one, not this moment's: a preview reads the same each time.
      merged.last_updated = typeof doc.last_updated === 'string' ? doc.last_updated : item.staged_at;
    } catch (error) {
      return fail(`cannot promote ${item.path}: ${describeError(error)}`);
    }
  }
  const diff = diffManifests({ doc: live, unreadable: false }, { doc: merged, unreadable: false }, ctx.caller.ceiling, {
    whole: true,
  });
  return { agent_id: agentId, staged, diff, error: null, digest };
}

export interface PromoteOptions {
  /**
   * The digest of the preview the operator confirmed: the promotion is refused (code
   * `conflict`, nothing written) unless the staged files still hash to it, and promotes the
   * very bytes it hashed.
   */
  digest?: string;
}

/**
 * Merges every staged write for `agentId` (from any caller) into the live store through the
 * normal commit path, each as a new version (op `promote`, actor the member who staged it),
 * then deletes the staged file. Trusted callers only. Stops at the first file that cannot be
 * promoted (that file stays staged; the ones before it are promoted).
 */
export async function promoteStaged(
  ctx: OperationContext,
  agentId: string,
  options: PromoteOptions = {},
): Promise<PromoteResult> {
  if (ctx.caller.tier !== 'trusted') throw new AccessDeniedError('only trusted callers may promote staged writes');
  checkAgentId(agentId);
  return withLibraryGate(
    ctx.store.paths,
    async (gate) => {
      const staged = listStaged(ctx.store, ctx.now()).filter((item) => item.agent_id === agentId);
      if (staged.length === 0) throw new BourdonError(`no staged writes for agent ${pyRepr(agentId)}`, 'not_found');
      // Read once under the gate (no staged write can land meanwhile): the bytes hashed are the bytes promoted.
      const files = readStagedBytes(staged);
      const livePath = path.join(ctx.store.paths.agents, `${agentId}${MANIFEST_SUFFIX}`);
      if (options.digest !== undefined && digestOf(files, readLiveForDigest(livePath)) !== options.digest)
        throw new BourdonError(stagedChangedMessage(agentId), 'conflict');
      const members = [...new Set(files.map(({ item }) => item.caller))].join(', ');
      auditReview(
        ctx.config?.audit,
        ctx.caller.agent_id,
        'promote',
        agentId,
        `${files.length} staged write(s) from ${members}`,
      );
      const promoted: PromotedWrite[] = [];
      for (const { item, data } of files) {
        const args = stagedCommitArgs(parseStaged(item.path, data) ?? {}, agentId);
        const result = await commitLocked(
          ctx,
          args,
          { op: 'promote', actor: item.caller, ceiling: STAGED_ROWS_CEILING },
          gate,
        );
        if (failed(result)) throw new BourdonError(`cannot promote ${item.path}: ${result.error}`, 'conflict');
        fs.unlinkSync(item.path);
        pruneEmptyDir(path.dirname(item.path));
        promoted.push({ caller: item.caller, path: item.path, result });
      }
      return { agent_id: agentId, promoted };
    },
    { warn: ctx.warn },
  );
}

/** Who rejects, for the audit log (the page and the CLI pass the operator and their audit path). */
export interface RejectOptions {
  auditPath?: string;
  actor?: string;
  /**
   * The digest of the staged files the operator reviewed: the rejection is refused (code
   * `conflict`, nothing deleted) when they no longer hash to it, so writes staged after the
   * review are never deleted unread.
   */
  digest?: string;
}

/** Deletes every staged write for `agentId`. */
export async function rejectStaged(
  store: LibraryStore,
  agentId: string,
  options: RejectOptions = {},
): Promise<RejectResult> {
  checkAgentId(agentId);
  return withLibraryGate(store.paths, () => {
    const staged = listStaged(store).filter((item) => item.agent_id === agentId);
    if (staged.length === 0) throw new BourdonError(`no staged writes for agent ${pyRepr(agentId)}`, 'not_found');
    const livePath = path.join(store.paths.agents, `${agentId}${MANIFEST_SUFFIX}`);
    if (
      options.digest !== undefined &&
      digestOf(readStagedBytes(staged), readLiveForDigest(livePath)) !== options.digest
    )
      throw new BourdonError(stagedChangedMessage(agentId, 'reject'), 'conflict');
    const members = [...new Set(staged.map((item) => item.caller))].join(', ');
    auditReview(
      options.auditPath,
      options.actor ?? 'operator',
      'reject',
      agentId,
      `${staged.length} staged write(s) from ${members}`,
    );
    for (const item of staged) {
      fs.unlinkSync(item.path);
      pruneEmptyDir(path.dirname(item.path));
    }
    return { agent_id: agentId, rejected: staged.length, paths: staged.map((item) => item.path) };
  });
}

/**
 * A promotion or rejection is audited before it happens (op `promote` or `reject`, the namespace
 * the agent, the detail how many writes from which members), as a rollback is: when an audit log
 * is configured and the record cannot be written, nothing changes. Without one (a library API
 * caller that configured none) there is nothing to write to.
 */
function auditReview(
  auditPath: string | undefined,
  actor: string,
  op: 'promote' | 'reject',
  agentId: string,
  detail: string,
): void {
  if (!auditPath) return;
  try {
    appendAudit(auditPath, auditRecord(actor, op, agentId, true, detail));
  } catch (error) {
    throw new BourdonError(
      `${op} refused: the audit record could not be written (${describeError(error)}); nothing was changed`,
      'unavailable',
    );
  }
}

function promotedCount(result: PromoteResult, key: keyof CommitCounts): number {
  return result.promoted.reduce((sum, item) => sum + item.result[key], 0);
}

/** The engine's one-line summary of a promotion, plus the version it became (the CLI and the page print it). */
export function promotionSummary(result: PromoteResult): string {
  const versions = result.promoted.map((item) => item.result.version).filter((v) => v !== undefined && v !== null);
  const line =
    `promoted ${result.agent_id}: +${plural(promotedCount(result, 'entities_added'), 'entity', 'entities')} (~${promotedCount(result, 'entities_updated')} updated), ` +
    `+${plural(promotedCount(result, 'sessions_added'), 'session')} (~${promotedCount(result, 'sessions_updated')} updated), +${plural(promotedCount(result, 'notes_added'), 'note')}`;
  const from = result.promoted.length > 1 ? ` from ${result.promoted.length} members` : '';
  return versions.length ? `${line}${from}; now version ${versions[versions.length - 1]}` : `${line}${from}`;
}
