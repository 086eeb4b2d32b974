/**
 * What an export's write into the library (export-write.ts) and its staging (export-stage.ts)
 * share: the request and its counts of kept rows, the record of what the previous export wrote
 * (`.exports/<agent-id>.l5.yaml`, the participant's own rows before other writers' were applied),
 * how the export combines with the rows other writers added (the commit's merge rules), and the
 * audit line that comes first — no audit line, no write.
 */
import path from 'node:path';
import type { OperationContext } from '../context.js';
import { BourdonError, describeError } from '../errors.js';
import { MANIFEST_SUFFIX } from '../store/library.js';
import { isObject, type RawObject } from '../store/manifest.js';
import { parseYamlMapping } from '../store/yaml.js';
import { appendAudit, auditRecord } from '../trust/audit.js';
import { writeDurable } from '../fs/atomic.js';
import { readLive } from './history.js';
import {
  ENTITY_LIST_FIELDS,
  SESSION_LIST_FIELDS,
  entityKey,
  incomingEntityKey,
  mergeRows,
  sameValue,
  sessionKey,
  sortSessions,
} from './merge.js';
import { serialiseManifest } from './writes.js';

/** The history and audit op of an export written live; the actor names the participant. */
export const EXPORT_OP = 'export';
/** The audit op of an export staged for review (export-stage.ts). */
export const STAGE_OP = 'stage';

/** An export to write into the library: what a participant exported, finished (filtered, redacted) by its caller. */
export interface ExportWriteInput {
  agentId: string;
  /** Who the history and audit name as the writer (`participant:claude-code`). */
  actor: string;
  /** The manifest document. */
  manifest: RawObject;
  /** `manifest` serialised and checked (`serialiseManifest`), when the caller has it: not made again. */
  bytes?: Buffer;
  /** The audit log the write's line is appended to. */
  auditPath: string;
  /** One line for the audit record (counts). */
  detail: string;
  /**
   * Stage it for review (`staging/<agent-id>/`) instead of writing it live, as the engine stages
   * a quarantined member's export (openclaw).
   */
  stage?: boolean;
}

/** Rows another writer had added or changed, applied again on top of the export. */
export interface ExportKept {
  entities: number;
  sessions: number;
  notes: number;
}

const EXPORTS_DIR = '.exports';

export function rows(doc: RawObject | null, key: string): RawObject[] {
  const value = doc?.[key];
  return Array.isArray(value) ? value.filter(isObject) : [];
}

export function parsed(data: Buffer | null): RawObject | null {
  if (!data) return null;
  try {
    return parseYamlMapping(data);
  } catch {
    return null;
  }
}

/** Where the rows of an agent's last export are kept (live: `.exports/`, staged: `.exports/staged/`). */
export function exportRecordPath(libraryRoot: string, agentId: string, staged = false): string {
  const dir = staged ? path.join(EXPORTS_DIR, 'staged') : EXPORTS_DIR;
  return path.join(libraryRoot, dir, `${agentId}${MANIFEST_SUFFIX}`);
}

/** The rows the participant's previous export wrote (at `record`), or null when none is known (all live rows are kept). */
export function previousExport(record: string): RawObject | null {
  try {
    return parsed(readLive(record));
  } catch {
    return null;
  }
}

/** The live rows that are not exactly rows of the previous export: another writer's. */
function othersRows(live: RawObject | null, previous: RawObject | null, key: string): RawObject[] {
  const exported = rows(previous, key);
  return rows(live, key).filter((row) => !exported.some((mine) => sameValue(mine, row)));
}

/** The manifest to write: the export, with other writers' rows applied again on top. */
export function combineWithLive(
  exported: RawObject,
  live: RawObject | null,
  previous: RawObject | null,
): { manifest: RawObject; kept: ExportKept } {
  const manifest = structuredClone(exported);
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

/** Whether two manifests differ in more than `last_updated` (only the stamp would move). */
export function sameButStamp(a: RawObject, b: RawObject): boolean {
  return sameValue({ ...a, last_updated: null }, { ...b, last_updated: null });
}

/** `manifest` serialised (`data`) and the export's own rows (`own`, the request's bytes when given); a refusal is the source's. */
export function serialisedExport(manifest: RawObject, request: ExportWriteInput): { data: Buffer; own: Buffer } {
  try {
    return {
      data: serialiseManifest(manifest),
      own: request.bytes ?? serialiseManifest(structuredClone(request.manifest)),
    };
  } catch (error) {
    throw new BourdonError(describeError(error), 'source_unreadable');
  }
}

/** Writes the export's own rows to its record (at `recordPath`) unless it already holds them. */
export function keepRecord(ctx: OperationContext, recordPath: string, own: Buffer): void {
  const before = readLive(recordPath);
  if (!before || !before.equals(own)) writeDurable(recordPath, own, { writer: ctx.files, mode: 0o600 });
}

/** keepRecord after the write: a record that cannot be written is a warning (the next export keeps every live row). */
export function keepRecordAfter(ctx: OperationContext, recordPath: string, own: Buffer): void {
  try {
    keepRecord(ctx, recordPath, own);
  } catch (error) {
    ctx.warn(`the export's own rows could not be recorded in ${recordPath} (${describeError(error)})`);
  }
}

/** Appends the export's audit line before anything is written: one that cannot be written refuses the export. */
export function auditExport(request: ExportWriteInput, op: string): void {
  try {
    appendAudit(request.auditPath, auditRecord(request.actor, op, request.agentId, true, request.detail));
  } catch (error) {
    throw new BourdonError(
      `export refused: the audit record could not be written (${describeError(error)})`,
      'unavailable',
    );
  }
}
