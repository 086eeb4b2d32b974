/**
 * A file writer that fails on purpose, for the fault tests: it wraps the real one (the seam is
 * `OperationContext.files`) and makes its N-th operation fail the way a full disk or a
 * read-only file system does.
 *
 * - `ENOSPC`: the error is the kernel's own, from a write to /dev/full (a synthetic one where
 *   there is no /dev/full). Before failing, it leaves what a disk filling up mid-write leaves:
 *   half of the bytes in a temp file next to the target (for a replace — harsher than the real
 *   writer, which removes its temp file), or half of the line appended (for an index append).
 * - `EROFS`: nothing is written; the error is shaped like Node's.
 *
 * Reads (`readFile`, `readDir`) are not counted in `calls`; `failReads` makes every read of a
 * path it accepts fail with the given code (EIO, EMFILE, EACCES), as a failing disk, a process
 * out of descriptors or a changed permission does.
 */
import fs from 'node:fs';
import { REAL_FILES, type LibraryFiles } from '../../src/core/fs/atomic.js';

export type Fault = 'ENOSPC' | 'EROFS';
export type ReadFault = 'EIO' | 'EMFILE' | 'EACCES';

const READ_MESSAGES: Record<ReadFault, string> = {
  EIO: 'i/o error',
  EMFILE: 'too many open files',
  EACCES: 'permission denied',
};

/** The errno Node gives each (os.constants.errno, negated as libuv reports it). */
const READ_ERRNOS: Record<ReadFault, number> = { EIO: -5, EMFILE: -24, EACCES: -13 };

export interface WriterCall {
  kind: 'replace' | 'append';
  target: string;
}

function kernelEnospc(): NodeJS.ErrnoException {
  let fd: number | null = null;
  try {
    fd = fs.openSync('/dev/full', 'w');
    fs.writeSync(fd, Buffer.from('x'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOSPC') return error as NodeJS.ErrnoException;
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
  return Object.assign(new Error('ENOSPC: no space left on device, write'), {
    code: 'ENOSPC',
    errno: -28,
    syscall: 'write',
  });
}

export class FaultyWriter implements LibraryFiles {
  readonly calls: WriterCall[] = [];
  /** Index (in `calls`) of the operation that fails; null: none fails. */
  failAt: number | null;
  fault: Fault;
  failed: WriterCall | null = null;
  /** Reads that fail: of the paths `match` accepts, with `code`. */
  failReads: { match: (file: string) => boolean; code: ReadFault } | null = null;

  constructor(failAt: number | null = null, fault: Fault = 'ENOSPC') {
    this.failAt = failAt;
    this.fault = fault;
  }

  private shouldFail(call: WriterCall): boolean {
    this.calls.push(call);
    if (this.failAt === null || this.calls.length - 1 !== this.failAt) return false;
    this.failed = call;
    return true;
  }

  private error(target: string): NodeJS.ErrnoException {
    if (this.fault === 'ENOSPC') return kernelEnospc();
    return Object.assign(new Error(`EROFS: read-only file system, open '${target}'`), {
      code: 'EROFS',
      errno: -30,
      syscall: 'open',
      path: target,
    });
  }

  replaceFile(target: string, data: Buffer | string, options: { fsync: boolean }): void {
    if (!this.shouldFail({ kind: 'replace', target })) return REAL_FILES.replaceFile(target, data, options);
    if (this.fault === 'ENOSPC') {
      const bytes = Buffer.from(data);
      fs.writeFileSync(`${target}.${1000 + this.calls.length}.tmp`, bytes.subarray(0, Math.floor(bytes.length / 2)));
    }
    throw this.error(target);
  }

  appendFile(file: string, data: string): void {
    if (!this.shouldFail({ kind: 'append', target: file })) return REAL_FILES.appendFile(file, data);
    if (this.fault === 'ENOSPC') fs.appendFileSync(file, data.slice(0, Math.floor(data.length / 2)));
    throw this.error(file);
  }

  private readError(file: string, syscall: string): NodeJS.ErrnoException | null {
    if (!this.failReads?.match(file)) return null;
    const code = this.failReads.code;
    return Object.assign(new Error(`${code}: ${READ_MESSAGES[code]}, ${syscall} '${file}'`), {
      code,
      errno: READ_ERRNOS[code],
      syscall,
      path: file,
    });
  }

  readFile(file: string): Buffer {
    const error = this.readError(file, 'open');
    if (error) throw error;
    return REAL_FILES.readFile(file);
  }

  readDir(dir: string): string[] {
    const error = this.readError(dir, 'scandir');
    if (error) throw error;
    return REAL_FILES.readDir(dir);
  }
}
