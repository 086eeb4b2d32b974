/**
 * Read-only access to an agent's SQLite database. The file's bytes (and its write-ahead log, when
 * the agent runs in WAL mode) are read once and the database is opened in memory with sql.js
 * (SQLite compiled to WebAssembly), so the running agent's file is never opened by SQLite, never
 * locked and never written, and no native build is needed on install. docs/participants-sqlite.md
 * has the measurement behind the choice.
 *
 * A database is a source read bounded in time: a 16 KB file whose generated column is costly
 * can keep SQLite busy for minutes in one step. So SQLite runs in a worker thread, answering
 * each call synchronously (the participants' reads stay plain calls), and a database that has
 * not answered everything within its budget (`sourceReadBudgetMs`: 20 s, BOURDON_SOURCE_READ_TIMEOUT
 * overrides it) is abandoned: the worker is stopped, the read fails with one line, the export
 * goes on without it. One worker serves every database of a process, one after the other.
 */
import type * as FsPromises from 'node:fs/promises';
import { createRequire } from 'node:module';
import type * as WorkerThreads from 'node:worker_threads';
import type { SqlValue } from 'sql.js';
import { foldWriteAheadLog } from './sqlite-wal.js';
import { BourdonError, errnoOf } from '../errors.js';
import { lazy } from '../lazy.js';

const require = createRequire(import.meta.url);
// Loaded on first use: every participant reaches this module (participants/kit/source-reader.ts),
// and an export that opens no database need not load worker threads (bench/README.md).
const threads = lazy(() => require('node:worker_threads') as typeof WorkerThreads);
const fsp = lazy(() => require('node:fs/promises') as typeof FsPromises);

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
const flag = new Int32Array(workerData.flag);
const port = workerData.port;
function reply(message) { port.postMessage(message); Atomics.store(flag, 0, 1); Atomics.notify(flag, 0); }
let db;
require(workerData.sqlJs)().then((SQL) => {
  port.on('message', (request) => {
    try {
      if (request.kind === 'open') {
        db?.close();
        db = new SQL.Database(new Uint8Array(request.bytes));
        reply({ ok: true });
      } else if (request.kind === 'all') {
        const statement = db.prepare(request.sql, request.params);
        const rows = [];
        try { while (statement.step()) rows.push(statement.getAsObject()); } finally { statement.free(); }
        reply({ ok: true, rows });
      } else {
        db?.close();
        db = undefined;
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
  error?: string;
}

/** The worker thread running sql.js, called synchronously against a deadline. */
class SqliteWorker {
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  private readonly port: WorkerThreads.MessagePort;
  private readonly worker: WorkerThreads.Worker;
  stopped = false;

  constructor(deadline: number) {
    const { port1, port2 } = new (threads().MessageChannel)();
    this.port = port1;
    this.worker = new (threads().Worker)(WORKER_SOURCE, {
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
      const answer = threads().receiveMessageOnPort(this.port);
      if (answer) {
        const message = answer.message as WorkerAnswer;
        if (!message.ok) throw new Error(message.error ?? 'SQLite failed');
        return message;
      }
      // Raised before the message arrived on this side: wait for it a little longer.
      Atomics.store(this.flag, 0, 0);
    }
  }

  stop(): void {
    this.stopped = true;
    void this.worker.terminate();
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
  if (!shared || shared.stopped) shared = new SqliteWorker(deadline);
  return shared;
}

/** Largest database (with its log) read into memory; a larger one is reported and skipped. */
const MAX_DATABASE_BYTES = 256 * 1024 * 1024;
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
    return await fsp().readFile(path);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/** Identity of a file's current content as far as stat tells it ('' when absent). */
async function fingerprint(path: string): Promise<string> {
  try {
    const info = await fsp().stat(path);
    return `${info.size}:${info.mtimeMs}:${info.ino}`;
  } catch {
    return '';
  }
}

/** True when a rollback journal holds pages of a transaction still being written (a hot journal). */
async function hotJournal(journal: string): Promise<boolean> {
  let handle;
  try {
    handle = await fsp().open(journal, 'r');
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
 * The files one database is read from: the database itself and, beside it, its write-ahead log
 * and rollback journal. A reader that confines what it reads (participants/kit/source-reader.ts,
 * confined-reads.ts) passes the paths it allowed, and undefined for a companion it refused: read
 * as if absent.
 */
export interface DatabaseFiles {
  readonly main: string;
  readonly wal: string | undefined;
  readonly journal: string | undefined;
}

/** The files SQLite itself would read for the database at `path`. */
function filesBeside(path: string): DatabaseFiles {
  return { main: path, wal: `${path}-wal`, journal: `${path}-journal` };
}

/**
 * The database's committed content: the main file with its write-ahead log folded in. A read
 * that races a writer (the log changed while we read, or a rollback journal is hot) is retried;
 * a database still mid-write after that is refused rather than read torn.
 */
async function snapshot(files: DatabaseFiles): Promise<Buffer> {
  for (let attempt = 1; ; attempt++) {
    const walBefore = files.wal === undefined ? '' : await fingerprint(files.wal);
    const wal = files.wal === undefined ? undefined : await readIfPresent(files.wal);
    const main = await fsp().readFile(files.main);
    const settled =
      (files.wal === undefined ? '' : await fingerprint(files.wal)) === walBefore &&
      !(files.journal !== undefined && (await hotJournal(files.journal)));
    if (settled) return wal ? foldWriteAheadLog(main, wal) : main;
    if (attempt >= SNAPSHOT_ATTEMPTS) throw new Error('it is being written (a transaction is in progress); try again');
    await pause(SNAPSHOT_RETRY_MS * attempt);
  }
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
  let bytes: Buffer;
  try {
    const info = await fsp().stat(files.main);
    const walSize =
      files.wal === undefined
        ? 0
        : ((
            await fsp()
              .stat(files.wal)
              .catch(() => undefined)
          )?.size ?? 0);
    if (!info.isFile()) throw new Error('not a regular file');
    if (info.size + walSize > MAX_DATABASE_BYTES) throw new Error(`larger than ${MAX_DATABASE_BYTES} bytes`);
    bytes = await snapshot(files);
  } catch (error) {
    throw new BourdonError(`${path}: ${oneLine(error)}`, 'source_unreadable', { cause: error });
  }
  // SQLite treats an empty file as an empty database; anything else must carry its header.
  if (bytes.length > 0 && !bytes.subarray(0, 16).equals(SQLITE_MAGIC)) {
    throw new BourdonError(`${path}: not a SQLite database`, 'source_unreadable');
  }
  let worker: SqliteWorker | undefined;
  try {
    worker = sqliteWorker(deadline);
    const opened = worker;
    const copy = new Uint8Array(bytes).buffer;
    opened.call({ kind: 'open', bytes: copy }, deadline, [copy]);
    // A query's failure is SQLite's message (callers name the file), a timeout included.
    const all = (sql: string, params: SqlValue[] = []): Row[] =>
      opened.call({ kind: 'all', sql, params }, deadline).rows ?? [];
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
      close: () => {
        if (!opened.stopped) opened.call({ kind: 'close' }, Date.now() + sourceReadBudgetMs());
      },
    };
  } catch (error) {
    if (worker && !worker.stopped) worker.call({ kind: 'close' }, Date.now() + sourceReadBudgetMs());
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
