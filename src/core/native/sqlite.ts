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
 * reads a file with `contents.subarray` alone). SQLite's page cache is 4 MiB; rows are handed
 * over in batches (`rows`), so a database costs memory by the rows a participant keeps, not by
 * its size (bench/README.md, "SQLite participants").
 *
 * A database is a source read bounded in time: a 16 KB file whose generated column is costly
 * can keep SQLite busy for minutes in one step. So SQLite runs in a worker thread, answering
 * each call synchronously (the participants' reads stay plain calls), and a database that has
 * not answered everything within its budget (`sourceReadBudgetMs`: 20 s, BOURDON_SOURCE_READ_TIMEOUT
 * overrides it) is abandoned: the worker is stopped, the read fails with one line, the export
 * goes on without it. One worker serves every database of a process, one after the other.
 */
import { closeSync, readSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { SqlValue } from 'sql.js';
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

/**
 * The worker: sql.js behind a port. Each answer is posted, then the shared flag is raised so the
 * waiting caller wakes (Atomics.wait) and takes it with receiveMessageOnPort. CommonJS, as an
 * eval'd worker runs.
 */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { readSync } = require('node:fs');
const flag = new Int32Array(workerData.flag);
const port = workerData.port;
function reply(message) { port.postMessage(message); Atomics.store(flag, 0, 1); Atomics.notify(flag, 0); }
// The copy as sql.js's file system holds a file it is given: its content read when SQLite asks.
function pagesOf(fd, size) {
  let scratch = new Uint8Array(65536);
  const contents = {
    length: size,
    subarray(start, end) {
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
  const file = { length: size, subarray: () => file, slice: () => contents };
  return file;
}
let db;
const statements = new Map();
let nextStatement = 0;
// A batch of rows: at most this many, or about this many characters of text and bytes of blobs.
const BATCH_ROWS = 512;
const BATCH_SIZE = 2 * 1024 * 1024;
function batch(id) {
  const { statement, names } = statements.get(id);
  const rows = [];
  let size = 0;
  while (rows.length < BATCH_ROWS && size < BATCH_SIZE) {
    if (!statement.step()) {
      statement.free();
      statements.delete(id);
      return { ok: true, id, rows, done: true };
    }
    // As getAsObject builds a row, from the values' array (a for-in over such a row crashes Node 20's V8).
    const values = statement.get();
    const row = {};
    for (let i = 0; i < names.length; i++) {
      const value = values[i];
      row[names[i]] = value;
      if (typeof value === 'string' || value instanceof Uint8Array) size += value.length;
    }
    rows.push(row);
  }
  return { ok: true, id, rows, done: false };
}
function closeDatabase() {
  statements.clear();
  db?.close();
  db = undefined;
}
require(workerData.sqlJs)().then((SQL) => {
  port.on('message', (request) => {
    try {
      if (request.kind === 'open') {
        closeDatabase();
        db = new SQL.Database(request.size > 0 ? pagesOf(request.fd, request.size) : undefined);
        db.exec('PRAGMA cache_size = -4096; PRAGMA query_only = 1');
        reply({ ok: true });
      } else if (request.kind === 'all') {
        const statement = db.prepare(request.sql, request.params);
        const rows = [];
        try { while (statement.step()) rows.push(statement.getAsObject()); } finally { statement.free(); }
        reply({ ok: true, rows });
      } else if (request.kind === 'rows') {
        const id = nextStatement++;
        const statement = db.prepare(request.sql, request.params);
        statements.set(id, { statement, names: statement.getColumnNames() });
        reply(batch(id));
      } else if (request.kind === 'more') {
        reply(batch(request.id));
      } else if (request.kind === 'free') {
        statements.get(request.id)?.statement.free();
        statements.delete(request.id);
        reply({ ok: true });
      } else {
        closeDatabase();
        reply({ ok: true });
      }
    } catch (error) {
      reply({ ok: false, error: String((error && error.message) || error) });
    }
  });
  reply({ ok: true });
}, (error) => reply({ ok: false, error: String((error && error.message) || error) }));
`;

interface WorkerAnswer {
  ok: boolean;
  rows?: Row[];
  /** For `rows` and `more`: the statement, and whether it has no rows left (then it is freed). */
  id?: number;
  done?: boolean;
  error?: string;
}

/** The worker thread running sql.js, called synchronously against a deadline. */
class SqliteWorker {
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  private readonly port: MessagePort;
  private readonly worker: Worker;
  stopped = false;

  constructor(deadline: number) {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { flag: this.flag.buffer, port: port2, sqlJs: require.resolve('sql.js') },
      transferList: [port2],
    });
    this.worker.unref();
    this.port.unref();
    this.await(deadline);
  }

  /** Sends a request and waits for its answer until `deadline` (ms since 1970). */
  call(request: Record<string, unknown>, deadline: number, transfer: ArrayBuffer[] = []): WorkerAnswer {
    Atomics.store(this.flag, 0, 0);
    this.port.postMessage(request, transfer);
    return this.await(deadline);
  }

  private await(deadline: number): WorkerAnswer {
    for (;;) {
      const remaining = deadline - Date.now();
      if (remaining <= 0 || Atomics.wait(this.flag, 0, 0, remaining) === 'timed-out') {
        this.stop();
        throw new ReadTimeout();
      }
      const answer = receiveMessageOnPort(this.port);
      if (answer) {
        const message = answer.message as WorkerAnswer;
        if (!message.ok) throw new Error(message.error ?? 'SQLite failed');
        return message;
      }
      // Raised before the message arrived on this side: wait for it a little longer.
      Atomics.store(this.flag, 0, 0);
    }
  }

  /** Resolves once the worker has stopped: until then it may still be reading a copy. */
  terminated: Promise<unknown> = Promise.resolve();

  stop(): void {
    this.stopped = true;
    this.terminated = this.worker.terminate();
  }
}

/** A database that did not answer within its budget: abandoned, every later query of it fails so too. */
export class ReadTimeout extends Error {
  constructor() {
    super(
      `took longer than ${sourceReadBudgetMs() / 1000} s to read (BOURDON_SOURCE_READ_TIMEOUT sets the limit in seconds); skipped`,
    );
  }
}

let shared: SqliteWorker | undefined;

/** The process's worker, started (within `deadline`) when there is none or the last one was stopped. */
function sqliteWorker(deadline: number): SqliteWorker {
  if (!shared || shared.stopped) {
    // sql.js's WebAssembly compiled by V8's baseline compiler alone: optimising SQLite's 0.7 MB of
    // code in the background cost a cursor export 0.5-0.8 s of CPU and 15-30 MB at its peak, more
    // than the faster code saved (bench/README.md, "SQLite participants"). The flag is the
    // process's, read when a module is compiled: set before the worker compiles sql.js.
    setFlagsFromString('--liftoff-only');
    shared = new SqliteWorker(deadline);
  }
  return shared;
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
   * The rows of a query, one at a time, handed over from SQLite in batches: a scan whose rows are
   * not kept costs the memory of a batch. Leaving the loop early frees the statement.
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
  let worker: SqliteWorker | undefined;
  let released = false;
  /** Closes the copy once nothing reads it: now, or when a stopped worker has finished stopping. */
  const release = (): void => {
    if (released) return;
    released = true;
    if (worker?.stopped) void worker.terminated.finally(() => closeSync(copy.fd));
    else closeSync(copy.fd);
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
    worker = sqliteWorker(deadline);
    const opened = worker;
    opened.call({ kind: 'open', fd: copy.fd, size: copy.size }, deadline);
    // A query's failure is SQLite's message (callers name the file), a timeout included.
    const all = (sql: string, params: SqlValue[] = []): Row[] =>
      opened.call({ kind: 'all', sql, params }, deadline).rows ?? [];
    function* rows(sql: string, params: SqlValue[] = []): Generator<Row> {
      let answer = opened.call({ kind: 'rows', sql, params }, deadline);
      try {
        for (;;) {
          yield* answer.rows ?? [];
          if (answer.done) return;
          answer = opened.call({ kind: 'more', id: answer.id }, deadline);
        }
      } finally {
        if (!answer.done && !opened.stopped) opened.call({ kind: 'free', id: answer.id }, deadline);
      }
    }
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
          if (!opened.stopped) opened.call({ kind: 'close' }, Date.now() + sourceReadBudgetMs());
        } finally {
          release();
        }
      },
    };
  } catch (error) {
    try {
      if (worker && !worker.stopped) worker.call({ kind: 'close' }, Date.now() + sourceReadBudgetMs());
    } finally {
      release();
    }
    if (error instanceof BourdonError) throw error;
    // The worker knows only the bytes, so its reasons never name the file: this names it.
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
