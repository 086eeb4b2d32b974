/**
 * Reading Codex rollout files (`sessions/**\/rollout-*.jsonl`): the `session_meta` record, the
 * first user prompts, the raw text scanned for concepts, and the files `apply_patch` calls
 * touched. Every read is bounded: a small rollout is read once and shared by all four; a large
 * one is streamed line by line with a cap on line length (longer lines are skipped), and only its
 * head is scanned for concepts. A rollout can be 200 MB with 10 MB lines.
 */
import { open } from 'node:fs/promises';
import { jsonValueOf } from '../kit/line-streams.js';
import { readHead } from './paths.js';
import { codePointPrefix, dedupe, lowerKey, splitLines, strip } from './text.js';

/** A rollout up to this size is read whole, once. */
const WHOLE_READ_BYTES = 4 * 1024 * 1024;
/** A streamed line longer than this is skipped (tool outputs, never the metadata we read). */
const MAX_LINE_BYTES = 4 * 1024 * 1024;
/** The engine scans this many characters of a rollout for concepts, and for user prompts. */
const CONCEPT_SCAN_CHARS = 2_000_000;
/** The engine looks for `apply_patch` calls only in rollouts up to this size. */
const PATCH_SCAN_MAX_BYTES = 1_000_000;
/** The engine looks for `session_meta` among this many first records. */
const META_RECORDS = 5;

export type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One line of a rollout: its text, or only its size when it was too long to keep. */
interface Line {
  readonly text: string | undefined;
  /** Characters the engine's reader counts for it (the line and its end). */
  readonly chars: number;
  /** For a skipped line: did it look like an object (so it still counts as a record)? */
  readonly objectLike: boolean;
}

function parseRecord(line: string): JsonObject | undefined {
  const stripped = strip(line);
  if (!stripped) return undefined;
  // Malformed, or nested deeper than the parser's stack: skipped like any bad line.
  const value = jsonValueOf(stripped);
  return isObject(value) ? value : undefined;
}

async function* streamLines(file: string): AsyncGenerator<Line> {
  const handle = await open(file, 'r');
  try {
    const chunk = Buffer.alloc(1024 * 1024);
    let pieces: Buffer[] = [];
    let pending = 0;
    let overlong = false;
    let firstByte = -1;
    let position = 0;
    const finish = (): Line => {
      const line: Line = overlong
        ? { text: undefined, chars: pending + 1, objectLike: firstByte === 0x7b }
        : { text: Buffer.concat(pieces).toString('utf8'), chars: 0, objectLike: false };
      pieces = [];
      pending = 0;
      overlong = false;
      firstByte = -1;
      return line.text === undefined ? line : { ...line, chars: line.text.length + 1 };
    };
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      let start = 0;
      for (;;) {
        const newline = chunk.indexOf(0x0a, start);
        const end = newline === -1 || newline >= bytesRead ? bytesRead : newline;
        if (end > start) {
          if (firstByte === -1) {
            let i = start;
            while (i < end && (chunk[i] === 0x20 || chunk[i] === 0x09 || chunk[i] === 0x0d)) i++;
            if (i < end) firstByte = chunk[i] ?? -1;
          }
          pending += end - start;
          if (pending > MAX_LINE_BYTES) {
            overlong = true;
            pieces = [];
          } else {
            pieces.push(Buffer.from(chunk.subarray(start, end)));
          }
        }
        if (end === bytesRead) break;
        yield* splitCarriageReturns(finish());
        start = end + 1;
      }
    }
    if (pending > 0 || pieces.length > 0) yield* splitCarriageReturns(finish());
  } finally {
    await handle.close();
  }
}

/** Python's universal newlines also end a line at a lone `\r`. */
function* splitCarriageReturns(line: Line): Generator<Line> {
  if (line.text === undefined || !line.text.includes('\r')) {
    yield line;
    return;
  }
  for (const part of line.text.split(/\r(?!$)/)) yield { text: part, chars: part.length + 1, objectLike: false };
}

function* memoryLines(text: string): Generator<Line> {
  const parts = text.includes('\r') ? text.split(/\r\n|\r|\n/) : text.split('\n');
  for (const part of parts) yield { text: part, chars: part.length + 1, objectLike: false };
}

/** A line that can hold an `apply_patch` call (its name, plainly or with JSON escapes). */
const mayNamePatch = (line: string): boolean => line.includes('apply_patch') || line.includes('\\u');

/** One rollout file, read at most once whole (small files) or streamed (large ones). */
export class Rollout {
  private whole: string | undefined;
  private loaded = false;
  /** Bytes, once known (a file too large to read whole counts as larger than every bound). */
  private size = Number.POSITIVE_INFINITY;

  constructor(readonly path: string) {}

  private async text(): Promise<string | undefined> {
    if (!this.loaded) {
      this.loaded = true;
      try {
        const head = await readHead(this.path, WHOLE_READ_BYTES + 1);
        if (head.length <= WHOLE_READ_BYTES) {
          this.whole = head.toString('utf8');
          this.size = head.length;
        }
      } catch {
        this.whole = '';
        this.size = 0;
      }
    }
    return this.whole;
  }

