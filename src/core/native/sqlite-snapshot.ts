/**
 * The committed content of an agent's SQLite database, taken without SQLite's locks: a private
 * copy of the file (a kernel copy, a clone where the file system has them, so the bytes never
 * pass through this process's memory), its write-ahead log's committed pages written in, checked
 * not to have raced a writer. The copy is unlinked as soon as it is open: nothing is left behind
 * in the temp folder, even if the process dies, and only its descriptor reaches the reader
 * (sqlite.ts), which reads the pages SQLite asks for, when it asks.
 */
import { closeSync, constants, fstatSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { copyFile, mkdtemp, open, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { walCommit } from './sqlite-wal.js';
import { errnoOf } from '../errors.js';

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

/** A private, unlinked copy of the database: its descriptor (the caller closes it) and size. */
export interface Snapshot {
  readonly fd: number;
  readonly size: number;
}

/** Reads of a database caught mid-write are retried this many times, this far apart. */
const SNAPSHOT_ATTEMPTS = 4;
const SNAPSHOT_RETRY_MS = 50;
const JOURNAL_MAGIC = Buffer.from([0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]);
/** Bytes 18 and 19 of the header: the write and read format versions, 1 = rollback journal, 2 = WAL. */
const FORMAT_VERSIONS_AT = 18;

async function readIfPresent(file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(file);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/** Identity of a file's current content as far as stat tells it ('' when absent). */
export async function fingerprint(file: string): Promise<string> {
  try {
    const info = await stat(file, { bigint: true });
    return `${info.size}:${info.mtimeNs}:${info.ctimeNs}:${info.ino}`;
  } catch {
    return '';
  }
}

/** True when a rollback journal holds pages of a transaction still being written (a hot journal). */
async function hotJournal(journal: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(journal, 'r');
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

/** The files' state, read before and after the copy: equal twice over means no writer ran between. */
async function stamps(files: DatabaseFiles): Promise<string> {
  const wal = files.wal === undefined ? '' : await fingerprint(files.wal);
  return `${await fingerprint(files.main)}|${wal}`;
}

/**
 * Writes the log's committed pages into the copy (`fd`), sized as the last commit left the
 * database, and marks the copy a rollback-journal database, so SQLite opens it alone, as it is.
 */
function foldInto(fd: number, wal: Buffer | undefined): void {
  const commit = wal && walCommit(wal);
  if (commit) {
    ftruncateSync(fd, commit.pages * commit.pageSize);
    for (const [page, bytes] of commit.frames) {
      if (page <= commit.pages) writeSync(fd, bytes, 0, bytes.length, (page - 1) * commit.pageSize);
    }
  }
  const versions = Buffer.alloc(2);
  if (readSync(fd, versions, 0, 2, FORMAT_VERSIONS_AT) === 2 && versions[0] === 2 && versions[1] === 2) {
    writeSync(fd, Buffer.from([1, 1]), 0, 2, FORMAT_VERSIONS_AT);
  }
}

/**
 * The database's committed content, as a private copy. A copy that raced a writer (the database
 * or its log changed while it was taken, or a rollback journal is hot) is taken again; a database
 * still mid-write after that is refused rather than read torn.
 */
export async function snapshot(files: DatabaseFiles): Promise<Snapshot> {
  const folder = await mkdtemp(path.join(tmpdir(), 'bourdon-db-'));
  const copyPath = path.join(folder, 'copy.db');
  try {
    for (let attempt = 1; ; attempt++) {
      const before = await stamps(files);
      const wal = files.wal === undefined ? undefined : await readIfPresent(files.wal);
      await copyFile(files.main, copyPath, constants.COPYFILE_FICLONE);
      const settled =
        (await stamps(files)) === before && !(files.journal !== undefined && (await hotJournal(files.journal)));
      if (settled) {
        // A plain descriptor, not a FileHandle (which would close it when collected): the reader's.
        const fd = openSync(copyPath, 'r+');
        try {
          foldInto(fd, wal);
          // Unlinked while open (on Windows too: Node opens with FILE_SHARE_DELETE): nothing to clean up later.
          await rm(folder, { recursive: true, force: true });
          return { fd, size: fstatSync(fd).size };
        } catch (error) {
          closeSync(fd);
          throw error;
        }
      }
      if (attempt >= SNAPSHOT_ATTEMPTS)
        throw new Error('it is being written (a transaction is in progress); try again');
      await pause(SNAPSHOT_RETRY_MS * attempt);
    }
  } finally {
    await rm(folder, { recursive: true, force: true }).catch(() => undefined);
  }
}
