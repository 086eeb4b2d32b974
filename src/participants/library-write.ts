/**
 * An export into the library, through the library's write path: under the write gate, audited,
 * written as a new version of `agents/<agent-id>.l5.yaml` (history-writer.ts), so
 * `bourdon rollback` undoes it.
 *
 * How an export combines with live commits to the same agent (docs/participants.md): the
 * export rebuilds the rows it owns from the native store; every row of the live manifest that
 * is not exactly a row of the participant's previous export was added or changed by another
 * writer (commit_to_federation, `bourdon commit`), and is applied again on top of the fresh
 * export with the commit's merge rules (entities by lower-cased name, sessions by (date, cwd),
 * list fields unioned). Notes are kept as they are. A commit is therefore never lost; a row the
 * native store no longer has disappears only when it is exactly what the previous export wrote.
 * What the previous export wrote (its own rows, before other writers' were applied) is kept
 * beside the library, in `.exports/<agent-id>.l5.yaml`, written under the same gate.
 */
import path from 'node:path';
import type { OperationContext } from '../core/context.js';
import { BourdonError, describeError } from '../core/errors.js';
import { MANIFEST_SUFFIX } from '../core/store/library.js';
import { isObject, type RawObject } from '../core/store/manifest.js';
import { parseYamlMapping } from '../core/store/yaml.js';
import { appendAudit, auditRecord } from '../core/trust/audit.js';
import { withLibraryGate } from '../core/fs/gate.js';
import { isTempOf, sweepAtomicTemps, writeDurable } from '../core/fs/atomic.js';
import { currentVersion, historyKeep, readHistory, readLive } from '../core/writes/history.js';
import { writeVersion } from '../core/writes/history-writer.js';
import { readStagedDoc, stagedPath } from '../core/writes/staged-file.js';
import {
  ENTITY_LIST_FIELDS,
  SESSION_LIST_FIELDS,
  entityKey,
  incomingEntityKey,
  mergeRows,
  sameValue,
  sessionKey,
  sortSessions,
} from '../core/writes/merge.js';
import { serialiseManifest } from '../core/writes/writes.js';
import type { ManifestData } from './kit/participant.js';

/** The history op of an export; the actor names the participant. */
export const EXPORT_OP = 'export';
/** The audit op of an export staged for review (stageExportInLibrary). */
export const STAGE_OP = 'stage';

export interface LibraryExportResult {
  path: string;
  /** The version the live file holds after the export. */
  version: number | null;
  /** false when the manifest was already what the export would write (no new version). */
  written: boolean;
  /** Rows another writer had added or changed, applied again on top of the export. */
  kept: { entities: number; sessions: number; notes: number };
}

function rows(doc: RawObject | null, key: string): RawObject[] {
  const value = doc?.[key];
  return Array.isArray(value) ? value.filter(isObject) : [];
}

function parsed(data: Buffer | null): RawObject | null {
  if (!data) return null;
  try {
    return parseYamlMapping(data);
  } catch {
    return null;
  }
}

/** Where the rows of an agent's last export are kept (the participant's own, before any merge). */
function exportRecordPath(libraryRoot: string, agentId: string): string {
  return path.join(libraryRoot, EXPORTS_DIR, `${agentId}${MANIFEST_SUFFIX}`);
}

/** The same record for an export that is staged instead of written live (stageExportInLibrary). */
function stagedRecordPath(libraryRoot: string, agentId: string): string {
  return path.join(libraryRoot, EXPORTS_DIR, 'staged', `${agentId}${MANIFEST_SUFFIX}`);
}

const EXPORTS_DIR = '.exports';

