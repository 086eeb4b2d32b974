/**
 * A reader for the plain YAML that manifests are written in: block mappings and sequences
 * (indentless and compact ones too), plain, single- and double-quoted scalars (folded over
 * lines as PyYAML and the `yaml` package write them), literal block scalars (`|`, `|-`, `|+`),
 * flow sequences of scalars, `{}`, comments and a leading `---`. It exists for speed: a
 * one-shot CLI process parses a changed manifest cold, where js-yaml (an event list, then
 * construction) runs interpreted and makes much garbage; this reader builds the values
 * straight from the bytes, with 2.4 times fewer instructions on a cold 315 KB manifest.
 *
 * It answers exactly what js-yaml's `load` (CORE_SCHEMA, json: false) answers, or `undefined`:
 * "not mine", and the caller runs js-yaml, so every error the user sees is still js-yaml's.
 * Anything outside the subset or doubtful is handed over rather than guessed: tabs, `\r`,
 * control and other non-printable characters, a BOM past the start, directives, documents
 * after the first, a root that is not a block collection, tags, anchors and aliases, complex
 * keys, folded block scalars and literal ones with an indentation indicator, flow mappings
 * with content, comments inside flow sequences, duplicate or `__proto__` keys, keys that read
 * as non-strings, nesting deeper than MAX_DEPTH (js-yaml stops at 100).
 *
 * Scalars are decoded one by one from the bytes, so each value is a fresh string and none
 * keeps the whole file alive as a slice of it would.
 */
import { Buffer, isUtf8 } from 'node:buffer';

/** Nesting handed to js-yaml, well below its own limit of 100 (which is an error). */
const MAX_DEPTH = 50;

const LF = 0x0a;
const SPACE = 0x20;
const DOUBLE_QUOTE = 0x22;
const HASH = 0x23;
const SINGLE_QUOTE = 0x27;
const PLUS = 0x2b;
const COMMA = 0x2c;
const DASH = 0x2d;
const DOT = 0x2e;
const COLON = 0x3a;
const OPEN_BRACKET = 0x5b;
const BACKSLASH = 0x5c;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const PIPE = 0x7c;
const CLOSE_BRACE = 0x7d;

/** Raised inside the reader when the text leaves the subset; caught at its entry point. */
class OutsideSubset extends Error {}
const OUTSIDE = new OutsideSubset('outside the manifest subset');
function outside(): never {
  throw OUTSIDE;
}

/** Bytes that may not start a plain scalar (YAML indicators), besides `-` `?` `:`. */
const NOT_PLAIN_START = new Uint8Array(256);
for (const c of '#&*!|>\'"%@`,[]{}?:') NOT_PLAIN_START[c.charCodeAt(0)] = 1;

/** js-yaml's double-quote escapes that stand for one fixed character. */
const SIMPLE_ESCAPES = new Map<number, string>([
  [0x30, '\0'],
  [0x61, '\x07'],
  [0x62, '\b'],
  [0x74, '\t'],
  [0x6e, '\n'],
  [0x76, '\v'],
  [0x66, '\f'],
  [0x72, '\r'],
  [0x65, '\x1b'],
  [0x20, ' '],
  [0x22, '"'],
  [0x2f, '/'],
  [0x5c, '\\'],
  [0x4e, '\x85'],
  [0x5f, '\xa0'],
  [0x4c, '\u2028'],
  [0x50, '\u2029'],
]);
const HEX_ESCAPE_LENGTH = new Map<number, number>([
  [0x78, 2], // \x
  [0x75, 4], // \u
  [0x55, 8], // \U
]);

