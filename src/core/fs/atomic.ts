/**
 * Durable small-file writes shared by the manifests, history, staging, the registry and the
 * peers file: a temp file in the same folder, every byte written, fsync, rename over the
 * target. A crash leaves the old file or the new one, never a torn one. Also the seam the
 * library's write path does its file operations through (`LibraryFiles`), the sweep of temp
 * files left by a killed writer, and the folder fsync.
 *
 * This replaces `write-file-atomic`'s sync writer, which ignores a short write(2): on a disk
 * that fills up mid-write it renamed a truncated temp file over the target (measured on a
 * 64 KiB tmpfs: a 100 KiB write left a 60 KiB file and no error). Here a short write is
 * continued, so a full disk surfaces as ENOSPC and the target is left untouched.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BourdonError, describeError, errnoOf, readFailureCode } from '../errors.js';

interface ReplaceOptions {
  /** fsync the temp file before the rename (default true). */
  fsync?: boolean;
  /** The file's mode (exact, not masked by the umask); default: an existing file's own mode, else 0o666 less the umask. */
  mode?: number;
}

/**
 * `<name>.<digits>.tmp`: the temp-file shape the writers' sweeps recognise and remove after a
 * crash. The digits only keep two writers apart, never a secret: the temp file is created with
 * O_EXCL (an existing path, a link included, is never opened; another name is tried), so
 * Math.random serves, and a one-shot write need not load node:crypto (bench/README.md).
 */
function tempName(target: string): string {
  return `${target}.${Math.floor(Math.random() * 0x1_0000_0000)}.tmp`;
}

/**
 * Whether `name` is a temp file of `base` left by a writer that died: ours
 * (`<base>.<digits>.tmp`) or, with `legacy`, write-file-atomic's (`<base>.<digits>`), which
 * earlier versions used in the library folders.
 */
export function isTempOf(name: string, base: string, legacy = false): boolean {
  if (!name.startsWith(`${base}.`)) return false;
  const rest = name.slice(base.length);
  return /^\.\d+\.tmp$/.test(rest) || (legacy && /^\.\d+$/.test(rest));
}

/** Writes all of `data` to `fd`, continuing after short writes (a disk filling up returns one first). */
function writeAll(fd: number, data: Buffer): void {
  let offset = 0;
  while (offset < data.length) {
    const written = fs.writeSync(fd, data, offset, data.length - offset);
    if (written <= 0) throw Object.assign(new Error(`write returned ${written}`), { code: 'EIO' });
    offset += written;
  }
}

/**
 * Replaces `target` with `data` atomically. A symbolic link at `target` is written through to
 * the file it names (as write-file-atomic did; a dotfiles manager may link the registry); the
 * manifest writers refuse links before they get here. On any error the temp file is removed
 * and the target is unchanged.
 */
function replaceFileSync(target: string, data: Buffer | string, options: ReplaceOptions = {}): void {
  let file = target;
  try {
    file = fs.realpathSync(target);
  } catch {
    // not there yet
  }
  let existing: fs.Stats | null;
  try {
    existing = fs.statSync(file);
  } catch {
    existing = null;
  }
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const mode = options.mode ?? (existing ? existing.mode & 0o7777 : undefined);
  let temp = tempName(file);
  let fd: number | null = null;
  for (let attempt = 0; fd === null; attempt++) {
    try {
      fd = fs.openSync(temp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, mode ?? 0o666);
    } catch (error) {
      if (errnoOf(error) !== 'EEXIST' || attempt >= 5) throw error;
      temp = tempName(file);
    }
  }
  let done = false;
  try {
    writeAll(fd, bytes);
    if (options.fsync ?? true) fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = null;
    // The mode given to open() is masked by the umask: set it exactly, as write-file-atomic did.
    if (mode !== undefined) fs.chmodSync(temp, mode);
    if (existing) {
      try {
        fs.chownSync(temp, existing.uid, existing.gid); // keep the owner, when permitted
      } catch {
        // not permitted here: the file keeps the writer's ownership
      }
    }
    fs.renameSync(temp, file);
    done = true;
  } finally {
    if (fd !== null) {
      try {
        fs.closeSync(fd);
      } catch {
        // already failing; the write error is the one to report
      }
    }
    if (!done) {
      try {
        fs.unlinkSync(temp);
      } catch {
        // never created, or already gone
      }
    }
  }
}

