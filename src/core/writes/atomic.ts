/**
 * Durable small-file writes shared by the manifests, history, staging, the registry and the
 * peers file: a temp file in the same folder, every byte written, fsync, rename over the
 * target. A crash leaves the old file or the new one, never a torn one.
 *
 * This replaces `write-file-atomic`'s sync writer, which ignores a short write(2): on a disk
 * that fills up mid-write it renamed a truncated temp file over the target (measured on a
 * 64 KiB tmpfs: a 100 KiB write left a 60 KiB file and no error). Here a short write is
 * continued, so a full disk surfaces as ENOSPC and the target is left untouched.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BourdonError, describeError } from '../errors.js';

export interface ReplaceOptions {
  /** fsync the temp file before the rename (default true). */
  fsync?: boolean;
  /** The file's mode (exact, not masked by the umask); default: an existing file's own mode, else 0o666 less the umask. */
  mode?: number;
}

/** `<name>.<digits>.tmp`: the temp-file shape the writers' sweeps recognise and remove after a crash. */
function tempName(target: string): string {
  return `${target}.${crypto.randomBytes(4).readUInt32BE(0)}.tmp`;
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
export function writeAll(fd: number, data: Buffer): void {
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
export function replaceFileSync(target: string, data: Buffer | string, options: ReplaceOptions = {}): void {
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
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 5) throw error;
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
    throw new BourdonError(`cannot write ${target}: ${describeError(error)}; the file is unchanged`);
  }
}
