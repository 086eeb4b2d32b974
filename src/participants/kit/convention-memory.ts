/**
 * The convention `memory.md` the engine's cascade and copilot participants read: a file the
 * agent is asked to keep (`~/.cascade-bourdon/memory.md`, `~/.copilot-bourdon/memory.md`) whose
 * YAML front matter lists `entities` and `sessions`. What the two read alike lives here: finding
 * and reading the file, Python's `list()` of a field, an entity's name, a session's date and
 * `--since` (conformance/participants/README.md, "cascade" and "copilot"). How each finds its
 * front matter and converts the other fields is its own.
 */
import path from 'node:path';
import type { SourceReader } from './source-reader.js';
import { modifiedAt } from './source-reader.js';
import { YamlTimestamp } from '../../core/store/yaml-timestamp.js';
import { pyStr, truthy } from '../../core/python-str.js';
import { isMapping, slice } from './markdown.js';
import { pyStrip } from './scrub.js';
import type { SourceStatus } from './participant.js';
import { specialKind } from '../../core/native/confined-reads.js';

/** The source's name in `--json` and doctor. */
const SOURCE_NAME = 'memory_md';

export function memoryStatus(file: string, reader: SourceReader): SourceStatus {
  return reader.isFile(file)
    ? { name: SOURCE_NAME, path: file, found: true, modified: modifiedAt(file) }
    : { name: SOURCE_NAME, path: file, found: false };
}

/**
 * The text of the memory file, or null when there is none to read. A missing file is the
 * ordinary case (no warning); anything else that cannot be read — a folder in its place, a link
 * leading elsewhere — is named in one warning. Invalid UTF-8 is read with U+FFFD (warned): the
 * engine stops there, a port keeps what it can.
 */
function readMemoryText(reader: SourceReader, file: string): string | null {
  const info = reader.stat(file);
  if (!info) return null;
  if (!info.isFile()) {
    // A FIFO, a device or a socket the reader named already (one warning for one cause).
    if (!specialKind(info)) reader.warn(`${file}: skipped, not a regular file`);
    return null;
  }
  return reader.readText(file, undefined, { warnInvalidUtf8: true });
}

/**
 * The memory file's front matter as `frontMatter` finds it, or null (an empty export). A file
 * without a front matter that loads as a mapping is named in one warning.
 */
export function readConventionMemory(
  reader: SourceReader,
  file: string,
  frontMatter: (text: string) => Record<string, unknown> | null,
): Record<string, unknown> | null {
  const text = readMemoryText(reader, file);
  if (text === null) return null;
  const meta = frontMatter(text);
  if (!meta) reader.warn(`${file}: no front matter whose YAML reads as a mapping; nothing exported from it`);
  return meta;
}

/** Where a field of the front matter sits, for the one-line warning about a value of the wrong type. */
export interface FieldAt {
  readonly reader: SourceReader;
  readonly file: string;
  readonly field: string;
}

/**
 * Python's `list(value or [])`: a list's items, a string's characters, a mapping's keys; a falsy
 * value gives nothing. A number, `true` or a timestamp cannot be iterated (the engine stops
 * there): nothing, and a warning.
 */
export function pyItems(value: unknown, at: FieldAt): unknown[] {
  if (!truthy(value)) return [];
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') return [...value];
  if (isMapping(value)) return Object.keys(value);
  at.reader.warn(`${at.file}: ${at.field} is ${pyStr(value)}, not a list; skipped`);
  return [];
}

/** An entity's name: a mapping's non-blank string `name`, trimmed; undefined for anything else. */
export function entityName(item: unknown): string | undefined {
  if (!isMapping(item) || typeof item.name !== 'string') return undefined;
  return pyStrip(item.name) || undefined;
}

/** A session's date: its truthy `date` converted to text, first 10 characters; undefined otherwise. */
export function sessionDate(item: unknown): string | undefined {
  if (!isMapping(item) || !truthy(item.date)) return undefined;
  return slice(pyStr(item.date), 10);
}

/** A value passed through as the engine dumps it: timestamps as their text, the rest as read. */
export function plainValue(value: unknown): unknown {
  if (value instanceof YamlTimestamp) return value.toString();
  if (Array.isArray(value)) return value.map(plainValue);
  if (isMapping(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plainValue(v)]));
  return value;
}

/** The memory file's path: `<dir>/memory.md`, `dir` resolved against the working folder. */
export function memoryFile(cwd: string, dir: string): string {
  return path.join(path.resolve(cwd, dir), 'memory.md');
}
