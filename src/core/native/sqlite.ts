/**
 * Read-only access to an agent's SQLite database. The file's bytes (and its write-ahead log, when
 * the agent runs in WAL mode) are read once and the database is opened in memory with sql.js
 * (SQLite compiled to WebAssembly), so the running agent's file is never opened by SQLite, never
 * locked and never written, and no native build is needed on install. docs/participants-sqlite.md
 * has the measurement behind the choice.
 */
import { open, readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Database, SqlJsStatic, SqlValue } from 'sql.js';
import { foldWriteAheadLog } from './sqlite-wal.js';

const require = createRequire(import.meta.url);
let engine: Promise<SqlJsStatic> | undefined;

function sqlJs(): Promise<SqlJsStatic> {
  // Loaded on first use: exports that read no database pay nothing for it.
  engine ??= (require('sql.js') as (config?: object) => Promise<SqlJsStatic>)();
  return engine;
}

/** Largest database (with its log) read into memory; a larger one is reported and skipped. */
export const MAX_DATABASE_BYTES = 256 * 1024 * 1024;
/** Reads of a database caught mid-write are retried this many times, this far apart. */
const SNAPSHOT_ATTEMPTS = 4;
const SNAPSHOT_RETRY_MS = 50;
const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
const JOURNAL_MAGIC = Buffer.from([0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]);

export type Row = Record<string, SqlValue>;

export interface ReadOnlyDatabase {
  /** Names of the tables in the database. */
  tables(): Set<string>;
  /** Column names of a table (empty when there is no such table). */
  columns(table: string): string[];
  /** All rows of a query, as objects keyed by column name. */
  all(sql: string, params?: SqlValue[]): Row[];
  close(): void;
}

async function readIfPresent(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Identity of a file's current content as far as stat tells it ('' when absent). */
async function fingerprint(path: string): Promise<string> {
  try {
    const info = await stat(path);
    return `${info.size}:${info.mtimeMs}:${info.ino}`;
  } catch {
    return '';
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

/** True when a rollback journal holds pages of a transaction still being written (a hot journal). */
async function hotJournal(path: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(`${path}-journal`, 'r');
  } catch {
    return false;
  }
  try {
    const head = Buffer.alloc(8);
    const { bytesRead } = await handle.read(head, 0, 8, 0);
    return bytesRead === 8 && head.equals(JOURNAL_MAGIC);
  } finally {
    await handle.close();
  }
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The database's committed content: the main file with its write-ahead log folded in. A read
 * that races a writer (the log changed while we read, or a rollback journal is hot) is retried;
 * a database still mid-write after that is refused rather than read torn.
 */
async function snapshot(path: string): Promise<Buffer> {
  for (let attempt = 1; ; attempt++) {
    const walBefore = await fingerprint(`${path}-wal`);
    const wal = await readIfPresent(`${path}-wal`);
    const main = await readFile(path);
    const settled = (await fingerprint(`${path}-wal`)) === walBefore && !(await hotJournal(path));
    if (settled) return wal ? foldWriteAheadLog(main, wal) : main;
    if (attempt >= SNAPSHOT_ATTEMPTS) throw new Error('it is being written (a transaction is in progress); try again');
    await pause(SNAPSHOT_RETRY_MS * attempt);
  }
}

function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0].trim() || 'unreadable';
}

/** Opens a copy of the database at `path`; throws with a one-line reason when it cannot. */
export async function openReadOnly(path: string): Promise<ReadOnlyDatabase> {
  let bytes: Buffer;
  try {
    const info = await stat(path);
    const walSize = (await stat(`${path}-wal`).catch(() => undefined))?.size ?? 0;
    if (!info.isFile()) throw new Error('not a regular file');
    if (info.size + walSize > MAX_DATABASE_BYTES) throw new Error(`larger than ${MAX_DATABASE_BYTES} bytes`);
    bytes = await snapshot(path);
  } catch (error) {
    throw new Error(`${path}: ${oneLine(error)}`, { cause: error });
  }
  // SQLite treats an empty file as an empty database; anything else must carry its header.
  if (bytes.length > 0 && !bytes.subarray(0, 16).equals(SQLITE_MAGIC)) {
    throw new Error(`${path}: not a SQLite database`);
  }
  const SQL = await sqlJs();
  let db: Database | undefined;
  try {
    db = new SQL.Database(bytes);
    const opened = db;
    const all = (sql: string, params: SqlValue[] = []): Row[] => {
      const statement = opened.prepare(sql, params);
      const rows: Row[] = [];
      try {
        while (statement.step()) rows.push(statement.getAsObject());
      } finally {
        statement.free();
      }
      return rows;
    };
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
      close: () => opened.close(),
    };
  } catch (error) {
    db?.close();
    throw new Error(`${path}: ${oneLine(error)}`, { cause: error });
  }
}