// js-yaml's CORE_SCHEMA implicit resolution, rule for rule (null, bool, int, float, in order).
const NULL_WORDS = new Set(['~', 'null', 'Null', 'NULL']);
const TRUE_WORDS = new Set(['true', 'True', 'TRUE']);
const FALSE_WORDS = new Set(['false', 'False', 'FALSE']);
const INT_PATTERN = /^(?:0o[0-7]+|0x[0-9a-fA-F]+|[-+]?[0-9]+)$/;
const FLOAT_PATTERN =
  /^(?:[-+]?[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|[-+]?\.[0-9]+(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
const FLOAT_SPECIAL_PATTERN = /^(?:[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
/** First characters of every plain scalar that can read as a non-string. */
const MAYBE_NOT_STRING = /^[~nNtTfF+\-.0-9]/;

function resolveInt(source: string): number | undefined {
  if (!INT_PATTERN.test(source)) return undefined;
  let digits = source;
  let sign = 1;
  if (digits[0] === '-' || digits[0] === '+') {
    if (digits[0] === '-') sign = -1;
    digits = digits.slice(1);
  }
  const result = digits.startsWith('0o')
    ? sign * parseInt(digits.slice(2), 8)
    : digits.startsWith('0x')
      ? sign * parseInt(digits.slice(2), 16)
      : sign * parseInt(digits, 10);
  return Number.isFinite(result) ? result : undefined;
}

function resolveFloat(source: string): number | undefined {
  if (!FLOAT_PATTERN.test(source)) return undefined;
  let text = source.toLowerCase();
  const sign = text[0] === '-' ? -1 : 1;
  if (text[0] === '-' || text[0] === '+') text = text.slice(1);
  if (text === '.inf') return sign === 1 ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
  if (text === '.nan') return NaN;
  const result = sign * parseFloat(text);
  return Number.isFinite(result) || FLOAT_SPECIAL_PATTERN.test(source) ? result : undefined;
}

/** The value of a plain scalar under the core schema. */
export function resolvePlainScalar(source: string): unknown {
  if (!MAYBE_NOT_STRING.test(source)) return source;
  if (NULL_WORDS.has(source)) return null;
  if (TRUE_WORDS.has(source)) return true;
  if (FALSE_WORDS.has(source)) return false;
  return resolveInt(source) ?? resolveFloat(source) ?? source;
}

/** js-yaml's code point to string, surrogate pairs included. */
function fromCodePoint(code: number): string {
  if (code <= 0xffff) return String.fromCharCode(code);
  return String.fromCharCode(((code - 0x10000) >> 10) + 0xd800, ((code - 0x10000) & 0x3ff) + 0xdc00);
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}

/**
 * True when every byte may appear in the subset: line feeds but no other control character,
 * no DEL, no C1 control or NEL, no U+2028/U+2029, no U+FFFE/U+FFFF, no BOM (past the start).
 * js-yaml reads some of these in some places; handing them all over keeps the reader simple.
 */
function printableBytes(bytes: Uint8Array, from: number): boolean {
  const length = bytes.length;
  for (let i = from; i < length; i++) {
    const b = bytes[i];
    if (b < 0x20) {
      if (b !== LF) return false;
    } else if (b >= 0x7f) {
      if (b === 0x7f) return false;
      if (b === 0xc2 && bytes[i + 1] < 0xa0) return false;
      if (b === 0xe2 && bytes[i + 1] === 0x80 && (bytes[i + 2] === 0xa8 || bytes[i + 2] === 0xa9)) return false;
      if (b === 0xef && bytes[i + 1] === 0xbf && bytes[i + 2] >= 0xbe) return false;
      if (b === 0xef && bytes[i + 1] === 0xbb && bytes[i + 2] === 0xbf) return false;
    }
  }
  return true;
}

class SubsetReader {
  private pos: number;
  private lineStart: number;
  /** Indent of the line `pos` stands on, after skipBlankLines; -1 at the end of the text. */
  private lineIndent = -1;

  constructor(
    private readonly bytes: Buffer,
    start: number,
  ) {
    this.pos = start;
    this.lineStart = start;
  }

  read(): unknown {
    this.skipBlankLines(true);
    if (this.lineIndent === 0 && this.isMarkerAt(this.pos, DASH)) {
      this.pos += 3;
      this.finishLine();
    }
    if (this.lineIndent !== 0) outside(); // empty, or an indented root: js-yaml's business
    let root: unknown;
    if (this.atSequenceEntry()) root = this.readSequence(0, 1);
    else {
      const key = this.readKey();
      if (key === undefined) outside(); // a scalar or flow document
      root = this.readMapping(0, 1, key);
    }
    if (!this.atEnd()) outside();
    return root;
  }

  private atEnd(): boolean {
    return this.lineIndent === -1 && this.pos >= this.bytes.length;
  }

  /** `---` or `...` (`c` three times) at `p`, followed by a space, a line break or the end. */
  private isMarkerAt(p: number, c: number): boolean {
    const bytes = this.bytes;
    if (bytes[p] !== c || bytes[p + 1] !== c || bytes[p + 2] !== c) return false;
    const following = bytes[p + 3];
    return following === undefined || following === SPACE || following === LF;
  }

  /**
   * From the start of a line, moves to the first character of the next line that holds
   * content (skipping blank and comment lines) and records its indent, or -1 at the end.
   */
  private skipBlankLines(atDocumentStart = false): void {
    const bytes = this.bytes;
    const length = bytes.length;
    let p = this.pos;
    for (;;) {
      const lineStart = p;
      while (bytes[p] === SPACE) p++;
      if (p >= length) {
        this.pos = p;
        this.lineStart = lineStart;
        this.lineIndent = -1;
        return;
      }
      const c = bytes[p];
      if (c === HASH) {
        const end = bytes.indexOf(LF, p);
        if (end === -1) {
          this.pos = length;
          this.lineIndent = -1;
          return;
        }
        p = end + 1;
      } else if (c === LF) {
        p++;
      } else {
        this.pos = p;
        this.lineStart = lineStart;
        this.lineIndent = p - lineStart;
        if (this.lineIndent === 0 && !atDocumentStart && this.atDocumentBoundary(p)) outside();
        if (this.lineIndent === 0 && atDocumentStart && this.isMarkerAt(p, DOT)) outside();
        return;
      }
    }
  }

  /** After a value: spaces, maybe a comment, then the end of the line; then the next line. */
  private finishLine(): void {
    const bytes = this.bytes;
    const start = this.pos;
    let p = start;
    while (bytes[p] === SPACE) p++;
    if (bytes[p] === HASH) {
      if (p === start && bytes[p - 1] !== SPACE) outside(); // `'x'#y` is not a comment
      const end = bytes.indexOf(LF, p);
      p = end === -1 ? bytes.length : end;
    }
    if (p < bytes.length) {
      if (bytes[p] !== LF) outside();
      p++;
    }
    this.pos = p;
    this.skipBlankLines();
  }

  private atSequenceEntry(): boolean {
    const following = this.bytes[this.pos + 1];
    return this.bytes[this.pos] === DASH && (following === SPACE || following === LF || following === undefined);
  }

  /** A block sequence whose first `-` is at `pos`, in column `indent`. */
  private readSequence(indent: number, depth: number): unknown[] {
    if (depth > MAX_DEPTH) outside();
    const bytes = this.bytes;
    const items: unknown[] = [];
    for (;;) {
      this.pos++; // the dash
      while (bytes[this.pos] === SPACE) this.pos++;
      const c = bytes[this.pos];
      if (c === undefined || c === LF || c === HASH) {
        this.finishLine();
        items.push(this.lineIndent > indent ? this.readNodeOnOwnLine(indent, depth + 1) : null);
      } else {
        items.push(this.readCompactNode(indent, depth + 1));
      }
      if (this.lineIndent === indent && this.atSequenceEntry()) continue;
      // A shallower line ends the sequence, and so does a line at its indent that is not an
      // entry (the next key of the mapping around an indentless sequence); a deeper one is not
      // ours.
      if (this.lineIndent > indent) outside();
      return items;
    }
  }

  /** A block mapping in column `indent` whose first key has just been read. */
  private readMapping(indent: number, depth: number, firstKey: string): Record<string, unknown> {
    if (depth > MAX_DEPTH) outside();
    const bytes = this.bytes;
    const map: Record<string, unknown> = {};
    let key: string | undefined = firstKey;
    for (;;) {
      if (key === '__proto__' || Object.hasOwn(map, key)) outside();
      // `pos` is just past the colon
      while (bytes[this.pos] === SPACE) this.pos++;
      const c = bytes[this.pos];
      let value: unknown;
      if (c === undefined || c === LF || c === HASH) {
        this.finishLine();
        if (this.lineIndent > indent) value = this.readNodeOnOwnLine(indent, depth + 1);
        else if (this.lineIndent === indent && this.atSequenceEntry()) value = this.readSequence(indent, depth + 1);
        else value = null;
      } else {
        value = this.readInlineValue(indent, depth + 1);
        this.finishLine();
      }
      map[key] = value;
      if (this.lineIndent < indent) return map;
      if (this.lineIndent > indent) outside();
      key = this.readKey();
      if (key === undefined) outside();
    }
  }

  /** The node of a `- ` entry that starts on the dash's line. */
  private readCompactNode(dashIndent: number, depth: number): unknown {
    const column = this.pos - this.lineStart;
    if (this.atSequenceEntry()) return this.readSequence(column, depth);
    const key = this.readKey();
    if (key !== undefined) return this.readMapping(column, depth, key);
    const value = this.readInlineValue(dashIndent, depth);
    this.finishLine();
    return value;
  }

  /** A node that starts a line of its own, indented more than `parentIndent`. */
  private readNodeOnOwnLine(parentIndent: number, depth: number): unknown {
    const indent = this.lineIndent;
    if (this.atSequenceEntry()) return this.readSequence(indent, depth);
    const key = this.readKey();
    if (key !== undefined) return this.readMapping(indent, depth, key);
    const value = this.readInlineValue(parentIndent, depth);
    this.finishLine();
    return value;
  }

  /**
   * A mapping key and its colon, when the text at `pos` is one (then `pos` is past the colon);
   * else undefined with `pos` unchanged. Only single-line keys that read as strings.
   */
  private readKey(): string | undefined {
    const bytes = this.bytes;
    const start = this.pos;
    const c = bytes[start];
    let key: string;
    let p: number;
    if (c === SINGLE_QUOTE || c === DOUBLE_QUOTE) {
      const end = this.quotedEndOnLine(start);
      if (end === -1) return undefined;
      p = end + 1;
      while (bytes[p] === SPACE) p++;
      if (bytes[p] !== COLON) return undefined;
      key = c === SINGLE_QUOTE ? this.readSingleQuoted(-1) : this.readDoubleQuoted(-1);
      p = this.pos;
      while (bytes[p] === SPACE) p++;
    } else {
      if (NOT_PLAIN_START[c] === 1 || c === SPACE || c === LF || c === undefined) return undefined;
      p = start;
      let end = start;
      for (;;) {
        const b = bytes[p];
        if (b === undefined || b === LF) return undefined;
        if (b === COLON) {
          const following = bytes[p + 1];
          if (following === SPACE || following === LF || following === undefined) break;
        } else if (b === HASH && bytes[p - 1] === SPACE) return undefined;
        p++;
        if (b !== SPACE) end = p;
      }
      if (c === DASH && !this.dashStartsPlain(start, false)) return undefined;
      key = bytes.toString('utf8', start, end);
      if (resolvePlainScalar(key) !== key) outside();
    }
    if (bytes[p] !== COLON) return undefined;
    const following = bytes[p + 1];
    if (following !== SPACE && following !== LF && following !== undefined) outside();
    this.pos = p + 1;
    return key;
  }

  /** Where the quoted scalar opening at `start` closes, when it closes on the same line; else -1. */
  private quotedEndOnLine(start: number): number {
    const bytes = this.bytes;
    const quote = bytes[start];
    let p = start + 1;
    for (;;) {
      const b = bytes[p];
      if (b === undefined || b === LF) return -1;
      if (b === quote) {
        if (quote === SINGLE_QUOTE && bytes[p + 1] === SINGLE_QUOTE) p += 2;
        else return p;
      } else if (b === BACKSLASH && quote === DOUBLE_QUOTE) p += 2;
      else p++;
    }
  }

  /**
   * A scalar or flow collection that starts mid-line at `pos`; `parentIndent` is the indent
   * its continuation lines must exceed. Leaves `pos` just past it, on its last line.
   */
  private readInlineValue(parentIndent: number, depth: number): unknown {
    const c = this.bytes[this.pos];
    if (c === SINGLE_QUOTE) return this.readSingleQuoted(parentIndent);
    if (c === DOUBLE_QUOTE) return this.readDoubleQuoted(parentIndent);
    if (c === OPEN_BRACKET) return this.readFlowSequence(parentIndent, depth);
    if (c === PIPE) return this.readLiteralBlock(parentIndent);
    if (c === OPEN_BRACE) {
      this.pos++;
      while (this.bytes[this.pos] === SPACE) this.pos++;
      if (this.bytes[this.pos] !== CLOSE_BRACE) outside();
      this.pos++;
      return {};
    }
    return this.readPlain(parentIndent);
  }

  /**
   * A literal block scalar (`|`, `|-`, `|+`: what the `yaml` package writes for text with line
   * breaks) whose lines are indented past `parentIndent`. Leaves `pos` at the end of its last
   * line. Not ours: an indentation indicator, an empty block, a first line preceded by lines
   * of spaces, a line of spaces longer than the indent (js-yaml's rules there are subtle).
   */
  private readLiteralBlock(parentIndent: number): string {
    const bytes = this.bytes;
    const length = bytes.length;
    let p = this.pos + 1;
    const chomping = bytes[p] === DASH || bytes[p] === PLUS ? bytes[p++] : 0;
    const afterIndicators = p;
    while (bytes[p] === SPACE) p++;
    if (bytes[p] === HASH && p > afterIndicators) {
      const end = bytes.indexOf(LF, p);
      p = end === -1 ? length : end;
    }
    if (bytes[p] !== LF) outside();
    p++;
    let text = '';
    let contentIndent = -1;
    let breaks = 0; // empty lines since the last line of content (or the header)
    let lastLineEnd = -1;
    while (p < length) {
      const lineStart = p;
      while (bytes[p] === SPACE) p++;
      const column = p - lineStart;
      const first = bytes[p];
      if (first === LF || first === undefined) {
        if (column > (contentIndent === -1 ? 0 : contentIndent)) outside();
        if (first === LF) breaks++;
        p++;
        continue;
      }
      if (contentIndent === -1) {
        if (column <= parentIndent) outside();
        contentIndent = column;
      } else if (column < contentIndent) break;
      let lineEnd = bytes.indexOf(LF, p);
      if (lineEnd === -1) lineEnd = length;
      text +=
        '\n'.repeat(lastLineEnd === -1 ? breaks : breaks + 1) +
        bytes.toString('utf8', lineStart + contentIndent, lineEnd);
      breaks = 0;
      lastLineEnd = lineEnd;
      p = lineEnd + 1;
    }
    if (lastLineEnd === -1) outside();
    this.pos = lastLineEnd;
    if (chomping === PLUS) return text + '\n'.repeat(breaks + 1);
    return chomping === DASH ? text : text + '\n';
  }

  /**
   * A plain scalar in block context, folded over the following lines that are indented more
   * than `parentIndent`; resolved by the core schema.
   */
  private readPlain(parentIndent: number): unknown {
    const bytes = this.bytes;
    const start = this.pos;
    const c = bytes[start];
    if (NOT_PLAIN_START[c] === 1 || (c === DASH && !this.dashStartsPlain(start, false))) outside();
    let end = this.plainLineEnd(start);
    let text: string | undefined;
    for (;;) {
      // Look past the line break for a continuation line.
      let p = this.pos;
      if (bytes[p] !== LF) break; // a comment, or the end of the text
      let breaks = 0;
      let lineStart = p;
      let indent = 0;
      while (bytes[p] === LF) {
        breaks++;
        p++;
        lineStart = p;
        while (bytes[p] === SPACE) p++;
        indent = p - lineStart;
      }
      const first = bytes[p];
      if (first === undefined || indent <= parentIndent || first === HASH) break;
      if (indent === 0 && this.atDocumentBoundary(p)) outside();
      text = (text ?? bytes.toString('utf8', start, end)) + (breaks === 1 ? ' ' : '\n'.repeat(breaks - 1));
      this.lineStart = lineStart;
      this.pos = p;
      const segmentEnd = this.plainLineEnd(p);
      text += bytes.toString('utf8', p, segmentEnd);
      end = segmentEnd;
    }
    this.pos = end;
    return resolvePlainScalar(text ?? bytes.toString('utf8', start, end));
  }

  /** Whether the `-` at `p` starts a plain scalar (js-yaml: not before a space, break or flow indicator). */
  private dashStartsPlain(p: number, inFlow: boolean): boolean {
    const following = this.bytes[p + 1];
    if (following === undefined || following === SPACE || following === LF) return false;
    return !(
      inFlow &&
      (following === COMMA ||
        following === OPEN_BRACKET ||
        following === CLOSE_BRACKET ||
        following === OPEN_BRACE ||
        following === CLOSE_BRACE)
    );
  }

  /** A line at column 0 starting `---` or `...`: the document ends there (js-yaml's business). */
  private atDocumentBoundary(p: number): boolean {
    return this.isMarkerAt(p, DASH) || this.isMarkerAt(p, DOT);
  }

  /**
   * The end (past the last non-space) of one line of a block plain scalar starting at `start`;
   * leaves `pos` at the line break, the end of the text, or the `#` of a trailing comment.
   * A `: ` inside is not ours (js-yaml would read a key there, or fail).
   */
  private plainLineEnd(start: number): number {
    const bytes = this.bytes;
    let p = start;
    let end = start;
    for (;;) {
      const b = bytes[p];
      if (b === undefined || b === LF) break;
      if (b === COLON) {
        const following = bytes[p + 1];
        if (following === SPACE || following === LF || following === undefined) outside();
      } else if (b === HASH && bytes[p - 1] === SPACE) break;
      p++;
      if (b !== SPACE) end = p;
    }
    this.pos = p;
    return end;
  }

  /**
   * After a line break inside a quoted scalar: skips empty lines and the next line's indent,
   * which must exceed `parentIndent` (js-yaml: "deficient indentation"). Returns the number of
   * line breaks.
   */
  private quotedLineBreak(parentIndent: number): number {
    const bytes = this.bytes;
    let p = this.pos;
    let breaks = 0;
    let indent = 0;
    while (bytes[p] === LF) {
      breaks++;
      p++;
      this.lineStart = p;
      while (bytes[p] === SPACE) p++;
      indent = p - this.lineStart;
    }
    if (p >= bytes.length || indent <= parentIndent) outside();
    if (indent === 0 && this.atDocumentBoundary(p)) outside();
    this.pos = p;
    return breaks;
  }

  /** A single-quoted scalar at `pos`; `parentIndent` as for readPlain (-1: one line only). */
  private readSingleQuoted(parentIndent: number): string {
    const bytes = this.bytes;
    let p = ++this.pos;
    let segmentStart = p;
    let text = '';
    let keptEnd = p; // past the last character a line fold keeps
    for (;;) {
      const b = bytes[p];
      if (b === undefined) outside();
      if (b === SINGLE_QUOTE) {
        if (bytes[p + 1] !== SINGLE_QUOTE) {
          this.pos = p + 1;
          return text + bytes.toString('utf8', segmentStart, p);
        }
        text += bytes.toString('utf8', segmentStart, p + 1);
        p += 2;
        segmentStart = keptEnd = p;
      } else if (b === LF) {
        text += this.foldQuotedLine(segmentStart, keptEnd, p, parentIndent);
        p = segmentStart = keptEnd = this.pos;
      } else {
        p++;
        if (b !== SPACE) keptEnd = p;
      }
    }
  }

  /**
   * At a line break inside a quoted scalar (`at`): the line's text up to its last kept byte and
   * the break folded as js-yaml folds it; `pos` is left at the next line's content.
   */
  private foldQuotedLine(segmentStart: number, keptEnd: number, at: number, parentIndent: number): string {
    if (parentIndent < 0) outside();
    const line = this.bytes.toString('utf8', segmentStart, keptEnd);
    this.pos = at;
    const breaks = this.quotedLineBreak(parentIndent);
    return line + (breaks === 1 ? ' ' : '\n'.repeat(breaks - 1));
  }

  /** A double-quoted scalar at `pos`, with js-yaml's escapes. */
  private readDoubleQuoted(parentIndent: number): string {
    const bytes = this.bytes;
    let p = ++this.pos;
    let segmentStart = p;
    let text = '';
    let keptEnd = p;
    for (;;) {
      const b = bytes[p];
      if (b === undefined) outside();
      if (b === DOUBLE_QUOTE) {
        this.pos = p + 1;
        return text + bytes.toString('utf8', segmentStart, p);
      }
      if (b === BACKSLASH) {
        text += bytes.toString('utf8', segmentStart, p);
        const escaped = bytes[p + 1];
        const simple = SIMPLE_ESCAPES.get(escaped);
        if (simple !== undefined) {
          text += simple;
          p += 2;
        } else if (escaped === LF) {
          // An escaped line break joins the lines; js-yaml also drops empty lines after it
          // (the spec keeps them), so those are not ours.
          if (parentIndent < 0) outside();
          this.pos = p + 1;
          if (this.quotedLineBreak(parentIndent) !== 1) outside();
          p = this.pos;
        } else {
          const length = HEX_ESCAPE_LENGTH.get(escaped);
          if (length === undefined) outside();
          let code = 0;
          for (let i = 0; i < length; i++) {
            const digit = hexValue(bytes[p + 2 + i]);
            if (digit < 0) outside();
            code = code * 16 + digit;
          }
          if (code > 0x10ffff) outside();
          text += fromCodePoint(code);
          p += 2 + length;
        }
        segmentStart = keptEnd = p;
      } else if (b === LF) {
        text += this.foldQuotedLine(segmentStart, keptEnd, p, parentIndent);
        p = segmentStart = keptEnd = this.pos;
      } else {
        p++;
        if (b !== SPACE) keptEnd = p;
      }
    }
  }

  /**
   * A flow sequence of scalars and nested flow sequences (and `{}`), over one or more lines
   * indented more than `parentIndent`; no comments, no pairs, no empty or trailing entries.
   */
  private readFlowSequence(parentIndent: number, depth: number): unknown[] {
    if (depth > MAX_DEPTH) outside();
    const bytes = this.bytes;
    const items: unknown[] = [];
    this.pos++; // [
    this.skipFlowSpace(parentIndent);
    if (bytes[this.pos] === CLOSE_BRACKET) {
      this.pos++;
      return items;
    }
    for (;;) {
      const c = bytes[this.pos];
      if (c === SINGLE_QUOTE) items.push(this.readSingleQuoted(parentIndent));
      else if (c === DOUBLE_QUOTE) items.push(this.readDoubleQuoted(parentIndent));
      else if (c === OPEN_BRACKET) items.push(this.readFlowSequence(parentIndent, depth + 1));
      else if (c === OPEN_BRACE) {
        this.pos++;
        this.skipFlowSpace(parentIndent);
        if (bytes[this.pos] !== CLOSE_BRACE) outside();
        this.pos++;
        items.push({});
      } else items.push(this.readFlowPlain());
      this.skipFlowSpace(parentIndent);
      const next = bytes[this.pos];
      this.pos++;
      if (next === CLOSE_BRACKET) return items;
      if (next !== COMMA) outside();
      this.skipFlowSpace(parentIndent);
      if (bytes[this.pos] === CLOSE_BRACKET) outside(); // a trailing comma
    }
  }

  /** Spaces and line breaks inside a flow sequence; each new line indented past `parentIndent`. */
  private skipFlowSpace(parentIndent: number): void {
    const bytes = this.bytes;
    while (bytes[this.pos] === SPACE) this.pos++;
    if (bytes[this.pos] === LF) {
      this.quotedLineBreak(parentIndent);
      if (bytes[this.pos] === HASH) outside();
    } else if (bytes[this.pos] === HASH) outside();
  }

  /** A plain scalar inside a flow sequence: one line, ended by `,` or `]`. */
  private readFlowPlain(): unknown {
    const bytes = this.bytes;
    const start = this.pos;
    const c = bytes[start];
    if (NOT_PLAIN_START[c] === 1 || c === undefined || c === LF || (c === DASH && !this.dashStartsPlain(start, true)))
      outside();
    let p = start;
    let end = start;
    for (;;) {
      const b = bytes[p];
      if (b === COMMA || b === CLOSE_BRACKET) break;
      if (
        b === undefined ||
        b === LF ||
        b === COLON ||
        b === OPEN_BRACKET ||
        b === OPEN_BRACE ||
        b === CLOSE_BRACE ||
        (b === HASH && bytes[p - 1] === SPACE)
      )
        outside();
      p++;
      if (b !== SPACE) end = p;
    }
    this.pos = p;
    return resolvePlainScalar(bytes.toString('utf8', start, end));
  }
}

/**
 * The document in `input` when it is in the subset (exactly what js-yaml would load), else
 * undefined. Never throws.
 */
export function readYamlSubset(input: string | Uint8Array): unknown {
  let bytes: Buffer;
  if (typeof input === 'string') {
    // A lone surrogate would become U+FFFD in the bytes, where js-yaml sees the surrogate.
    if (!(input as string & { isWellFormed(): boolean }).isWellFormed()) return undefined;
    bytes = Buffer.from(input, 'utf8');
  } else {
    bytes = Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
    if (!isUtf8(bytes)) return undefined;
  }
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  if (!printableBytes(bytes, start)) return undefined;
  try {
    return new SubsetReader(bytes, start).read();
  } catch {
    // outside the subset, or a stack overflow on deep nesting: js-yaml decides
    return undefined;
  }
}
