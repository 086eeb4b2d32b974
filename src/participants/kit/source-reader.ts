/**
 * Bounded, confined reading of an agent's native files, for every participant. A native store
 * is the user's, not ours: it may hold binary junk, huge files, FIFOs or symbolic links that
 * lead anywhere — and an export run in a repository's folder reads that folder too. Every read
 * here is capped (bytes per file, entries per folder), reads regular files only, and is
 * confined (docs/security.md, "What an export reads"):
 *
 * - A source root is the first path a participant asks about (a folder it lists, a file it
 *   reads) that no earlier one contains. It must lie in the folders an export may read (the
 *   home, and what the participant allowed: a folder the user named, the working folder's
 *   fallbacks); it may itself be a link (a brain folder kept in a synced drive).
 * - Every path below a source root is read only if its real path stays inside the root's real
 *   path: a link in a store that leads out of it (to ~/.pgpass, ~/.kube/config) is refused.
 *   That rule is core/native/confined-reads.ts (shared with the turn compiler); this reader
 *   decides which roots there are.
 * - A path a store's own file names (a rollout path in Codex's state database) may be held to
 *   that store (`namedIn`): read only when its real path lies inside it.
 * - A path that a file in the working folder names (`./.mcp.json` naming a graph) is read only
 *   if it stays inside the working folder (`namedBy`); a path the user gives explicitly is not
 *   subject to this.
 *
 * Each refusal is one warning naming the file, and so is a FIFO, a device or a socket where a
 * file is looked for (never opened), the same words for every participant. Nothing is written.
 */
import fs from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { compareCodePoints } from '../../core/native/python-values.js';
import {
  confinedDatabaseFiles,
  confinedPath,
  confinedStat,
  realOrNull,
  specialKind,
  warnIfSpecial,
  within,
} from '../../core/native/confined-reads.js';
import { openReadOnly, type ReadOnlyDatabase } from '../../core/native/sqlite.js';
import {
  jsonlLines,
  strippedLines,
  parsedRecords,
  universalLines,
  type JsonRecord,
  type JsonRecordOptions,
  type OpenSource,
} from './line-streams.js';
import { normaliseNewlines, replacedInvalidBytes } from './text-decoding.js';
import { errnoOf } from '../../core/errors.js';

/** Largest part of a text file (Markdown, JSON) read; its first bytes hold what we export. */
const MAX_TEXT_BYTES = 4 * 1024 * 1024;
/** Most entries of one folder looked at. */
const MAX_DIR_ENTRIES = 20_000;
/** Most files one walk of a folder tree returns. */
const MAX_WALK_FILES = 100_000;

export interface SourceReaderOptions {
  /** The folder the export runs in (default: the process's): what its files name stays in it. */
  readonly workingFolder?: string;
}

/** Where an export may read, and where it tells what it skipped. */
export class SourceReader {
  /** Folders sources may lie in, as given (resolved) and as their real paths. */
  private readonly bounds: string[] = [];
  /** The given roots: never a source root themselves (a whole home is no store). */
  private readonly given: Set<string>;
  /** Source roots, resolved, in the order they were first asked about. */
  private readonly sources: string[] = [];
  /** Paths refused because a working-folder file named them outside it. */
  private readonly refused = new Set<string>();
  /** Paths a store's own file named (`namedIn`), and the store they are read under. */
  private readonly namedStores = new Map<string, string>();
  private readonly workingFolder: string;
  readonly warnings: string[] = [];

  /** `roots`: folders sources may lie in (the home; source folders the user named). */
  constructor(roots: readonly string[], options: SourceReaderOptions = {}) {
    for (const root of roots) this.allow(root);
    this.given = new Set(roots.map((root) => path.resolve(root)));
    this.workingFolder = path.resolve(options.workingFolder ?? process.cwd());
  }

  /** Adds a folder sources may lie in (a source the user named explicitly, e.g. CLAUDE_BRAIN or --file's folder). */
  allow(root: string): void {
    for (const bound of [path.resolve(root), realOrNull(root)]) {
      if (bound && !this.bounds.includes(bound)) this.bounds.push(bound);
    }
  }

  /** Says `message` once (bound: the confinement rule, core/native/confined-reads.ts, says its refusals through it). */
  readonly warn = (message: string): void => {
    if (!this.warnings.includes(message)) this.warnings.push(message);
  };

