/**
 * Bounded, confined reading of an agent's native files, for every participant. A native store
 * is the user's, not ours: it may hold binary junk, huge files, FIFOs or symbolic links that
 * lead anywhere. Every read here is capped (bytes per file, entries per folder), never follows a
 * link out of the roots the export may read (the home, and any source root the user named), and
 * reads regular files only; anything else is skipped with a one-line reason. Nothing is written.
 */
import fs from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';

/** Largest part of a text file (Markdown, JSON) read; its first bytes hold what we export. */
export const MAX_TEXT_BYTES = 4 * 1024 * 1024;
/** Largest part of a JSONL file read. */
export const MAX_JSONL_BYTES = 64 * 1024 * 1024;
/** Longest JSONL line parsed; longer lines are skipped. */
export const MAX_JSONL_LINE_BYTES = 4 * 1024 * 1024;
/** Most entries of one folder looked at. */
export const MAX_DIR_ENTRIES = 20_000;

/** Where an export may read, and where it tells what it skipped. */
export class SourceReader {
  private readonly roots: string[];
  readonly warnings: string[] = [];

  /** `roots`: folders whose real paths bound every read (the home, source folders the user named). */
  constructor(roots: readonly string[]) {
    this.roots = [];
    for (const root of roots) this.allow(root);
  }

  /** Adds a root (a source the user named explicitly, e.g. CLAUDE_BRAIN or --file's folder). */
  allow(root: string): void {
    const real = realOrNull(root);
    if (real && !this.roots.includes(real)) this.roots.push(real);
  }

  warn(message: string): void {
    if (!this.warnings.includes(message)) this.warnings.push(message);
  }

  /** The real path of `file` when it lies within a root; null (with a warning) otherwise. */
  private confined(file: string): string | null {
    let real: string;
    try {
      real = fs.realpathSync.native(file);
    } catch (error) {
      // Missing is ordinary (a source not on this machine); a link cycle is worth saying.
      if ((error as NodeJS.ErrnoException).code === 'ELOOP') this.warn(`${file}: skipped, a symbolic link loop`);
      return null;
    }
    const inside = this.roots.some((root) => real === root || real.startsWith(root + path.sep));
    if (!inside) {
      this.warn(`${file}: skipped, it leads outside the folders an export reads`);
      return null;
    }
    return real;
  }

  /** Stats of a regular file or folder within the roots; null when missing or elsewhere. */
  stat(target: string): fs.Stats | null {
    const real = this.confined(target);
    if (!real) return null;
    try {
      return fs.statSync(real);
    } catch {
      return null;
    }
  }

  isDir(target: string): boolean {
    return this.stat(target)?.isDirectory() ?? false;
  }

  isFile(target: string): boolean {
    return this.stat(target)?.isFile() ?? false;
  }

  /** Names in a folder, sorted by code point (Python's order); [] when it cannot be listed. */
  list(dir: string): string[] {
    const real = this.confined(dir);
    if (!real) return [];
    let names: string[];
    try {
      names = fs.readdirSync(real);
    } catch {
      return [];
    }
    if (names.length > MAX_DIR_ENTRIES) {
      this.warn(`${dir}: ${names.length} entries; only the first ${MAX_DIR_ENTRIES} by name are read`);
    }
    return names.sort(byCodePoint).slice(0, MAX_DIR_ENTRIES);
  }

  /**
   * A text file's content (UTF-8, invalid bytes replaced, newlines normalised as Python's
   * text mode does); at most MAX_TEXT_BYTES of it. null when missing, not a regular file, or
   * outside the roots.
   */
  readText(file: string, maxBytes = MAX_TEXT_BYTES): string | null {
    const bytes = this.readBytes(file, maxBytes);
    return bytes ? normaliseNewlines(new StringDecoder('utf8').end(bytes)) : null;
  }

