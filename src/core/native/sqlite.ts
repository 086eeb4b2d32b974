/**
 * Read-only access to an agent's SQLite database. The database (and its write-ahead log, when the
 * agent runs in WAL mode) is copied once into a private, unlinked file (sqlite-snapshot.ts) and
 * read with sql.js (SQLite compiled to WebAssembly), so the running agent's file is never opened
 * by SQLite, never locked and never written, and no native build is needed on install.
 * docs/participants-sqlite.md has the measurement behind the choice.
 *
 * sql.js is made to read the copy's pages when SQLite asks for them instead of holding the whole
 * file: the file it is given says its length and hands sql.js, as the file's content, an object
 * whose `subarray(start, end)` reads those bytes from the copy (sql.js's in-memory file system
 * reads a file with `contents.subarray` alone). SQLite's page cache is 4 MiB; a scan's rows are
 * stepped in batches (`rows`), so a database costs memory by the rows a participant keeps, not by
 * its size (bench/README.md, "SQLite participants").
 *
 * A database is a source read bounded in time: a 16 KB file whose generated column is costly
 * can keep SQLite busy for minutes in one step. So every call into SQLite runs under a watchdog
 * (node:vm's `timeout`, which has V8 stop the running code, WebAssembly included), against the
 * database's budget (`sourceReadBudgetMs`: 20 s, BOURDON_SOURCE_READ_TIMEOUT overrides it). A
 * database that has not answered everything within it is abandoned with the sql.js instance it
 * ran in (which may have been stopped anywhere): the read fails with one line, every database
 * open in that instance fails so too, the next one opens in a fresh instance, the export goes on.
 */