  /**
   * Whether `target`, a path the file `namingFile` names, may be read: always when that file
   * lies outside the working folder (the user's own configuration), else only when the
   * target's real path stays inside the working folder's. A refused target is never read by
   * this reader, and named in one warning.
   */
  namedBy(target: string, namingFile: string): boolean {
    const work = realOrNull(this.workingFolder) ?? this.workingFolder;
    const naming = path.resolve(namingFile);
    if (!within(naming, this.workingFolder) && !within(realOrNull(naming) ?? naming, work)) return true;
    const resolved = path.resolve(target);
    if (within(realOrNull(resolved) ?? resolved, work)) return true;
    this.refused.add(resolved);
    if (fs.lstatSync(resolved, { throwIfNoEntry: false }))
      this.warn(`${target}: skipped, ${namingFile} names it but it lies outside the working folder`);
    return false;
  }

  /**
   * Whether `target`, a path a file of the store `store` names (a rollout path in Codex's state
   * database), may be read: only when its real path stays inside the store's, a stricter rule
   * than a source root of its own. A refused target is never read by this reader, and named in
   * one warning (`…: skipped, it leads outside <store>`).
   */
  namedIn(target: string, store: string): boolean {
    const resolved = path.resolve(target);
    if (confinedPath(target, store, this.warn) === undefined) {
      this.refused.add(resolved);
      return false;
    }
    this.namedStores.set(resolved, path.resolve(store));
    return true;
  }

  /** The source root `target` (resolved) is read under, registering it when it starts a new one. */
  private sourceRoot(target: string): string | null {
    // The shallowest source that holds it: a store listed after one of its files was read still bounds it.
    const holding = this.sources.filter((source) => within(target, source));
    if (holding.length) return holding.reduce((a, b) => (a.length <= b.length ? a : b));
    const real = realOrNull(target);
    const inBounds = this.bounds.some((bound) => within(target, bound) || (real !== null && within(real, bound)));
    if (!inBounds) return null;
    if (!this.given.has(target)) this.sources.push(target);
    return target;
  }

  /**
   * The source root `file` is read under; null (with a warning when it exists) when it may not
   * be read at all: a working-folder file named it outside, or it lies outside every bound.
   */
  private rootFor(file: string): string | null {
    const target = path.resolve(file);
    if (this.refused.has(target)) return null;
    const root = this.namedStores.get(target) ?? this.sourceRoot(target);
    if (root === null && realOrNull(target))
      this.warn(`${file}: skipped, it leads outside the folders an export reads`);
    return root;
  }

  /** The real path of `file` when it may be read (see the header); null (with a warning) otherwise. */
  private confined(file: string): string | null {
    const root = this.rootFor(file);
    return root === null ? null : (confinedPath(file, root, this.warn) ?? null);
  }

  /**
   * Stats of a path within the roots; null when missing or elsewhere. A FIFO, a device or a
   * socket is named in one warning (confined-reads.ts), whichever participant meets it.
   */
  stat(target: string): fs.Stats | null {
    const root = this.rootFor(target);
    return root === null ? null : (confinedStat(target, root, this.warn) ?? null);
  }

  isDir(target: string): boolean {
    return this.stat(target)?.isDirectory() ?? false;
  }

  isFile(target: string): boolean {
    return this.stat(target)?.isFile() ?? false;
  }

  /**
   * Names in a folder; [] when it cannot be listed. Sorted by code point (Python's `sorted()`),
   * or with `order: 'listing'` in the order the file system returns them — what the engine's
   * `iterdir()`, `glob()` and `os.scandir()` give, which its unsorted walks keep (a stable sort
   * later leaves ties in it). At most MAX_DIR_ENTRIES are read, said once.
   */
  list(dir: string, options: { order?: 'sorted' | 'listing'; maxEntries?: number } = {}): string[] {
    const { maxEntries = MAX_DIR_ENTRIES } = options;
    const real = this.confined(dir);
    if (!real) return [];
    let names: string[];
    try {
      names = options.order === 'listing' ? listingOrder(real) : fs.readdirSync(real).sort(compareCodePoints);
    } catch {
      // A FIFO, a device or a socket where a folder is looked for is named; anything else is not a folder.
      const info = fs.statSync(real, { throwIfNoEntry: false });
      if (info) warnIfSpecial(dir, info, this.warn);
      return [];
    }
    if (names.length > maxEntries) {
      const which = options.order === 'listing' ? 'as listed' : 'by name';
      this.warn(`${dir}: ${names.length} entries; only the first ${maxEntries} ${which} are read`);
    }
    return names.slice(0, maxEntries);
  }