/** A config file (registry, peers) replaced durably; a failure says which file, and that it is unchanged. */
export function writeFileDurably(target: string, data: string, mode = 0o644): void {
  try {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    replaceFileSync(target, data, { fsync: true, mode });
  } catch (error) {
    throw new BourdonError(`cannot write ${target}: ${describeError(error)}; the file is unchanged`, 'unavailable');
  }
}

/**
 * A file of the user's own (an agent's settings or hooks file) as text; null when there is none.
 * Any other failure is the command's error, with the system's reason.
 */
export function readUserFile(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return null;
    throw new BourdonError(`cannot read ${file}: ${describeError(error)}`, readFailureCode(error));
  }
}

/** A file of the user's own replaced durably, keeping its mode; a new one is private to the user. */
export function writeUserFile(file: string, text: string): void {
  let mode = 0o600;
  try {
    mode = fs.statSync(file).mode & 0o777;
  } catch {
    // a new file: private to the user, as the agents' own
  }
  writeFileDurably(file, text, mode);
}

/** fsync of a folder, so a rename in it survives a crash of the machine. */
export function fsyncDir(dir: string): void {
  let fd: number | null = null;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // some platforms cannot fsync a directory; the rename is still atomic
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}

/**
 * The file operations the library's write path (manifests, history, staging) goes through.
 * Injectable (through `OperationContext.files`) so that tests can make them fail honestly — a
 * full disk, a read-only file system, an unreadable index — at any step; the default is the
 * real thing.
 */
export interface LibraryFiles {
  /**
   * Replaces `target` with `data`: a temp file in the same folder, fsync (unless told not to),
   * rename. `mode`: the new file's exact mode (default: an existing file's, else 0o666 less the umask).
   */
  replaceFile(target: string, data: Buffer | string, options: { fsync: boolean; mode?: number }): void;
  /** Appends `data` to `file` (created when missing) in one write(2) on an O_APPEND descriptor, then fsyncs. */
  appendFile(file: string, data: string): void;
  /** A whole file's bytes (history reads: the index, the pending record, archives). */
  readFile(file: string): Buffer;
  /** The names in a folder (history reads: the archived versions). */
  readDir(dir: string): string[];
}

export const REAL_FILES: LibraryFiles = {
  replaceFile(target, data, options) {
    replaceFileSync(target, data, { fsync: options.fsync, mode: options.mode });
  },
  appendFile(file, data) {
    const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT, 0o644);
    try {
      writeAll(fd, Buffer.from(data, 'utf8'));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  },
  readFile(file) {
    return fs.readFileSync(file);
  },
  readDir(dir) {
    return fs.readdirSync(dir);
  },
};

/** Whether a file ends without a newline (a line torn by a crash). */
function endsTorn(file: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return false;
    throw error;
  }
  try {
    const size = fs.fstatSync(fd).size;
    if (size === 0) return false;
    const last = Buffer.alloc(1);
    fs.readSync(fd, last, 0, 1, size - 1);
    return last[0] !== 0x0a;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Appends `line` and a newline to `file` in one write. A line torn by a crash has no newline:
 * this one then starts on a fresh line, so it stays whole. Only under the lock that guards the
 * file (nobody may append between the check and the write).
 */
export function appendWholeLine(file: string, line: string, writer: LibraryFiles = REAL_FILES): void {
  const prefix = endsTorn(file) ? '\n' : '';
  writer.appendFile(file, prefix + line + '\n');
}

/**
 * temp file + fsync + rename (+ fsync of the folder): a crash leaves old or new, never torn.
 * `syncDir: false` leaves the folder's fsync to the caller, who does it once for several files.
 */
export function writeDurable(
  target: string,
  data: Buffer | string,
  options: { syncDir?: boolean; fsync?: boolean; mode?: number; writer?: LibraryFiles } = {},
): void {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  (options.writer ?? REAL_FILES).replaceFile(target, data, { fsync: options.fsync ?? true, mode: options.mode });
  if (options.syncDir ?? true) fsyncDir(path.dirname(target));
}

/** Removes a file that may already be gone. */
export function removeQuietly(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch {
    // already gone
  }
}

/**
 * Removes temporary files (`<name>.<digits>.tmp`, and write-file-atomic's `<name>.<digits>` from
 * earlier versions) that a writer killed mid-write left behind in `dir`, for the names `belongs`
 * accepts. Only safe under the lock that guards those files, where no other writer is active.
 */
export function sweepAtomicTemps(dir: string, belongs: (name: string) => boolean): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (/\.\d+(?:\.tmp)?$/.test(name) && belongs(name)) removeQuietly(path.join(dir, name));
  }
}
