/**
 * Text files read as a stream of lines, for sources too large to read whole (JSONL transcripts,
 * knowledge graphs, chat logs): at most MAX_JSONL_BYTES are read and a line longer than
 * MAX_JSONL_LINE_BYTES is skipped, each with a warning naming the file. They read a file the
 * source reader has opened (source-reader.ts: confined, a regular file), through its
 * `jsonlLines` and `strippedLines`.
 */
import { isAscii } from 'node:buffer';
import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { PY_LINE_BREAK } from './markdown.js';
import { pyLstrip, pyRstrip, pyStrip } from './scrub.js';
import { normaliseNewlines, replacedInvalidBytes } from './text-decoding.js';

/** Largest part of a JSONL file read. */
const MAX_JSONL_BYTES = 64 * 1024 * 1024;
/** Longest JSONL line parsed; longer lines are skipped. */
const MAX_JSONL_LINE_BYTES = 4 * 1024 * 1024;
/**
 * The size of each read of `strippedLines`. The text of one read, decoded and split, is what is
 * alive when the young generation is collected, so it is what gets promoted to the old one: read
 * 256 KiB at a time (a whole 100 KB transcript at once), copilot-vscode's 2,000 transcripts
 * promoted 216 MB in nine full collections, and its peak RSS rose and fell by 20 MB between them;
 * read 32 KiB at a time, 21 MB in one, peak RSS 92 → 74-75 MB, less CPU (bench/README.md,
 * "copilot-vscode's memory").
 */
export const STRIPPED_READ_BYTES = 32 * 1024;

/** Python's line breaks other than `\n` (text mode reads `\r` as one): rare in a transcript. */
const RARE_LINE_BREAKS = ['\v', '\f', '\x1c', '\x1d', '\x1e', '\x85', '\u2028', '\u2029'];

/**
 * `text` (no `\r` left) split at Python's line breaks: at `\n` alone when none of the others is
 * in it. A search for each and a plain split take a quarter of the time of the pattern's split
 * (copilot-vscode's 200 MB of transcripts: about 170 ms of 1.4 s profiled, issue 55).
 */
function splitAtLineBreaks(text: string): string[] {
  return RARE_LINE_BREAKS.some((brk) => text.includes(brk)) ? text.split(PY_LINE_BREAK) : text.split('\n');
}

/** A regular file the source reader opened: its descriptor, the name warnings use, and where they go. */
export interface OpenSource {
  readonly fd: number;
  readonly file: string;
  readonly warn: (message: string) => void;
}

/**
 * A line longer than MAX_JSONL_LINE_BYTES, when the reader asked to see it (`longLines:
 * 'record'`): its bytes, and whether its first byte after spaces, tabs and carriage returns is
 * `{` (the engine would still count it as a record: a rollout's 10 MB tool output).
 */
export interface LongLine {
  readonly bytes: number;
  readonly objectLike: boolean;
}

/**
 * The lines of a JSONL file, one at a time (a trailing CR cut, invalid UTF-8 replaced). A line
 * longer than MAX_JSONL_LINE_BYTES is skipped with a warning naming the file, or with
 * `longLines: 'record'` yielded as a `LongLine`, unsaid. Reading stops at MAX_JSONL_BYTES, said
 * once when the file goes on.
 */