  /**
   * A text file's content (UTF-8, invalid bytes replaced, newlines normalised as Python's
   * text mode does); at most MAX_TEXT_BYTES of it. null when missing, not a regular file, or
   * outside the roots.
   */
  readText(file: string, maxBytes = MAX_TEXT_BYTES, options: { warnInvalidUtf8?: boolean } = {}): string | null {
    const read = this.readBytes(file, maxBytes, 'head');
    if (!read) return null;
    if (read.size > maxBytes) this.warn(`${file}: ${read.size} bytes; only the first ${maxBytes} are read`);
    const text = new StringDecoder('utf8').end(read.bytes);
    if (options.warnInvalidUtf8 && replacedInvalidBytes(text, read.bytes))
      this.warn(`${file}: invalid UTF-8, read with the bad bytes replaced by U+FFFD`);
    return normaliseNewlines(text);
  }

  /**
   * The first `maxBytes` of a file as UTF-8 (invalid bytes replaced, newlines as they are), and
   * the file's size, unsaid when it is larger: for a reader that wants a head on purpose (a
   * rollout read whole when small, its first characters scanned when large). null when missing,
   * not a regular file or outside the roots.
   */
  head(file: string, maxBytes: number): { text: string; size: number } | null {
    const read = this.readBytes(file, maxBytes, 'head');
    return read && { text: new StringDecoder('utf8').end(read.bytes), size: read.size };
  }

  /**
   * A text file decoded as strict UTF-8, as Python's `read_text()` does (a BOM is kept as a
   * character), newlines normalised. `tail`: a file larger than `maxBytes` is read from its
   * last `maxBytes` (a character cut at the start is dropped); without it such a file is
   * skipped. null when missing, not a regular file or outside the roots, and (with a warning
   * naming the file) when too large or not valid UTF-8: the caller skips that one item.
   */
  readStrictText(file: string, options: { maxBytes: number; tail?: boolean }): string | null {
    const read = this.readBytes(file, options.maxBytes, options.tail ? 'tail' : 'head');
    if (!read) return null;
    if (read.size > options.maxBytes && !options.tail) {
      this.warn(`${file}: skipped, ${read.size} bytes is more than the ${options.maxBytes} read`);
      return null;
    }
    let start = 0;
    // A window that starts inside a character starts at its next one (at most 3 continuation bytes).
    if (read.size > read.bytes.length) while (start < 3 && ((read.bytes[start] ?? 0) & 0xc0) === 0x80) start += 1;
    try {
      return normaliseNewlines(
        new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(read.bytes.subarray(start)),
      );
    } catch {
      this.warn(`${file}: skipped, not valid UTF-8`);
      return null;
    }
  }

  /**
   * A JSON document, whole: skipped with a warning naming the file when it is not a regular
   * file, larger than `maxBytes`, not valid UTF-8 or not valid JSON — a cut or re-encoded
   * document would not be the one the agent wrote. undefined without a warning when it is missing.
   */
  readJson(file: string, maxBytes = MAX_TEXT_BYTES): { value: unknown } | undefined {
    const info = this.stat(file);
    if (!info) return undefined;
    if (!info.isFile()) {
      if (!specialKind(info)) this.warn(`${file}: skipped, not a regular file`);
      return undefined;
    }
    if (info.size > maxBytes) {
      this.warn(`${file}: skipped, ${info.size} bytes (more than the ${maxBytes} read from a JSON file)`);
      return undefined;
    }
    const read = this.readBytes(file, maxBytes, 'head');
    if (!read) return undefined;
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(read.bytes);
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

  /** At most `maxBytes` of a regular file within the roots, from its start or its end, and its size. */
  private readBytes(file: string, maxBytes: number, from: 'head' | 'tail'): { bytes: Buffer; size: number } | null {
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
      if (!info.isFile()) {
        warnIfSpecial(file, info, this.warn);
        return null;
      }
      const size = Math.min(info.size, maxBytes);
      const offset = from === 'tail' ? info.size - size : 0;
      const buffer = Buffer.alloc(size);
      let read = 0;
      while (read < size) {
        const n = fs.readSync(fd, buffer, read, size - read, offset + read);
        if (n === 0) break;
        read += n;
      }
      return { bytes: buffer.subarray(0, read), size: info.size };
    } catch (error) {
      this.warn(`${file}: unreadable (${errnoOf(error) ?? 'error'})`);
      return null;
    } finally {
      fs.closeSync(fd);
    }
  }