  private async *lines(): AsyncGenerator<Line> {
    const whole = await this.text();
    if (whole !== undefined) {
      yield* memoryLines(whole);
      return;
    }
    try {
      yield* streamLines(this.path);
    } catch {
      // Unreadable mid-way: what was read stands, as the engine's reader stops on OSError.
    }
  }

  /** Drops the text kept for the analyses (a home holds thousands of rollouts). */
  release(): void {
    this.whole = undefined;
    this.loaded = false;
  }

  /**
   * Parsed records, with the characters read so far, optionally stopping after `maxChars`;
   * `worthParsing` skips lines that cannot hold what the caller looks for.
   */
  private async *records(
    maxChars?: number,
    worthParsing?: (line: string) => boolean,
  ): AsyncGenerator<JsonObject | 'skipped-object'> {
    let chars = 0;
    for await (const line of this.lines()) {
      chars += line.chars;
      if (maxChars !== undefined && chars > maxChars) return;
      if (line.text === undefined) {
        if (line.objectLike) yield 'skipped-object';
        continue;
      }
      if (worthParsing && !worthParsing(line.text)) continue;
      const record = parseRecord(line.text);
      if (record) yield record;
    }
  }

  /** Every line that parses as a JSON object (the session index is read this way). */
  async *objects(): AsyncGenerator<JsonObject> {
    for await (const record of this.records()) if (record !== 'skipped-object') yield record;
  }

  /** The first `session_meta` payload among the first records (the engine's `_read_session_meta`). */
  async sessionMeta(): Promise<JsonObject | undefined> {
    let index = 0;
    for await (const record of this.records()) {
      if (index++ >= META_RECORDS) break;
      if (record === 'skipped-object' || record.type !== 'session_meta') continue;
      return isObject(record.payload) ? record.payload : undefined;
    }
    return undefined;
  }

  /** The first `limit` user prompts within the first 2,000,000 characters. */
  async userTexts(limit = 3): Promise<string[]> {
    const texts: string[] = [];
    const add = (value: unknown): boolean => {
      if (typeof value !== 'string' || !strip(value)) return false;
      texts.push(value);
      return texts.length >= limit;
    };
    for await (const record of this.records(CONCEPT_SCAN_CHARS)) {
      if (record === 'skipped-object') continue;
      const payload = record.payload;
      if (!isObject(payload)) continue;
      if (record.type === 'user_input') {
        if (add(payload.text)) break;
        continue;
      }
      if (record.type === 'event_msg' && payload.type === 'user_message') {
        if (add(payload.message)) break;
        continue;
      }
      if (record.type !== 'response_item' || payload.type !== 'message' || payload.role !== 'user') continue;
      const content = payload.content;
      if (typeof content === 'string') {
        if (add(content)) break;
        continue;
      }
      if (!Array.isArray(content)) continue;
      for (const item of content) {
        if (!isObject(item) || item.type !== 'input_text') continue;
        if (add(item.text)) break;
      }
      if (texts.length >= limit) break;
    }
    return texts;
  }

  /** The head of the raw text the engine scans for concepts (2,000,000 characters). */
  async conceptText(): Promise<string> {
    const whole = await this.text();
    if (whole !== undefined) return codePointPrefix(whole, CONCEPT_SCAN_CHARS);
    try {
      // Four bytes per character at most.
      const head = (await readHead(this.path, CONCEPT_SCAN_CHARS * 4)).toString('utf8');
      return codePointPrefix(head, CONCEPT_SCAN_CHARS);
    } catch {
      return '';
    }
  }

  /** Files named by `apply_patch` calls; only for rollouts up to 1,000,000 bytes, as the engine. */
  async filesTouched(): Promise<string[]> {
    await this.text();
    if (this.size > PATCH_SCAN_MAX_BYTES) return [];
    const files: string[] = [];
    for await (const record of this.records(undefined, mayNamePatch)) {
      if (record === 'skipped-object' || record.type !== 'response_item') continue;
      const payload = record.payload;
      if (!isObject(payload) || payload.type !== 'function_call' || payload.name !== 'apply_patch') continue;
      if (typeof payload.arguments === 'string') files.push(...filesInPatch(payload.arguments));
    }
    return dedupe(files, lowerKey);
  }
}

const PATCH_FILE = /^\*\*\* (?:Update|Add|Delete) File: (.+)$/u;
const PATCH_MOVE = /^\*\*\* Move to: (.+)$/u;

/** `*** Update|Add|Delete File: X` and `*** Move to: X` lines of a patch, de-duplicated case-insensitively. */
function filesInPatch(patch: string): string[] {
  if (!patch) return [];
  const files: string[] = [];
  for (const raw of splitLines(patch)) {
    const line = strip(raw);
    for (const pattern of [PATCH_FILE, PATCH_MOVE]) {
      const file = pattern.exec(line)?.[1];
      if (file !== undefined) files.push(strip(file));
    }
  }
  return dedupe(files, lowerKey);
}
