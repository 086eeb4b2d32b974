/**
 * Session records: one per Codex thread, from the state database (`state_5.sqlite`, table
 * `threads`) plus rollouts newer than its newest thread, or else from `session_index.jsonl`
 * joined with each session's rollout. A database that cannot be read, or whose schema is not the
 * one we know, gives a one-line warning and the index is used, as the engine falls back.
 */
import path from 'node:path';
import type { Row } from '../kit/sqlite.js';
import { CODEX_STATE_DB } from '../../core/native/codex-home.js';
import { THREAD_DATE_COLUMNS, threadRows } from '../../core/native/codex-state.js';
import { conceptsIn, threadNameFromConcepts } from './concepts.js';
import { firstDate, isoDateOf, sortInstant } from '../../core/native/python-dates.js';
import type { SourceReader } from '../kit/source-reader.js';
import { CODEX_WALK, normalizeLocalPath, type CodexLocations } from './paths.js';
import { Rollout, type JsonObject } from './rollouts.js';
import { pyStr, truthy } from '../../core/python-str.js';
import { compareCodePoints, dedupe, lowerKey, normalizeText, strip } from './text.js';

export interface SessionRecord {
  readonly id: string;
  readonly threadName: string;
  /** The raw value the record is ordered by (an epoch or an ISO timestamp, as text). */
  readonly updatedAt: string;
  /** `YYYY-MM-DD` (the engine may keep a malformed date; such records never become sessions). */
  readonly date: string;
  readonly cwd: string | undefined;
  readonly concepts: readonly string[];
  readonly filesTouched: readonly string[];
}

const THREAD_COLUMNS = [
  'id',
  'title',
  'first_user_message',
  'cwd',
  'rollout_path',
  'model_provider',
  'cli_version',
  'source',
  'memory_mode',
  'archived',
  'updated_at_ms',
  'updated_at',
  'created_at_ms',
  'created_at',
] as const;

const textOf = (value: unknown): string => (truthy(value) ? pyStr(value) : '');

/** What the records take from a rollout: its concepts and the files its patches touched. */
function conceptsAndFiles(rollout: Rollout | undefined): { concepts: string[]; files: string[] } {
  if (!rollout) return { concepts: [], files: [] };
  try {
    return { concepts: conceptsIn([rollout.conceptText()]), files: rollout.filesTouched() };
  } finally {
    rollout.release();
  }
}

/** The rollout the state database names, when it may be read (its real path inside the Codex home). */
function rolloutAt(reader: SourceReader, file: string, codexHome: string): Rollout | undefined {
  return reader.namedIn(file, codexHome) && reader.isFile(file) ? new Rollout(reader, file) : undefined;
}

async function stateRecords(where: CodexLocations, reader: SourceReader): Promise<SessionRecord[]> {
  const home = where.codexHome;
  if (home === undefined) return [];
  const file = path.join(home, CODEX_STATE_DB);
  if (!reader.isFile(file)) return [];
  let rows: Row[];
  try {
    const db = await reader.openDatabase(file);
    if (db === null) return [];
    try {
      const result = threadRows(db, THREAD_COLUMNS);
      if (typeof result === 'string') {
        reader.warn(`${file}: unknown schema (${result}); sessions come from the session index`);
        return [];
      }
      rows = result;
    } finally {
      db.close();
    }
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    reader.warn(`${file}: not readable as a Codex state database (${reason}); sessions come from the session index`);
    return [];
  }
  const rolloutOf = (row: Row): Rollout | undefined => {
    const value = row.rollout_path;
    if (typeof value !== 'string' || !strip(value)) return undefined;
    return rolloutAt(reader, path.resolve(where.cwd, normalizeLocalPath(value, where.platform)), home);
  };
  const built = rows.map((row): SessionRecord | undefined => {
    const id = textOf(row.id);
    if (!id) return undefined;
    const title = normalizeText(textOf(row.title));
    const firstMessage = normalizeText(textOf(row.first_user_message));
    const threadName = title || firstMessage || '(untitled)';
    const date = firstDate(row, THREAD_DATE_COLUMNS);
    if (!date) return undefined;
    const fromRollout = conceptsAndFiles(rolloutOf(row));
    const updatedKey = THREAD_DATE_COLUMNS.find((column) => truthy(row[column]));
    return {
      id,
      threadName,
      updatedAt: updatedKey ? pyStr(row[updatedKey]) : '',
      date,
      cwd: typeof row.cwd === 'string' ? row.cwd : undefined,
      concepts: dedupe([...conceptsIn([threadName, firstMessage]), ...fromRollout.concepts], lowerKey),
      filesTouched: fromRollout.files,
    };
  });
  return built.filter((record): record is SessionRecord => record !== undefined);
}