  /**
   * A read-only copy of the SQLite database `file` (core/native/sqlite.ts), confined as any file;
   * so are its write-ahead log and rollback journal beside it: one that leads out is refused with
   * a warning and the database read as if it had none. null when the database is missing or
   * may not be read; throws, as openReadOnly does, when it cannot be read.
   */
  async openDatabase(file: string): Promise<ReadOnlyDatabase | null> {
    const root = this.rootFor(file);
    const files = root === null ? undefined : confinedDatabaseFiles(file, root, this.warn);
    return files ? openReadOnly(file, files) : null;
  }

  /**
   * The records of a JSONL file, one per line, each parsed once here (no participant parses a
   * line itself): `value` is the line's JSON, or undefined when the line is not JSON, is not
   * accepted, or was too long to read (the caps of line-streams.ts apply, each with a warning;
   * `longLines: 'record'` yields such a line unsaid). `line` counts from 1 every line read,
   * parsed or not. Nothing when the file cannot be read.
   */
  jsonRecords(file: string, options: JsonRecordOptions = {}): Generator<JsonRecord> {
    if (options.lines === 'stripped') return parsedRecords(this.strippedLines(file, options.maxLines), options);
    const lines = this.streamed(file, false, (source) => jsonlLines(source, options.longLines));
    return parsedRecords(options.lines === 'universal' ? universalLines(lines) : lines, options);
  }

  /**
   * The lines of a text file as Python's `text.strip().splitlines()` gives them, read as a
   * stream and stopped after `maxLines` (line-streams.ts); a file that cannot be read is named.
   */
  *strippedLines(file: string, maxLines = Number.POSITIVE_INFINITY): Generator<string | undefined> {
    yield* this.streamed(file, true, (source) => strippedLines(source, maxLines));
  }

  /**
   * `read` over `file` opened (confined, a regular file), closed when it is done. `named`: a
   * file that cannot be opened or is not a regular file is named in a warning.
   */
  private *streamed<T>(file: string, named: boolean, read: (source: OpenSource) => Generator<T>): Generator<T> {
    const real = this.confined(file);
    if (!real) return;
    let fd: number;
    try {
      fd = fs.openSync(real, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
    } catch (error) {
      if (named) this.warn(`${file}: unreadable (${errnoOf(error) ?? 'error'})`);
      return;
    }
    try {
      const info = fs.fstatSync(fd);
      if (!info.isFile()) {
        if (!warnIfSpecial(file, info, this.warn) && named) this.warn(`${file}: skipped, not a regular file`);
        return;
      }
      yield* read({ fd, file, warn: (message) => this.warn(message) });
    } finally {
      fs.closeSync(fd);
    }
  }
  /**
   * Every file below `dir` whose name passes `accept`, as paths relative to `dir` split into
   * their parts, depth first in name order. Symbolic links to folders are not entered (as
   * Python's `Path.rglob` does not), so a link loop ends nothing but itself; a linked file is
   * kept when it leads inside the roots. `caps`: a store that holds more (Codex's sessions).
   */
  walk(dir: string, accept: (name: string) => boolean, caps: { files?: number; entries?: number } = {}): string[][] {
    const { files = MAX_WALK_FILES, entries = MAX_DIR_ENTRIES } = caps;
    const found: string[][] = [];
    const visit = (current: string, prefix: readonly string[]): void => {
      for (const name of this.list(current, { maxEntries: entries })) {
        if (found.length >= files) {
          this.warn(`${dir}: more than ${files} files; the rest are not read`);
          return;
        }
        const full = path.join(current, name);
        let link: fs.Stats;
        try {
          link = fs.lstatSync(full);
        } catch {
          continue;
        }
        if (link.isDirectory()) visit(full, [...prefix, name]);
        else if (accept(name) && (link.isFile() || (link.isSymbolicLink() && this.isFile(full))))
          found.push([...prefix, name]);
        else if (accept(name)) warnIfSpecial(full, link, this.warn);
      }
    };
    if (this.isDir(dir)) visit(dir, []);
    return found;
  }
}

/** Last modified of a path, ISO 8601; undefined when it does not exist. */
export function modifiedAt(target: string): string | undefined {
  try {
    return fs.statSync(target).mtime.toISOString();
  } catch {
    return undefined;
  }
}

/**
 * A folder's names in the file system's own order (readdir(3), as Python's `os.scandir` reads
 * it): `fs.readdirSync` sorts them (libuv's scandir does), a `Dir` handle does not.
 */
function listingOrder(folder: string): string[] {
  const names: string[] = [];
  const handle = fs.opendirSync(folder);
  try {
    for (let entry = handle.readSync(); entry !== null; entry = handle.readSync()) names.push(entry.name);
  } finally {
    handle.closeSync();
  }
  return names;
}