  /**
   * A whole JSON document (a state or config file), parsed; undefined, with a one-line warning
   * naming the file, when it is not a regular file, larger than `maxBytes`, not valid UTF-8 or
   * not valid JSON — a cut or re-encoded document would not be the one the agent wrote.
   * undefined without a warning when it is missing.
   */
  readJson(file: string, maxBytes = MAX_TEXT_BYTES): { value: unknown } | undefined {
    const info = this.stat(file);
    if (!info) return undefined;
    if (!info.isFile()) {
      this.warn(`${file}: skipped, not a regular file`);
      return undefined;
    }
    if (info.size > maxBytes) {
      this.warn(`${file}: skipped, ${info.size} bytes (more than the ${maxBytes} read from a JSON file)`);
      return undefined;
    }
    const bytes = this.readBytes(file, maxBytes);
    if (!bytes) return undefined;
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      this.warn(`${file}: skipped, not valid UTF-8`);
      return undefined;
    }
    try {
      return { value: JSON.parse(text) as unknown };
    } catch (error) {
      this.warn(`${file}: skipped, not valid JSON (${(error as Error).message.split('\n')[0]})`);
      return undefined;
    }
  }

  /** A regular file's first `maxBytes` bytes; null when missing, not a regular file, elsewhere or unreadable. */
  private readBytes(file: string, maxBytes: number): Buffer | null {
    const real = this.confined(file);
    if (!real) return null;
    let fd: number;
    try {
      fd = fs.openSync(real, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
    } catch {
      return null;
    }
    try {
      const info = fs.fstatSync(fd);
      if (!info.isFile()) return null;
      const size = Math.min(info.size, maxBytes);
      if (info.size > maxBytes) this.warn(`${file}: ${info.size} bytes; only the first ${maxBytes} are read`);
      const buffer = Buffer.alloc(size);
      let read = 0;
      while (read < size) {
        const n = fs.readSync(fd, buffer, read, size - read, read);
        if (n === 0) break;
        read += n;
      }
      return buffer.subarray(0, read);
    } catch (error) {
      this.warn(`${file}: unreadable (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
      return null;
    } finally {
      fs.closeSync(fd);
    }
  }

  /**
   * The lines of a JSONL file, one at a time: at most MAX_JSONL_BYTES read, lines longer than
   * MAX_JSONL_LINE_BYTES skipped. Yields nothing when the file cannot be read.
   */
  *jsonlLines(file: string): Generator<string> {
    const real = this.confined(file);
    if (!real) return;
    let fd: number;
    try {
      fd = fs.openSync(real, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
    } catch {
      return;
    }
    try {
      const info = fs.fstatSync(fd);
      if (!info.isFile()) return;
      if (info.size > MAX_JSONL_BYTES)
        this.warn(`${file}: ${info.size} bytes; only the first ${MAX_JSONL_BYTES} are read`);
      const chunk = Buffer.alloc(1024 * 1024);
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      let skipping = false;
      let offset = 0;
      const decoder = () => new StringDecoder('utf8');
      while (offset < MAX_JSONL_BYTES) {
        const n = fs.readSync(fd, chunk, 0, Math.min(chunk.length, MAX_JSONL_BYTES - offset), offset);
        if (n === 0) break;
        offset += n;
        let start = 0;
        for (
          let newline = chunk.indexOf(10, start);
          newline !== -1 && newline < n;
          newline = chunk.indexOf(10, start)
        ) {
          if (!skipping) {
            pending.push(Buffer.from(chunk.subarray(start, newline)));
            yield decoder().end(Buffer.concat(pending)).replace(/\r$/, '');
          }
          pending = [];
          pendingBytes = 0;
          skipping = false;
          start = newline + 1;
        }
        if (start < n && !skipping) {
          pendingBytes += n - start;
          if (pendingBytes > MAX_JSONL_LINE_BYTES) {
            this.warn(`${file}: a line longer than ${MAX_JSONL_LINE_BYTES} bytes was skipped`);
            skipping = true;
            pending = [];
          } else pending.push(Buffer.from(chunk.subarray(start, n)));
        }
      }
      if (!skipping && pending.length) yield decoder().end(Buffer.concat(pending)).replace(/\r$/, '');
    } finally {
      fs.closeSync(fd);
    }
  }
}

function realOrNull(target: string): string | null {
  try {
    return fs.realpathSync.native(target);
  } catch {
    return null;
  }
}

/** Python's text mode: \r\n and lone \r read as \n. */
export function normaliseNewlines(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

/** Python's string order (code points), not JavaScript's (UTF-16 units). */
export function byCodePoint(a: string, b: string): number {
  if (a === b) return 0;
  const left = [...a];
  const right = [...b];
  const n = Math.min(left.length, right.length);
  for (let i = 0; i < n; i += 1) {
    const d = left[i].codePointAt(0)! - right[i].codePointAt(0)!;
    if (d !== 0) return d;
  }
  return left.length - right.length;
}

/** Last modified of a path, ISO 8601; undefined when it does not exist. */
export function modifiedAt(target: string): string | undefined {
  try {
    return fs.statSync(target).mtime.toISOString();
  } catch {
    return undefined;
  }
}