/** The rows the participant's previous export wrote (at `record`), or null when none is known (all live rows are kept). */
function previousExport(record: string): RawObject | null {
  try {
    return parsed(readLive(record));
  } catch {
    return null;
  }
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

/** The live rows that are not exactly rows of the previous export: another writer's. */
function othersRows(live: RawObject | null, previous: RawObject | null, key: string): RawObject[] {
  const exported = rows(previous, key);
  return rows(live, key).filter((row) => !exported.some((mine) => sameValue(mine, row)));
}

/** The manifest to write: the export, with other writers' rows applied again on top. */
function combineWithLive(
  exported: ManifestData,
  live: RawObject | null,
  previous: RawObject | null,
): { manifest: RawObject; kept: LibraryExportResult['kept'] } {
  const manifest = structuredClone(exported) as RawObject;
  const entities = rows(manifest, 'known_entities');
  const sessions = rows(manifest, 'recent_sessions');
  const keptEntities = othersRows(live, previous, 'known_entities');
  const keptSessions = othersRows(live, previous, 'recent_sessions');
  mergeRows(entities, structuredClone(keptEntities), ENTITY_LIST_FIELDS, entityKey, incomingEntityKey);
  mergeRows(sessions, structuredClone(keptSessions), SESSION_LIST_FIELDS, sessionKey);
  sortSessions(sessions);
  manifest.known_entities = entities;
  manifest.recent_sessions = sessions;
  const notes = rows(live, 'notes');
  if (notes.length) manifest.notes = structuredClone(notes);
  return { manifest, kept: { entities: keptEntities.length, sessions: keptSessions.length, notes: notes.length } };
}

export interface LibraryExportRequest {
  agentId: string;
  /** Who the history and audit name as the writer (`participant:claude-code`). */
  actor: string;
  manifest: ManifestData;
  /** `manifest` serialised and checked (`serialiseManifest`), when the caller has it: not made again. */
  bytes?: Buffer;
  auditPath: string;
  /** One line for the audit record (counts). */
  detail: string;
}

/** Writes an export as a new version of the agent's manifest, under the gate, audited first. */
export async function writeExportToLibrary(
  ctx: OperationContext,
  request: LibraryExportRequest,
): Promise<LibraryExportResult> {
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
  return withLibraryGate(
    paths,
    (gate) => {
      const liveBytes = readLive(livePath);
      const live = parsed(liveBytes);
      if (liveBytes && !live)
        ctx.warn(`${livePath} could not be read as a manifest; the export replaces it (its bytes stay in history)`);
      const previous = previousExport(exportRecordPath(paths.root, request.agentId));
      const { manifest, kept } = combineWithLive(request.manifest, live, previous);
      const state = readHistory(paths, request.agentId, ctx.files);
      const held = currentVersion(state, liveBytes);
      let data: Buffer;
      let own: Buffer;
      try {
        data = serialiseManifest(manifest);
        own = request.bytes ?? serialiseManifest(structuredClone(request.manifest) as RawObject);
      } catch (error) {
        throw new BourdonError(`${describeError(error)}`, 'source_unreadable');
      }
      const recordPath = exportRecordPath(paths.root, request.agentId);
      const keepRecord = () => {
        const before = readLive(recordPath);
        if (!before || !before.equals(own)) writeDurable(recordPath, own, { writer: ctx.files, mode: 0o600 });
      };
      // Nothing new since the last write (only the stamp would move): no version, no audit line.
      if (live && held !== null && sameValue({ ...live, last_updated: null }, { ...manifest, last_updated: null })) {
        keepRecord();
        return { path: livePath, version: held, written: false, kept };
      }
      try {
        appendAudit(request.auditPath, auditRecord(request.actor, EXPORT_OP, request.agentId, true, request.detail));
      } catch (error) {
        throw new BourdonError(
          `export refused: the audit record could not be written (${describeError(error)})`,
          'unavailable',
        );
      }
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
      try {
        keepRecord();
      } catch (error) {
        // The version is written; without the record the next export keeps every live row.
        ctx.warn(`the export's own rows could not be recorded in ${recordPath} (${describeError(error)})`);
      }
      return { path: livePath, version: record.version, written: true, kept };
    },
    { warn: ctx.warn },
  );
}

/** What staging an export did. */
export interface StagedExportResult {
  /** The staged file; the live manifest when it already holds every row of the export (`live`). */
  path: string;
  /** false when the staged file, or the live manifest, already held exactly this (nothing written, nothing audited). */
  written: boolean;
  /** true when nothing was staged because the live manifest already holds every row of the export. */
  live: boolean;
  /** Rows another writer had staged for the agent (a member's quarantined commits), kept on top. */
  kept: LibraryExportResult['kept'];
}

/**
 * Stages an export for review instead of writing it live, as the engine stages a quarantined
 * member's (openclaw): `<library>/staging/<agent-id>/<agent-id>.l5.yaml`, where `bourdon
 * staging list` shows it and `bourdon staging promote <agent-id>` merges it through the commit
 * path. Under the gate, audited first, written atomically. A new export replaces the previous
 * staged one (the same source, read afresh), but rows the member itself staged meanwhile
 * (commit_to_federation, same file) are applied again on top, as a live export keeps other
 * writers' rows: a staged row is never lost unreviewed. With nothing staged, an export whose
 * every row the live manifest already holds (the last one promoted, say) stages nothing:
 * promoting it would change no row, so there is nothing to review.
 */
export async function stageExportInLibrary(
  ctx: OperationContext,
  request: LibraryExportRequest,
): Promise<StagedExportResult> {
  const paths = ctx.store.paths;
  const stagedFile = stagedPath(ctx.store, request.agentId, request.agentId);
  const recordPath = stagedRecordPath(paths.root, request.agentId);
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
        kept.entities + kept.sessions + kept.notes > 0
          ? combined.manifest
          : (structuredClone(request.manifest) as RawObject);
      let data: Buffer;
      let own: Buffer;
      try {
        data = serialiseManifest(manifest);
        own = request.bytes ?? serialiseManifest(structuredClone(request.manifest) as RawObject);
      } catch (error) {
        throw new BourdonError(describeError(error), 'source_unreadable');
      }
      const keepRecord = () => {
        const before = readLive(recordPath);
        if (!before || !before.equals(own)) writeDurable(recordPath, own, { writer: ctx.files, mode: 0o600 });
      };
      if (staged && sameValue({ ...staged, last_updated: null }, { ...manifest, last_updated: null })) {
        keepRecord();
        return { path: stagedFile, written: false, live: false, kept };
      }
      const livePath = path.join(paths.agents, `${request.agentId}${MANIFEST_SUFFIX}`);
      if (!staged && holdsEveryRow(parsed(readLive(livePath)), manifest)) {
        keepRecord();
        return { path: livePath, written: false, live: true, kept };
      }
      try {
        appendAudit(request.auditPath, auditRecord(request.actor, STAGE_OP, request.agentId, true, request.detail));
      } catch (error) {
        throw new BourdonError(
          `export refused: the audit record could not be written (${describeError(error)})`,
          'unavailable',
        );
      }
      sweepAtomicTemps(path.dirname(stagedFile), (name) => isTempOf(name, path.basename(stagedFile), true));
      writeDurable(stagedFile, data, { writer: ctx.files });
      try {
        keepRecord();
      } catch (error) {
        ctx.warn(`the export's own rows could not be recorded in ${recordPath} (${describeError(error)})`);
      }
      return { path: stagedFile, written: true, live: false, kept };
    },
    { warn: ctx.warn },
  );
}
