/**
 * Read-only access to an agent's SQLite database. The file's bytes are read once and the
 * database is opened in memory (sql.js, SQLite compiled to WebAssembly), so the running agent's
 * file is never opened by SQLite, never locked and never written, and no native build is needed
 * on install. docs/participants.md has the measurement behind the choice.
 */
import { readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Database, SqlJsStatic, SqlValue } from 'sql.js';

const require = createRequire(import.meta.url);
let engine: Promise<SqlJsStatic> | undefined;

function sqlJs(): Promise<SqlJsStatic> {
  // Loaded on first use: exports that read no database pay nothing for it.
  engine ??= (require('sql.js') as (config?: object) => Promise<SqlJsStatic>)();
  return engine;
}

/** Largest database read into memory; a larger one is reported and skipped. */
export const MAX_DATABASE_BYTES = 512 * 1024 * 1024;

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

/** Opens a copy of the database at `path`; throws with a one-line reason when it is not one. */
export async function openReadOnly(path: string): Promise<ReadOnlyDatabase> {
  const info = await stat(path);
  if (info.size > MAX_DATABASE_BYTES) throw new Error(`${path}: larger than ${MAX_DATABASE_BYTES} bytes`);
  const bytes = await readFile(path);
  const SQL = await sqlJs();
  const db: Database = new SQL.Database(bytes);
  const all = (sql: string, params: SqlValue[] = []): Row[] => {
    const statement = db.prepare(sql, params);
    const rows: Row[] = [];
    try {
      while (statement.step()) rows.push(statement.getAsObject());
    } finally {
      statement.free();
    }
    return rows;
  };
  // A file that is not SQLite (or is torn) fails here, on its first read, not at some later query.
  const tableNames = new Set(all("SELECT name FROM sqlite_master WHERE type = 'table'").map((row) => String(row.name)));
  return {
    tables: () => tableNames,
    columns: (table) =>
      tableNames.has(table)
        ? all(`PRAGMA table_info("${table.replaceAll('"', '""')}")`).map((row) => String(row.name))
        : [],
    all,
    close: () => db.close(),
  };
}