export function* jsonlLines(
  { fd, file, warn }: OpenSource,
  longLines: 'warn' | 'record' = 'warn',
): Generator<string | LongLine> {
  // No bigger than the file (a zero-filled megabyte per small audit log cost more than reading
  // it: issue 55), uninitialised, as every byte used is read first.
  const chunk = Buffer.allocUnsafe(Math.max(1, Math.min(1024 * 1024, fs.fstatSync(fd).size)));
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let skipping = false;
  // The first byte of the line that is not a space, a tab or a CR (-1: none yet).
  let firstByte = -1;
  let offset = 0;
  const decoder = () => new StringDecoder('utf8');
  const longLine = (): LongLine => ({ bytes: pendingBytes, objectLike: firstByte === 0x7b });
  const lead = (start: number, end: number): void => {
    for (let i = start; firstByte === -1 && i < end; i++) {
      const byte = chunk[i] ?? -1;
      if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) firstByte = byte;
    }
  };
  for (;;) {
    const n =
      offset < MAX_JSONL_BYTES
        ? fs.readSync(fd, chunk, 0, Math.min(chunk.length, MAX_JSONL_BYTES - offset), offset)
        : 0;
    if (n === 0) {
      const size = fs.fstatSync(fd).size;
      if (offset >= MAX_JSONL_BYTES && size > offset)
        warn(`${file}: ${size} bytes; only the first ${MAX_JSONL_BYTES} are read`);
      break;
    }
    offset += n;
    let start = 0;
    // One test of the whole read: a view per line cost more than the lines' decoding (issue 55).
    const ascii = isAscii(chunk.subarray(0, n));
    for (let newline = chunk.indexOf(10, start); newline !== -1 && newline < n; newline = chunk.indexOf(10, start)) {
      if (!skipping && pending.length === 0 && (ascii || isAscii(chunk.subarray(start, newline)))) {
        // A whole line in this read, all ASCII: decoded in place, no copy (most JSONL lines).
        yield withoutCarriageReturn(chunk.toString('latin1', start, newline));
      } else if (!skipping) {
        pending.push(Buffer.from(chunk.subarray(start, newline)));
        yield withoutCarriageReturn(decoder().end(Buffer.concat(pending)));
      } else if (longLines === 'record') {
        pendingBytes += newline - start;
        lead(start, newline);
        yield longLine();
      }
      pending = [];
      pendingBytes = 0;
      skipping = false;
      firstByte = -1;
      start = newline + 1;
    }
    if (start < n) {
      pendingBytes += n - start;
      if (longLines === 'record') lead(start, n);
      if (skipping) continue;
      if (pendingBytes > MAX_JSONL_LINE_BYTES) {
        if (longLines === 'warn') warn(`${file}: a line longer than ${MAX_JSONL_LINE_BYTES} bytes was skipped`);
        skipping = true;
        pending = [];
      } else pending.push(Buffer.from(chunk.subarray(start, n)));
    }
  }
  if (skipping && longLines === 'record') yield longLine();
  else if (!skipping && pending.length) yield withoutCarriageReturn(decoder().end(Buffer.concat(pending)));
}

