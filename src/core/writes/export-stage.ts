/**
 * An export staged for review instead of written live, as the engine stages a quarantined
 * member's (openclaw): `<library>/staging/<agent-id>/<agent-id>.l5.yaml`, where `bourdon staging
 * list` shows it and `bourdon staging promote <agent-id>` merges it through the commit path.
 * Reached through `writeExport` (export-write.ts) with `stage`.
 */
import path from 'node:path';
import type { OperationContext } from '../context.js';
import { BourdonError, describeError } from '../errors.js';
import { MANIFEST_SUFFIX } from '../store/library.js';
import type { RawObject } from '../store/manifest.js';
import { withLibraryGate } from '../fs/gate.js';
import { isTempOf, sweepAtomicTemps, writeDurable } from '../fs/atomic.js';
import { readLive } from './history.js';
import { sameValue } from './merge.js';
import { readStagedDoc, stagedPath } from './staged-file.js';
import {
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

/** What staging an export did. */
export interface StagedExportResult {
  /** The staged file; the live manifest when it already holds every row of the export (`live`). */
  path: string;
  /** false when the staged file, or the live manifest, already held exactly this (nothing written, nothing audited). */
  written: boolean;
  /** true when nothing was staged because the live manifest already holds every row of the export. */
  live: boolean;
  /** Rows another writer had staged for the agent (a member's quarantined commits), kept on top. */
  kept: ExportKept;
}

/**
 * Whether `live` already holds every entity and session of `exported`, each exactly: promoting
 * `exported` would change no row (the stamp, capabilities and policy are not rows).
 */
function holdsEveryRow(live: RawObject | null, exported: RawObject): boolean {
  if (!live) return false;
  return ['known_entities', 'recent_sessions', 'notes'].every((key) => {
    const held = rows(live, key);
    return rows(exported, key).every((row) => held.some((other) => sameValue(row, other)));
  });
}

/**
 * Stages an export for review. Under the gate, audited first, written atomically. A new export
 * replaces the previous staged one (the same source, read afresh), but rows the member itself
 * staged meanwhile (commit_to_federation, same file) are applied again on top, as a live export
 * keeps other writers' rows: a staged row is never lost unreviewed. With nothing staged, an
 * export whose every row the live manifest already holds (the last one promoted, say) stages
 * nothing: promoting it would change no row, so there is nothing to review.
 */
export async function stageExport(ctx: OperationContext, request: ExportWriteInput): Promise<StagedExportResult> {
  const paths = ctx.store.paths;
  const stagedFile = stagedPath(ctx.store, request.agentId, request.agentId);
  const recordPath = exportRecordPath(paths.root, request.agentId, true);
  return withLibraryGate(
    paths,
    () => {
      let staged: RawObject | null;
      try {
        staged = readStagedDoc(stagedFile);
      } catch (error) {
        throw new BourdonError(
          `${describeError(error)}; nothing was staged (review it with \`bourdon staging list\`, or reject it with \`bourdon staging reject ${request.agentId}\`)`,
          'source_unreadable',
        );
      }
      const combined = combineWithLive(request.manifest, staged, previousExport(recordPath));
      const kept = combined.kept;
      // Nothing of another writer's: the staged file is the export itself, in its own order.
      const manifest =
        kept.entities + kept.sessions + kept.notes > 0 ? combined.manifest : structuredClone(request.manifest);
      const { data, own } = serialisedExport(manifest, request);
      if (staged && sameButStamp(staged, manifest)) {
        keepRecord(ctx, recordPath, own);
        return { path: stagedFile, written: false, live: false, kept };
      }
      const livePath = path.join(paths.agents, `${request.agentId}${MANIFEST_SUFFIX}`);
      if (!staged && holdsEveryRow(parsed(readLive(livePath)), manifest)) {
        keepRecord(ctx, recordPath, own);
        return { path: livePath, written: false, live: true, kept };
      }
      auditExport(request, STAGE_OP);
      sweepAtomicTemps(path.dirname(stagedFile), (name) => isTempOf(name, path.basename(stagedFile), true));
      writeDurable(stagedFile, data, { writer: ctx.files });
      keepRecordAfter(ctx, recordPath, own);
      return { path: stagedFile, written: true, live: false, kept };
    },
    { warn: ctx.warn },
  );
}
