/**
 * One version of an agent's manifest as the history records it (a line of
 * `history/<id>/index.jsonl`, or the pending record of a write in flight): its number, time,
 * operation, actor, the hash and size of its bytes, and its row counts. Pure; no file access.
 */
import * as z from 'zod';
import { lazy } from '../lazy.js';
import { sha256Hex } from '../store/hashing.js';
import { parseYamlMapping } from '../store/yaml.js';

/** A row count: a whole number, or null when the bytes were not a manifest (anything else reads as null). */
const rowCount = () => z.number().int().nullable().catch(null);

/**
 * A record as read back from the index or the pending file. The output has exactly these keys in
 * this order (unknown keys are dropped), so a record rewritten from what was read is canonical.
 */
const versionRecordSchema = lazy(() =>
  z.object({
    version: z.number().int().min(1),
    ts: z.string(),
    op: z.string(),
    actor: z.string().nullable(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    bytes: z.number().int(),
    entities: rowCount(),
    sessions: rowCount(),
    notes: rowCount(),
  }),
);

export type VersionRecord = z.infer<ReturnType<typeof versionRecordSchema>>;

export type RowCounts = Pick<VersionRecord, 'entities' | 'sessions' | 'notes'>;

/** A record parsed from JSON, or null when the value is not one. */
export function parseVersionRecord(value: unknown): VersionRecord | null {
  const parsed = versionRecordSchema().safeParse(value);
  return parsed.success ? parsed.data : null;
}

export function sha256(data: Buffer): string {
  return sha256Hex(data);
}

/** Row counts of a manifest's bytes; null counts when the bytes are not a manifest. */
function countRows(data: Buffer): RowCounts {
  try {
    const doc = parseYamlMapping(data);
    if (!doc) return { entities: null, sessions: null, notes: null };
    const count = (key: string) => (Array.isArray(doc[key]) ? (doc[key] as unknown[]).length : 0);
    return { entities: count('known_entities'), sessions: count('recent_sessions'), notes: count('notes') };
  } catch {
    return { entities: null, sessions: null, notes: null };
  }
}

export function makeRecord(
  version: number,
  data: Buffer,
  op: string,
  actor: string | null,
  now: Date,
  counts?: RowCounts,
): VersionRecord {
  return {
    version,
    ts: now.toISOString(),
    op,
    actor,
    sha256: sha256(data),
    bytes: data.length,
    ...(counts ?? countRows(data)),
  };
}