import { closeSync, readSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import vm from 'node:vm';
import type { Database, SqlJsStatic, SqlValue, Statement } from 'sql.js';
import { fingerprint, snapshot, type DatabaseFiles, type Snapshot } from './sqlite-snapshot.js';
import { BourdonError } from '../errors.js';

const require = createRequire(import.meta.url);

/** Seconds a database may take, opened and queried, when BOURDON_SOURCE_READ_TIMEOUT does not say. */
const DEFAULT_SOURCE_READ_SECONDS = 20;

/** The time budget of one source read, in ms: BOURDON_SOURCE_READ_TIMEOUT (seconds) or the default. */
function sourceReadBudgetMs(env: Readonly<Record<string, string | undefined>> = process.env): number {
  const raw = env.BOURDON_SOURCE_READ_TIMEOUT?.trim();
  const seconds = raw && /^\d+(?:\.\d+)?$/.test(raw) && Number(raw) > 0 ? Number(raw) : DEFAULT_SOURCE_READ_SECONDS;
  return Math.round(seconds * 1000);
}

/** A database that did not answer within its budget: abandoned, every later query of it fails so too. */
export class ReadTimeout extends Error {
  constructor() {
    super(
      `took longer than ${sourceReadBudgetMs() / 1000} s to read (BOURDON_SOURCE_READ_TIMEOUT sets the limit in seconds); skipped`,
    );
  }
}

/** One instance of sql.js; `dead` once a call in it was stopped by the watchdog. */
interface Instance {
  readonly SQL: SqlJsStatic;
  dead: boolean;
}

let instance: Promise<Instance> | undefined;

/** The process's sql.js instance, loaded when there is none or the last one was abandoned. */
function sqlJs(): Promise<Instance> {
  if (!instance) {
    // sql.js's WebAssembly compiled by V8's baseline compiler alone: optimising SQLite's 0.7 MB of
    // code in the background cost a cursor export 0.5-0.8 s of CPU and 15-30 MB at its peak, more
    // than the faster code saved (bench/README.md, "SQLite participants"). The flag is the
    // process's, read when a module is compiled: set before sql.js is compiled.
    setFlagsFromString('--liftoff-only');
    const load = require('sql.js') as () => Promise<SqlJsStatic>;
    instance = load().then((SQL) => ({ SQL, dead: false }));
  }
  return instance;
}

/** The context every call into SQLite runs in, under the watchdog: `task()` calls back into this realm. */
let watcher: { context: vm.Context; script: vm.Script } | undefined;

/**
 * Runs `task` now, stopped by V8 if it runs past `deadline` (ms since 1970): then the instance
 * is abandoned (the next database loads a fresh one) and ReadTimeout thrown.
 */
function bounded<T>(within: Instance, deadline: number, task: () => T): T {
  if (within.dead) throw new ReadTimeout();
  const remaining = Math.floor(deadline - Date.now());
  if (remaining <= 0) return abandon(within);
  watcher ??= { context: vm.createContext({ task: undefined }), script: new vm.Script('task()') };
  const { context, script } = watcher;
  context.task = task;
  try {
    return script.runInContext(context, { timeout: remaining }) as T;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return abandon(within);
    throw error;
  } finally {
    context.task = undefined;
  }
}

function abandon(within: Instance): never {
  within.dead = true;
  void instance?.then((current) => {
    if (current === within) instance = undefined;
  });
  throw new ReadTimeout();
}

/** The copy as sql.js's file system holds a file it is given: its content read when SQLite asks. */
function pagesOf(fd: number, size: number): ArrayLike<number> {
  let scratch = new Uint8Array(65536);
  const contents = {
    length: size,
    subarray(start: number, end: number): Uint8Array {
      const length = Math.max(0, end - start);
      if (scratch.length < length) scratch = new Uint8Array(length);
      const view = scratch.subarray(0, length);
      let done = 0;
      while (done < length) {
        const read = readSync(fd, view, done, length - done, start + done);
        if (read === 0) break;
        done += read;
      }
      view.fill(0, done);
      return view;
    },
  };
  // sql.js stores `file.slice()` as the file's content and reads it by `subarray` alone.
  const file = { length: size, subarray: () => file, slice: () => contents };
  return file;
}

/** A scan's rows are stepped at most this many at a time, or about this many characters and bytes. */
const BATCH_ROWS = 512;
const BATCH_SIZE = 2 * 1024 * 1024;

/** Up to a batch of rows of `statement`, and whether it has none left. */
function stepBatch(statement: Statement, names: readonly string[]): { rows: Row[]; done: boolean } {
  const rows: Row[] = [];
  let size = 0;
  while (rows.length < BATCH_ROWS && size < BATCH_SIZE) {
    if (!statement.step()) return { rows, done: true };
    const values = statement.get();
    const row: Row = {};
    for (let i = 0; i < names.length; i++) {
      const value = values[i] ?? null;
      row[names[i]!] = value;
      if (typeof value === 'string' || value instanceof Uint8Array) size += value.length;
    }
    rows.push(row);
  }
  return { rows, done: false };
}

/** Largest database (with its log) read into memory; a larger one is reported and skipped. */
const MAX_DATABASE_BYTES = 256 * 1024 * 1024;
const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

export type Row = Record<string, SqlValue>;

export interface ReadOnlyDatabase {
  /** Names of the tables in the database. */
  tables(): Set<string>;
  /** Column names of a table (empty when there is no such table). */
  columns(table: string): string[];
  /** All rows of a query, as objects keyed by column name. */
  all(sql: string, params?: SqlValue[]): Row[];
  /**
   * The rows of a query, one at a time, stepped from SQLite in batches: a scan whose rows are not
   * kept costs the memory of a batch. Leaving the loop early frees the statement.
   */
  rows(sql: string, params?: SqlValue[]): Iterable<Row>;
  close(): void;
}

export type { DatabaseFiles } from './sqlite-snapshot.js';

/** The files SQLite itself would read for the database at `path`. */
function filesBeside(path: string): DatabaseFiles {
  return { main: path, wal: `${path}-wal`, journal: `${path}-journal` };
}

function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0]!.trim() || 'unreadable';
}

