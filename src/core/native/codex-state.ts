/**
 * Reads of Codex's state database (`state_5.sqlite` in the Codex home), read-only: the threads
 * table as the engine selects from it (shared by the codex exporter and the turn compiler), and
 * the memory pipeline's health (Stage 1 jobs and outputs). The turn compiler asks on every Codex
 * turn, so what it reads is kept while the database's stamp (size, mtime, inode, and the log's)
 * is unchanged: a warm turn costs two stats, not a database load. The turn compiler reads it as
 * the codex exporter does, confined to the Codex home (confined-reads.ts).
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { CODEX_STATE_DB } from './codex-home.js';
import { confinedDatabaseFiles } from './confined-reads.js';
import { databaseStamp, openReadOnly, type ReadOnlyDatabase, type Row } from './sqlite.js';

/** The columns a thread's time is read from, in the engine's order of preference. */
export const THREAD_DATE_COLUMNS = ['updated_at_ms', 'updated_at', 'created_at_ms', 'created_at'] as const;

/**
 * The `threads` rows with those of `wanted` columns the table has, newest first by the first
 * date column present (else by id), at most `limit`; or why the table cannot be read (no table,
 * no `id`, neither `title` nor `first_user_message`).
 */
export function threadRows(db: ReadOnlyDatabase, wanted: readonly string[], limit?: number): Row[] | string {
  if (!db.tables().has('threads')) return 'no threads table';
  const columns = new Set(db.columns('threads'));
  if (!columns.has('id')) return 'threads has no id column';
  const selectable = wanted.filter((column) => columns.has(column));
  if (!selectable.includes('title') && !selectable.includes('first_user_message'))
    return 'threads has neither title nor first_user_message';
  const order = THREAD_DATE_COLUMNS.find((column) => columns.has(column)) ?? 'id';
  const list = selectable.map((column) => `"${column}"`).join(', ');
  const bounded = limit === undefined ? '' : ` LIMIT ${Math.max(0, Math.floor(limit))}`;
  return db.all(`SELECT ${list} FROM threads ORDER BY "${order}" DESC${bounded}`);
}

/** One memory Stage 1 job that is not done (the engine keeps the first 20 by job key). */
export interface Stage1Problem {
  readonly job_key: string;
  readonly status: string;
  readonly last_error: string;
}

/** The memory pipeline as the state database shows it. */
export interface Stage1Report {
  /** The database file exists (readable or not). */
  readonly present: boolean;
  /** `memory_stage1` jobs by status, in status order. */
  readonly byStatus: ReadonlyMap<string, number>;
  readonly problems: readonly Stage1Problem[];
  /** Rows of `stage1_outputs`. */
  readonly outputs: number;
}

const countOf = (rows: Row[]): number => Number(rows[0]?.n ?? 0) || 0;

/** `str(value)` of a SQLite value, as the engine reports statuses and errors. */
function sqlText(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  return value instanceof Uint8Array ? Buffer.from(value).toString('utf8') : String(value);
}

function stage1Report(db: ReadOnlyDatabase): Stage1Report {
  const byStatus = new Map<string, number>();
  let problems: Stage1Problem[] = [];
  let outputs = 0;
  const tables = db.tables();
  if (tables.has('stage1_outputs')) outputs = countOf(db.all('SELECT count(*) AS n FROM stage1_outputs'));
  if (tables.has('jobs')) {
    const columns = new Set(db.columns('jobs'));
    if (columns.has('kind') && columns.has('status')) {
      const rows = db.all('SELECT status, count(*) AS n FROM jobs WHERE kind = ? GROUP BY status ORDER BY status', [
        'memory_stage1',
      ]);
      for (const row of rows) byStatus.set(sqlText(row.status), Number(row.n));
    }
    if (['kind', 'job_key', 'status', 'retry_remaining', 'last_error'].every((column) => columns.has(column))) {
      problems = db
        .all('SELECT job_key, status, last_error FROM jobs WHERE kind = ? AND status != ? ORDER BY job_key LIMIT 20', [
          'memory_stage1',
          'done',
        ])
        .map((row) => ({
          job_key: sqlText(row.job_key),
          status: sqlText(row.status),
          last_error: row.last_error === null || row.last_error === '' ? '' : sqlText(row.last_error).slice(0, 500),
        }));
    }
  }
  return { present: true, byStatus, problems, outputs };
}

/** What a Codex turn reads from the state database. */
export interface CodexTurnState {
  readonly stage1: Stage1Report;
  /** The newest threads, with the columns a turn brief uses. */
  readonly threads: readonly Row[];
}

const NO_STATE: CodexTurnState = {
  stage1: { present: false, byStatus: new Map(), problems: [], outputs: 0 },
  threads: [],
};

/** The thread columns a turn brief reads. */
const TURN_THREAD_COLUMNS = ['id', 'title', 'first_user_message', 'cwd', 'rollout_path', ...THREAD_DATE_COLUMNS];
/** The engine compiles a turn from the 60 newest threads. */
const TURN_THREAD_LIMIT = 60;

const turnStateCache = new Map<string, { stamp: string; state: CodexTurnState }>();

/**
 * The state a turn brief reads from the Codex home's database: none without a home or a
 * database; a database that cannot be read counts as present with nothing in it (the engine's
 * reading). Kept per database while its stamp holds. Read only inside the Codex home, as the
 * codex exporter reads it (docs/security.md): a database that is a link leading out is none, and
 * a log or journal beside it that does is left out; each such refusal is one warning in
 * `warnings`, given when the database is read, not on each turn that reuses what was read.
 */
export async function codexTurnState(codexHome: string | undefined, warnings: string[]): Promise<CodexTurnState> {
  if (codexHome === undefined) return NO_STATE;
  const file = path.join(codexHome, CODEX_STATE_DB);
  // The engine's `is_file()`: a folder of that name is no database.
  if (!(await stat(file).catch(() => undefined))?.isFile()) return NO_STATE;
  const stamp = await databaseStamp(file);
  const cached = turnStateCache.get(file);
  if (cached?.stamp === stamp) return cached.state;
  const state = await readTurnState(codexHome, file, warnings);
  // One entry per database: a server sees one Codex home, a test a handful.
  if (turnStateCache.size >= 16) turnStateCache.clear();
  turnStateCache.set(file, { stamp, state });
  return state;
}

async function readTurnState(codexHome: string, file: string, warnings: string[]): Promise<CodexTurnState> {
  const files = confinedDatabaseFiles(file, codexHome, (message) => warnings.push(message));
  if (files === undefined) return NO_STATE;
  const empty: CodexTurnState = { stage1: { ...NO_STATE.stage1, present: true }, threads: [] };
  let db: ReadOnlyDatabase;
  try {
    db = await openReadOnly(file, files);
  } catch {
    return empty;
  }
  try {
    let stage1 = empty.stage1;
    try {
      stage1 = stage1Report(db);
    } catch {
      // A table the engine cannot query leaves the report as far as it got: empty here.
    }
    let threads: readonly Row[] = [];
    try {
      const rows = threadRows(db, TURN_THREAD_COLUMNS, TURN_THREAD_LIMIT);
      if (typeof rows !== 'string') threads = rows;
    } catch {
      threads = [];
    }
    return { stage1, threads };
  } finally {
    db.close();
  }
}
