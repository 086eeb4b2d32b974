/**
 * An export into the library, one call (`writeExport`): through the library's write path, under
 * the write gate, audited first, written as a new version of `agents/<agent-id>.l5.yaml`
 * (history-writer.ts), so `bourdon rollback` undoes it — or staged for review
 * (export-stage.ts) for an agent the engine stages. A participant only reads its agent's files
 * and hands the finished manifest here (docs/participants.md).
 *
 * How an export combines with live commits to the same agent: the export rebuilds the rows it
 * owns from the native store; every row of the live manifest that is not exactly a row of the
 * participant's previous export was added or changed by another writer (commit_to_federation,
 * `bourdon commit`), and is applied again on top of the fresh export with the commit's merge
 * rules (entities by lower-cased name, sessions by (date, cwd), list fields unioned). Notes are
 * kept as they are. A commit is therefore never lost; a row the native store no longer has
 * disappears only when it is exactly what the previous export wrote. What the previous export
 * wrote (its own rows, before other writers' were applied) is kept beside the library, in
 * `.exports/<agent-id>.l5.yaml`, written under the same gate (export-rows.ts).
 */
import path from 'node:path';
import type { OperationContext } from '../context.js';
import { BourdonError, FAILURES, type ErrorCode } from '../errors.js';
import { MANIFEST_SUFFIX } from '../store/library.js';
import { appendAudit, auditRecord } from '../trust/audit.js';
import { withLibraryGate } from '../fs/gate.js';
import { currentVersion, historyKeep, readHistory, readLive } from './history.js';
import { writeVersion } from './history-writer.js';
import {
  EXPORT_OP,
  STAGE_OP,
  auditExport,
  combineWithLive,
  exportRecordPath,
  keepRecord,
  keepRecordAfter,
  parsed,
  previousExport,
  rows,
  sameButStamp,
  serialisedExport,
  type ExportKept,
  type ExportWriteInput,
} from './export-rows.js';
import { stageExport } from './export-stage.js';

export type { ExportKept, ExportWriteInput } from './export-rows.js';

/** What an export into the library did. */
export interface ExportWriteResult {
  /** The file written or held: the live manifest, or the staged file. */
  path: string;
  /** The version the live file holds after a live export; null when staged. */
  version: number | null;
  /** false when the library (or staging) already held exactly this: nothing written, nothing audited. */
  written: boolean;
  /**
   * true when the rows are in staging for review, written now or already there; false for a live
   * write, and for a staged export whose rows the live manifest already holds (nothing staged).
   */
  staged: boolean;
  /** Rows another writer had added or changed, applied again on top of the export. */
  kept: ExportKept;
}

/** Writes an export into the library: staged for review when `request.stage`, else live as a new version. */
export async function writeExport(ctx: OperationContext, request: ExportWriteInput): Promise<ExportWriteResult> {
  if (!request.stage) return writeLive(ctx, request);
  const staged = await stageExport(ctx, request);
  return { path: staged.path, version: null, written: staged.written, staged: !staged.live, kept: staged.kept };
}

/**
 * The audit line of an export into the library that failed (a refused handshake, an unreachable
 * instance, a refused write), as every audited write leaves one (docs/errors.md): its decision
 * the code's, its detail the code and `message` (the caller's, with its secrets masked). A log
 * that cannot be written leaves the failure's own line to say so.
 */
export function auditExportFailure(
  request: Pick<ExportWriteInput, 'agentId' | 'actor' | 'auditPath' | 'stage'>,
  code: ErrorCode,
  message: string,
): void {
  try {
    appendAudit(
      request.auditPath,
      auditRecord(
        request.actor,
        request.stage ? STAGE_OP : EXPORT_OP,
        request.agentId,
        FAILURES[code].audit,
        `${code}: ${message}`,
      ),
    );
  } catch {
    // The export's own failure is what the user is told.
  }
}

/** Writes an export as a new version of the agent's manifest, under the gate, audited first. */
async function writeLive(ctx: OperationContext, request: ExportWriteInput): Promise<ExportWriteResult> {
  const paths = ctx.store.paths;
  const file = `${request.agentId}${MANIFEST_SUFFIX}`;
  const livePath = path.join(paths.agents, file);
  const served = ctx.store.snapshot().byId.get(request.agentId);
  if (served && served.file > file) {
    throw new BourdonError(
      `agent id ${request.agentId} is served from agents/${served.file}; an export to agents/${file} would be hidden behind it: remove or rename the duplicate first`,
      'conflict',
    );
  }
  const recordPath = exportRecordPath(paths.root, request.agentId);
  return withLibraryGate(
    paths,
    (gate) => {
      const liveBytes = readLive(livePath);
      const live = parsed(liveBytes);
      if (liveBytes && !live)
        ctx.warn(`${livePath} could not be read as a manifest; the export replaces it (its bytes stay in history)`);
      const { manifest, kept } = combineWithLive(request.manifest, live, previousExport(recordPath));
      const held = currentVersion(readHistory(paths, request.agentId, ctx.files), liveBytes);
      const { data, own } = serialisedExport(manifest, request);
      // Nothing new since the last write (only the stamp would move): no version, no audit line.
      if (live && held !== null && sameButStamp(live, manifest)) {
        keepRecord(ctx, recordPath, own);
        return { path: livePath, version: held, written: false, staged: false, kept };
      }
      auditExport(request, EXPORT_OP);
      const record = writeVersion({
        paths,
        agentId: request.agentId,
        livePath,
        data,
        op: EXPORT_OP,
        actor: request.actor,
        now: ctx.now(),
        keep: historyKeep(ctx.env, ctx.warn),
        gate,
        writer: ctx.files,
        warn: ctx.warn,
        counts: {
          entities: rows(manifest, 'known_entities').length,
          sessions: rows(manifest, 'recent_sessions').length,
          notes: rows(manifest, 'notes').length,
        },
      });
      ctx.store.invalidate(file);
      keepRecordAfter(ctx, recordPath, own);
      return { path: livePath, version: record.version, written: true, staged: false, kept };
    },
    { warn: ctx.warn },
  );
}