/** A line without the one carriage return that may end it. */
function withoutCarriageReturn(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

/**
 * The lines of a text file as Python's `text.strip().splitlines()` gives them (UTF-8 with bad
 * bytes replaced, newlines normalised), stopped after `maxLines`: a chat transcript of hundreds
 * of megabytes costs only its first lines. A line longer than MAX_JSONL_LINE_BYTES yields
 * undefined (it still counts as a line).
 */
export function* strippedLines({ fd, file, warn }: OpenSource, maxLines: number): Generator<string | undefined> {
  const decoder = new StringDecoder('utf8');
  // Uninitialised, as every byte used is read first.
  const chunk = Buffer.allocUnsafe(STRIPPED_READ_BYTES);
  let tail = Buffer.alloc(0);
  let offset = 0;
  let started = false;
  let carriageReturn = false;
  let invalid = false;
  let partial = '';
  let overlong = false;
  let emitted = 0;
  // The last non-blank line and the blank lines after it: whether strip() cuts them depends
  // on what follows.
  let held: (string | undefined)[] = [];
  const complete = function* (line: string | undefined): Generator<string | undefined, boolean> {
    if (line !== undefined && pyLstrip(line) === '') {
      held.push(line);
      return true;
    }
    for (const waiting of held) {
      if (emitted >= maxLines) return false;
      emitted += 1;
      yield waiting;
    }
    held = [line];
    return emitted < maxLines;
  };
  const feed = function* (text: string): Generator<string | undefined, boolean> {
    if (!started) {
      text = pyLstrip(text);
      if (text === '') return true;
      started = true;
    }
    const pieces = splitAtLineBreaks(text);
    for (let i = 0; i < pieces.length - 1; i++) {
      const line = overlong ? undefined : partial + pieces[i];
      partial = '';
      overlong = false;
      if (!(yield* complete(line))) return false;
    }
    if (!overlong) partial += pieces[pieces.length - 1];
    if (partial.length > MAX_JSONL_LINE_BYTES) {
      if (!overlong) warn(`${file}: a line longer than ${MAX_JSONL_LINE_BYTES} characters was skipped`);
      overlong = true;
      partial = '';
    }
    return true;
  };
  for (;;) {
    const n =
      offset < MAX_JSONL_BYTES
        ? fs.readSync(fd, chunk, 0, Math.min(chunk.length, MAX_JSONL_BYTES - offset), offset)
        : 0;
    if (n === 0 && offset >= MAX_JSONL_BYTES && fs.fstatSync(fd).size > offset)
      warn(`${file}: only the first ${MAX_JSONL_BYTES} bytes are read`);
    let text = n === 0 ? decoder.end() : decoder.write(chunk.subarray(0, n));
    if (!invalid && replacedInvalidBytes(text, chunk.subarray(0, n), tail)) {
      invalid = true;
      warn(`${file}: invalid UTF-8, read with the bad bytes replaced by U+FFFD`);
    }
    if (n > 0) tail = Buffer.from(chunk.subarray(Math.max(0, n - 2), n));
    offset += n;
    if (carriageReturn) text = '\r' + text;
    carriageReturn = n > 0 && text.endsWith('\r');
    if (carriageReturn) text = text.slice(0, -1);
    if (!(yield* feed(normaliseNewlines(text)))) return;
    if (n === 0) break;
  }
  if (overlong || partial !== '') if (!(yield* complete(overlong ? undefined : partial))) return;
  // The end of the text: strip() removes the blank lines and the last line's trailing space (its
  // leading space too only when it is the first line, which the start's lstrip() already cut).
  const last = held[0];
  if (held.length > 0 && emitted < maxLines) yield last === undefined ? undefined : pyRstrip(last);
}

/** How `jsonRecords` reads a file's lines. */
export interface JsonRecordOptions {
  /**
   * `jsonl` (the default): split at `\n`, a `\r` before it cut. `universal`: split at `\n`,
   * `\r\n` and a lone `\r`, as Python's text mode reads. `stripped`: `text.strip().splitlines()`.
   */
  readonly lines?: 'jsonl' | 'universal' | 'stripped';
  /** Stop after this many lines. */
  readonly maxLines?: number;
  /**
   * Stop before the line that takes the characters read past this many, each line counted with
   * its end as Python's text mode counts it (`len(line)`; a line too long to keep: its bytes).
   */
  readonly maxChars?: number;
  /** Python's `str.strip()` on each line before it is tested and parsed. */
  readonly strip?: boolean;
  /** Which lines are parsed at all: a cheap test on the text (`{`, the record types read). */
  readonly accept?: (line: string) => boolean;
  /**
   * A line too long to read (`jsonl` and `universal`): skipped with a warning (`warn`, the
   * default), or yielded as a record without a value, unsaid (`record`: it still counts).
   */
  readonly longLines?: 'warn' | 'record';
}

/** One line of a JSONL file: its number (from 1) and its JSON, undefined when it has none. */
export interface JsonRecord {
  readonly line: number;
  readonly value: unknown;
  /** A line too long to read (with `longLines: 'record'`): whether it began as an object. */
  readonly tooLong?: { readonly objectLike: boolean };
}

/** The records of `lines` (what a JSONL reader yields: a line, a `LongLine`, undefined for a line not kept), parsed once. */
export function* parsedRecords(
  lines: Iterable<string | LongLine | undefined>,
  options: JsonRecordOptions,
): Generator<JsonRecord> {
  const { maxLines = Number.POSITIVE_INFINITY, maxChars = Number.POSITIVE_INFINITY, strip = false, accept } = options;
  let line = 0;
  let chars = 0;
  for (const raw of lines) {
    line += 1;
    if (line > maxLines) return;
    if (raw !== undefined && typeof raw !== 'string') {
      chars += raw.bytes + 1;
      if (chars > maxChars) return;
      yield { line, value: undefined, tooLong: { objectLike: raw.objectLike } };
      continue;
    }
    chars += (raw?.length ?? 0) + 1;
    if (chars > maxChars) return;
    const text = raw === undefined ? undefined : strip ? pyStrip(raw) : raw;
    yield { line, value: text === undefined || (accept && !accept(text)) ? undefined : jsonValueOf(text) };
  }
}

/**
 * The records of a JSONL text already read (a small file read once for several passes), as
 * `SourceReader.jsonRecords` gives a file's (`jsonl` or `universal` lines).
 */
export function jsonRecordsOf(text: string, options: JsonRecordOptions = {}): Generator<JsonRecord> {
  const lines = text.split('\n').map(withoutCarriageReturn);
  // A text that ends its last line leaves no line after it, as a file read line by line.
  if (lines.at(-1) === '') lines.pop();
  return parsedRecords(options.lines === 'universal' ? universalLines(lines) : lines, options);
}

/** A JSON text's value; throws, with JSON.parse's message, when it is not JSON. The one place participants parse JSON text. */
export function parseJsonText(text: string): unknown {
  return JSON.parse(text) as unknown;
}

/** The JSON value of one line (or a value a database holds), or undefined when it is not JSON. */
export function jsonValueOf(line: string): unknown {
  try {
    return parseJsonText(line);
  } catch {
    return undefined;
  }
}

/** The parts of `\n`-split lines split again at a lone `\r` (Python's universal newlines); a `LongLine` passes as it is. */
export function* universalLines<L extends string | LongLine>(lines: Iterable<L>): Generator<L | string> {
  for (const line of lines) {
    if (typeof line !== 'string' || !line.includes('\r')) yield line;
    else yield* line.split('\r');
  }
}