/**
 * Opens a copy of the database at `path` (read from `files`, by default the files beside it);
 * throws with a one-line reason naming `path` when it cannot or takes too long.
 */
export async function openReadOnly(path: string, files: DatabaseFiles = filesBeside(path)): Promise<ReadOnlyDatabase> {
  const deadline = Date.now() + sourceReadBudgetMs();
  let copy: Snapshot;
  try {
    const info = await stat(files.main);
    const walSize = files.wal === undefined ? 0 : ((await stat(files.wal).catch(() => undefined))?.size ?? 0);
    if (!info.isFile()) throw new Error('not a regular file');
    if (info.size + walSize > MAX_DATABASE_BYTES) throw new Error(`larger than ${MAX_DATABASE_BYTES} bytes`);
    copy = await snapshot(files);
  } catch (error) {
    throw new BourdonError(`${path}: ${oneLine(error)}`, 'source_unreadable', { cause: error });
  }
  let released = false;
  const release = (): void => {
    if (!released) closeSync(copy.fd);
    released = true;
  };
  try {
    // SQLite treats an empty file as an empty database; anything else must carry its header.
    const magic = Buffer.alloc(SQLITE_MAGIC.length);
    if (
      copy.size > 0 &&
      !(readSync(copy.fd, magic, 0, magic.length, 0) === magic.length && magic.equals(SQLITE_MAGIC))
    ) {
      throw new BourdonError(`${path}: not a SQLite database`, 'source_unreadable');
    }
    const within = await sqlJs();
    const db: Database = bounded(within, deadline, () => {
      const opened = new within.SQL.Database(copy.size > 0 ? pagesOf(copy.fd, copy.size) : undefined);
      opened.exec('PRAGMA cache_size = -4096; PRAGMA query_only = 1');
      return opened;
    });
    let closed = false;
    /** Runs a call into SQLite against the database's deadline; a closed database answers nothing. */
    const call = <T>(task: () => T): T => {
      if (closed) throw new Error('the database is closed');
      return bounded(within, deadline, task);
    };
    // A query's failure is SQLite's message (callers name the file), a timeout included.
    function* rows(sql: string, params: SqlValue[] = []): Generator<Row> {
      const statement = call(() => db.prepare(sql, params));
      const names = statement.getColumnNames();
      let done = false;
      try {
        while (!done) {
          const batch = call(() => stepBatch(statement, names));
          done = batch.done;
          yield* batch.rows;
        }
      } finally {
        if (!closed && !within.dead) statement.free();
      }
    }
    const all = (sql: string, params: SqlValue[] = []): Row[] => [...rows(sql, params)];
    // A torn or foreign file fails here, on its first read, not at some later query.
    const tableNames = new Set(
      all("SELECT name FROM sqlite_master WHERE type = 'table'").map((row) => String(row.name)),
    );
    return {
      tables: () => tableNames,
      columns: (table) =>
        tableNames.has(table)
          ? all(`PRAGMA table_info("${table.replaceAll('"', '""')}")`).map((row) => String(row.name))
          : [],
      all,
      rows,
      close: () => {
        try {
          if (!closed && !within.dead) db.close();
        } finally {
          closed = true;
          release();
        }
      },
    };
  } catch (error) {
    release();
    if (error instanceof BourdonError) throw error;
    // SQLite's reasons never name the file: this names it.
    throw new BourdonError(`${path}: ${oneLine(error)}`, 'source_unreadable', { cause: error });
  }
}

/**
 * What stat says of a database and its write-ahead log ('' when the database is absent): equal
 * stamps mean a copy read earlier still holds, so a reader asked on every turn opens it once.
 */
export async function databaseStamp(path: string): Promise<string> {
  const main = await fingerprint(path);
  return main && `${main}|${await fingerprint(`${path}-wal`)}`;
}