/** Rollouts under `sessions/` that the database does not name and that are not older than its newest thread. */
function unindexedRecords(
  where: CodexLocations,
  reader: SourceReader,
  excluded: ReadonlySet<string>,
  afterDate: string,
): SessionRecord[] {
  if (where.codexHome === undefined) return [];
  const sessions = path.join(where.codexHome, 'sessions');
  const files = reader.walk(sessions, (name) => name.endsWith('.jsonl'), CODEX_WALK);
  const built = files.map((parts): SessionRecord | undefined => {
    const rollout = new Rollout(reader, path.join(sessions, ...parts));
    try {
      const meta = rollout.sessionMeta();
      if (!meta) return undefined;
      const id = meta.id;
      if (typeof id !== 'string' || !id || excluded.has(id)) return undefined;
      const timestamp = textOf(meta.timestamp);
      const date = isoDateOf(timestamp);
      if (!date || (afterDate && compareCodePoints(date, afterDate) < 0)) return undefined;
      const concepts = conceptsIn([rollout.conceptText()]);
      return {
        id,
        threadName: threadNameFromConcepts(concepts, date),
        updatedAt: timestamp,
        date,
        cwd: typeof meta.cwd === 'string' ? meta.cwd : undefined,
        concepts,
        filesTouched: [],
      };
    } finally {
      rollout.release();
    }
  });
  return built.filter((record): record is SessionRecord => record !== undefined);
}

/** Session id → its rollout, for names `rollout-*-<id>.jsonl` under `sessions/` then `archived_sessions/`. */
function rolloutsById(where: CodexLocations, reader: SourceReader): Map<string, Rollout> {
  const byId = new Map<string, Rollout>();
  if (where.codexHome === undefined) return byId;
  for (const folder of ['sessions', 'archived_sessions']) {
    const dir = path.join(where.codexHome, folder);
    const rollout = (name: string): boolean => name.startsWith('rollout-') && name.endsWith('.jsonl');
    for (const parts of reader.walk(dir, rollout, CODEX_WALK)) {
      const name = parts.at(-1) ?? '';
      const core = name.slice('rollout-'.length, -'.jsonl'.length);
      const rollout = new Rollout(reader, path.join(dir, ...parts));
      // `rollout-*-<id>`: any dash may be the one before the id.
      for (let dash = core.indexOf('-'); dash !== -1; dash = core.indexOf('-', dash + 1)) {
        const id = core.slice(dash + 1);
        if (!byId.has(id)) byId.set(id, rollout);
      }
    }
  }
  return byId;
}

function indexEntries(reader: SourceReader, file: string): JsonObject[] {
  const entries: JsonObject[] = [];
  for (const record of new Rollout(reader, file).objects()) {
    if (typeof record.id === 'string') entries.push(record);
  }
  // Newest first by the `updated_at` text; a non-text value sorts as empty (the engine would fail).
  const key = (entry: JsonObject): string => (typeof entry.updated_at === 'string' ? entry.updated_at : '');
  return entries.sort((a, b) => compareCodePoints(key(b), key(a)));
}

function indexRecords(where: CodexLocations, reader: SourceReader): SessionRecord[] {
  if (where.codexHome === undefined) return [];
  const file = path.join(where.codexHome, 'session_index.jsonl');
  if (!reader.isFile(file)) return [];
  const entries = indexEntries(reader, file);
  const rollouts = entries.length > 0 ? rolloutsById(where, reader) : new Map<string, Rollout>();
  const built = entries.map((entry): SessionRecord | undefined => {
    const id = entry.id as string;
    const rollout = rollouts.get(id);
    let meta: JsonObject = {};
    let userTexts: string[] = [];
    let fromRollout = { concepts: [] as string[], files: [] as string[] };
    if (rollout) {
      try {
        meta = rollout.sessionMeta() ?? {};
        userTexts = rollout.userTexts();
      } finally {
        fromRollout = conceptsAndFiles(rollout);
      }
    }
    const updatedAt = textOf(truthy(entry.updated_at) ? entry.updated_at : meta.timestamp);
    const date = isoDateOf(updatedAt);
    if (!date) return undefined;
    return {
      id,
      threadName: normalizeText(truthy(entry.thread_name) ? pyStr(entry.thread_name) : '(untitled)'),
      updatedAt,
      date,
      cwd: typeof meta.cwd === 'string' ? meta.cwd : undefined,
      concepts: dedupe([...conceptsIn([textOf(entry.thread_name), ...userTexts]), ...fromRollout.concepts], lowerKey),
      filesTouched: fromRollout.files,
    };
  });
  return built.filter((record): record is SessionRecord => record !== undefined);
}

function compareRecords(a: SessionRecord, b: SessionRecord): number {
  const byDate = compareCodePoints(a.date, b.date);
  if (byDate !== 0) return byDate;
  const x = sortInstant(a.updatedAt) || 0;
  const y = sortInstant(b.updatedAt) || 0;
  if (x !== y) return x < y ? -1 : 1;
  return compareCodePoints(a.updatedAt, b.updatedAt);
}

/**
 * Every session record, newest first. A problem with the state database is said through the
 * reader (one line each) and the session index is used instead; so is each file that may not be
 * read (a link leading out of the Codex home), once.
 */
export async function collectSessionRecords(where: CodexLocations, reader: SourceReader): Promise<SessionRecord[]> {
  const state = await stateRecords(where, reader);
  if (state.length === 0) return indexRecords(where, reader);
  const latest = state.reduce((max, record) => (compareCodePoints(record.date, max) > 0 ? record.date : max), '');
  const extra = unindexedRecords(where, reader, new Set(state.map((record) => record.id)), latest);
  const byId = new Map<string, SessionRecord>();
  for (const record of [...state, ...extra]) if (record.id && !byId.has(record.id)) byId.set(record.id, record);
  // Newest first; records with equal keys keep their order (a stable sort, as Python's).
  return [...byId.values()].sort((a, b) => compareRecords(b, a));
}
