/**
 * Reading Codex rollout files (`sessions/**\/rollout-*.jsonl`): the `session_meta` record, the
 * first user prompts, the raw text scanned for concepts, and the files `apply_patch` calls
 * touched. Every read goes through the kit's SourceReader and its JSONL records (confined to the
 * Codex home, each line parsed once there): a small rollout is read once (`head`) and its records
 * shared by all four; a large one is streamed (`jsonRecords`), a line over the kit's cap counted
 * but not kept, and only its head is scanned for concepts. A rollout can be 200 MB with 10 MB lines.
 */
import { jsonRecordsOf, type JsonRecord, type JsonRecordOptions } from '../kit/line-streams.js';
import type { SourceReader } from '../kit/source-reader.js';
import { codePointPrefix, dedupe, lowerKey, splitLines, strip } from './text.js';

/** A rollout up to this size is read whole, once. */
const WHOLE_READ_BYTES = 4 * 1024 * 1024;
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

/** A line that can hold an `apply_patch` call (its name, plainly or with JSON escapes). */
const mayNamePatch = (line: string): boolean => line.includes('apply_patch') || line.includes('\\u');

/** One rollout file, read at most once whole (small files) or streamed (large ones). */
export class Rollout {
  private whole: string | undefined;
  private loaded = false;
  /** Bytes, once known (a file too large to read whole counts as larger than every bound). */
  private size = Number.POSITIVE_INFINITY;

  constructor(
    private readonly reader: SourceReader,
    readonly path: string,
  ) {}

  private text(): string | undefined {
    if (!this.loaded) {
      this.loaded = true;
      // A large rollout is not decoded here: it is streamed, and only its head scanned.
      const size = this.reader.stat(this.path)?.size ?? 0;
      const head = size <= WHOLE_READ_BYTES ? this.reader.head(this.path, WHOLE_READ_BYTES) : undefined;
      if (head !== undefined) {
        this.whole = head?.text ?? '';
        this.size = head?.size ?? 0;
      }
    }
    return this.whole;
  }

  /** Drops the text kept for the analyses (a home holds thousands of rollouts). */
  release(): void {
    this.whole = undefined;
    this.loaded = false;
  }

  /**
   * Parsed records as the engine reads them (Python's text mode: universal newlines, each line
   * stripped), a line too long to keep still counted as a record when it began as an object;
   * `maxChars` stops after that many characters, `accept` skips lines that cannot hold what the
   * caller looks for. A read that fails midway keeps what was read, as the engine stops on OSError.
   */
  private *records(
    options: Pick<JsonRecordOptions, 'maxChars' | 'accept'> = {},
  ): Generator<JsonObject | 'skipped-object'> {
    const read: JsonRecordOptions = { ...options, lines: 'universal', strip: true, longLines: 'record' };
    const whole = this.text();
    let records: Generator<JsonRecord>;
    try {
      records = whole === undefined ? this.reader.jsonRecords(this.path, read) : jsonRecordsOf(whole, read);
      for (const record of records) {
        if (record.tooLong?.objectLike) yield 'skipped-object';
        else if (isObject(record.value)) yield record.value;
      }
    } catch {
      // Unreadable midway: what was read stands.
    }
  }

  /** Every line that parses as a JSON object (the session index is read this way). */
  *objects(): Generator<JsonObject> {
    for (const record of this.records()) if (record !== 'skipped-object') yield record;
  }

  /** The first `session_meta` payload among the first records (the engine's `_read_session_meta`). */
  sessionMeta(): JsonObject | undefined {
    let index = 0;
    for (const record of this.records()) {
      if (index++ >= META_RECORDS) break;
      if (record === 'skipped-object' || record.type !== 'session_meta') continue;
      return isObject(record.payload) ? record.payload : undefined;
    }
    return undefined;
  }

  /** The first `limit` user prompts within the first 2,000,000 characters. */
  userTexts(limit = 3): string[] {
    const texts: string[] = [];
    const add = (value: unknown): boolean => {
      if (typeof value !== 'string' || !strip(value)) return false;
      texts.push(value);
      return texts.length >= limit;
    };
    for (const record of this.records({ maxChars: CONCEPT_SCAN_CHARS })) {
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
  conceptText(): string {
    const whole = this.text();
    // Four bytes per character at most.
    const head = whole ?? this.reader.head(this.path, CONCEPT_SCAN_CHARS * 4)?.text ?? '';
    return codePointPrefix(head, CONCEPT_SCAN_CHARS);
  }

  /** Files named by `apply_patch` calls; only for rollouts up to 1,000,000 bytes, as the engine. */
  filesTouched(): string[] {
    this.text();
    if (this.size > PATCH_SCAN_MAX_BYTES) return [];
    const files: string[] = [];
    for (const record of this.records({ accept: mayNamePatch })) {
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
