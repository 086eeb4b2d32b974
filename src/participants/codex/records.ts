/**
 * Session records: one per Codex thread, from the state database (`state_5.sqlite`, table
 * `threads`) plus rollouts newer than its newest thread, or else from `session_index.jsonl`
 * joined with each session's rollout. A database that cannot be read, or whose schema is not the
 * one we know, gives a one-line warning and the index is used, as the engine falls back.
 */
import path from 'node:path';
import { openReadOnly, type Row } from '../kit/sqlite.js';
import { CODEX_STATE_DB } from '../../core/native/codex-home.js';
import { THREAD_DATE_COLUMNS, threadRows } from '../../core/native/codex-state.js';
import { conceptsIn, threadNameFromConcepts } from './concepts.js';
import { firstDate, isoDateOf, sortInstant } from '../../core/native/python-dates.js';
import { confinedDatabaseFiles, confinedFile, type Warn } from '../../core/native/confined-reads.js';
import { normalizeLocalPath, walkFiles, warnOnceInto, type CodexLocations } from './paths.js';
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

/** Rollouts read at once: enough to keep the disk busy, few enough to bound memory (4 MB each at most). */
const PARALLEL_READS = 8;

/** `fn` over every item, `limit` at a time, results in item order. */
async function mapConcurrent<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  // One iterator the workers share: each takes the next item as it comes free.
  const pending = items.entries();
  const worker = async (): Promise<void> => {
    for (const [index, item] of pending) results[index] = await fn(item);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** What the records take from a rollout: its concepts and the files its patches touched. */
async function conceptsAndFiles(rollout: Rollout | undefined): Promise<{ concepts: string[]; files: string[] }> {
  if (!rollout) return { concepts: [], files: [] };
  try {
    return { concepts: conceptsIn([await rollout.conceptText()]), files: await rollout.filesTouched() };
  } finally {
    rollout.release();
  }
}

/** The rollout the state database names, when it may be read (inside the Codex home). */
function rolloutAt(file: string, codexHome: string, warn: Warn): Rollout | undefined {
  return confinedFile(file, codexHome, warn) ? new Rollout(file) : undefined;
}

async function stateRecords(where: CodexLocations, warnings: string[]): Promise<SessionRecord[]> {
  const home = where.codexHome;
  if (home === undefined) return [];
  const warn = warnOnceInto(warnings);
  const file = path.join(home, CODEX_STATE_DB);
  if (!confinedFile(file, home, warn)) return [];
  const files = confinedDatabaseFiles(file, home, warn);
  if (files === undefined) return [];
  let rows: Row[];
  try {
    const db = await openReadOnly(file, files);
    try {
      const result = threadRows(db, THREAD_COLUMNS);
      if (typeof result === 'string') {
        warnings.push(`${file}: unknown schema (${result}); sessions come from the session index`);
        return [];
      }
      rows = result;
    } finally {
      db.close();
    }
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    warnings.push(`${file}: not readable as a Codex state database (${reason}); sessions come from the session index`);
    return [];
  }
  const rolloutOf = (row: Row): Rollout | undefined => {
    const value = row.rollout_path;
    if (typeof value !== 'string' || !strip(value)) return undefined;
    return rolloutAt(path.resolve(where.cwd, normalizeLocalPath(value, where.platform)), home, warn);
  };
  const built = await mapConcurrent(rows, PARALLEL_READS, async (row): Promise<SessionRecord | undefined> => {
    const id = textOf(row.id);
    if (!id) return undefined;
    const title = normalizeText(textOf(row.title));
    const firstMessage = normalizeText(textOf(row.first_user_message));
    const threadName = title || firstMessage || '(untitled)';
    const date = firstDate(row, THREAD_DATE_COLUMNS);
    if (!date) return undefined;
    const fromRollout = await conceptsAndFiles(rolloutOf(row));
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
async function unindexedRecords(
  where: CodexLocations,
  excluded: ReadonlySet<string>,
  afterDate: string,
  warn: Warn,
): Promise<SessionRecord[]> {
  if (where.codexHome === undefined) return [];
  const files = await walkFiles(
    path.join(where.codexHome, 'sessions'),
    where.codexHome,
    (name) => name.endsWith('.jsonl'),
    warn,
  );
  const built = await mapConcurrent(files, PARALLEL_READS, async (file): Promise<SessionRecord | undefined> => {
    const rollout = new Rollout(file.path);
    try {
      const meta = await rollout.sessionMeta();
      if (!meta) return undefined;
      const id = meta.id;
      if (typeof id !== 'string' || !id || excluded.has(id)) return undefined;
      const timestamp = textOf(meta.timestamp);
      const date = isoDateOf(timestamp);
      if (!date || (afterDate && compareCodePoints(date, afterDate) < 0)) return undefined;
      const concepts = conceptsIn([await rollout.conceptText()]);
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
async function rolloutsById(where: CodexLocations, warn: Warn): Promise<Map<string, Rollout>> {
  const byId = new Map<string, Rollout>();
  if (where.codexHome === undefined) return byId;
  for (const folder of ['sessions', 'archived_sessions']) {
    const files = await walkFiles(
      path.join(where.codexHome, folder),
      where.codexHome,
      (name) => name.startsWith('rollout-') && name.endsWith('.jsonl'),
      warn,
      { sizes: false },
    );
    for (const file of files) {
      const name = file.parts.at(-1) ?? '';
      const core = name.slice('rollout-'.length, -'.jsonl'.length);
      const rollout = new Rollout(file.path);
      // `rollout-*-<id>`: any dash may be the one before the id.
      for (let dash = core.indexOf('-'); dash !== -1; dash = core.indexOf('-', dash + 1)) {
        const id = core.slice(dash + 1);
        if (!byId.has(id)) byId.set(id, rollout);
      }
    }
  }
  return byId;
}

async function indexEntries(file: string): Promise<JsonObject[]> {
  const entries: JsonObject[] = [];
  for await (const record of new Rollout(file).objects()) {
    if (typeof record.id === 'string') entries.push(record);
  }
  // Newest first by the `updated_at` text; a non-text value sorts as empty (the engine would fail).
  const key = (entry: JsonObject): string => (typeof entry.updated_at === 'string' ? entry.updated_at : '');
  return entries.sort((a, b) => compareCodePoints(key(b), key(a)));
}

async function indexRecords(where: CodexLocations, warn: Warn): Promise<SessionRecord[]> {
  if (where.codexHome === undefined) return [];
  const file = path.join(where.codexHome, 'session_index.jsonl');
  if (!confinedFile(file, where.codexHome, warn)) return [];
  const entries = await indexEntries(file);
  const rollouts = entries.length > 0 ? await rolloutsById(where, warn) : new Map<string, Rollout>();
  const built = await mapConcurrent(entries, PARALLEL_READS, async (entry): Promise<SessionRecord | undefined> => {
    const id = entry.id as string;
    const rollout = rollouts.get(id);
    let meta: JsonObject = {};
    let userTexts: string[] = [];
    let fromRollout = { concepts: [] as string[], files: [] as string[] };
    if (rollout) {
      try {
        meta = (await rollout.sessionMeta()) ?? {};
        userTexts = await rollout.userTexts();
      } finally {
        fromRollout = await conceptsAndFiles(rollout);
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
 * Every session record, newest first. A problem with the state database is pushed to `warnings`
 * (one line each) and the session index is used instead; so is each file that may not be read
 * (a link leading out of the Codex home), once.
 */
export async function collectSessionRecords(where: CodexLocations, warnings: string[]): Promise<SessionRecord[]> {
  const warn = warnOnceInto(warnings);
  const state = await stateRecords(where, warnings);
  if (state.length === 0) return indexRecords(where, warn);
  const latest = state.reduce((max, record) => (compareCodePoints(record.date, max) > 0 ? record.date : max), '');
  const extra = await unindexedRecords(where, new Set(state.map((record) => record.id)), latest, warn);
  const byId = new Map<string, SessionRecord>();
  for (const record of [...state, ...extra]) if (record.id && !byId.has(record.id)) byId.set(record.id, record);
  // Newest first; records with equal keys keep their order (a stable sort, as Python's).
  return [...byId.values()].sort((a, b) => compareRecords(b, a));
}
