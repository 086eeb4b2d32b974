/**
 * Text primitives the codex rules are written in. The engine's rules are Python string and `re`
 * operations, whose meaning differs from JavaScript's in places that change output: whitespace is
 * Unicode (`str.isspace`), `\b` is a Unicode word boundary, lengths count code points, `title()`
 * and `islower()` follow Python. These helpers reproduce those meanings once, for every module.
 */

import { PY_WHITESPACE as WHITESPACE, pyStrip } from '../../core/native/python-text.js';

// Python's whitespace, line breaks, code-point lengths, prefixes and order are core's
// (core/native/python-text.ts), written once for the exporters and the turn compiler.
export {
  codePointLength,
  codePointPrefix,
  compareCodePoints,
  pyLstrip as lstrip,
  pyRstrip as rstrip,
  pyStrip as strip,
  pySplitLines as splitLines,
} from '../../core/native/python-text.js';

const WHITESPACE_RUN = new RegExp(`[${WHITESPACE}]+`, 'gu');
/** `\s` for patterns built from Python source. */
const S = `[${WHITESPACE}]`;

/** `str.strip(chars)` for a set of plain characters. */
export function stripChars(text: string, chars: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && chars.includes(text.charAt(start))) start++;
  while (end > start && chars.includes(text.charAt(end - 1))) end--;
  return text.slice(start, end);
}

/** The engine's `_normalize_text`: trimmed, every whitespace run one space. */
export function normalizeText(text: string): string {
  return pyStrip(text).replace(WHITESPACE_RUN, ' ');
}

/** A Python word character in a `str` pattern: a letter, a number or `_`. */
const WORD_CHAR = /^[\p{L}\p{N}_]$/u;

function isWordChar(char: string | undefined): boolean {
  return char !== undefined && WORD_CHAR.test(char);
}

/** The code point starting at `index`, or undefined at the end. */
function charAt(text: string, index: number): string | undefined {
  const point = text.codePointAt(index);
  return point === undefined ? undefined : String.fromCodePoint(point);
}

/** The code point ending just before `index`, or undefined at the start. */
function charBefore(text: string, index: number): string | undefined {
  if (index <= 0) return undefined;
  const unit = text.charCodeAt(index - 1);
  if (unit >= 0xdc00 && unit <= 0xdfff && index >= 2) {
    const high = text.charCodeAt(index - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.slice(index - 2, index);
  }
  return text[index - 1];
}

/** Python's `\b` at `index`: a word character on exactly one side. */
function isBoundary(text: string, index: number): boolean {
  return isWordChar(charBefore(text, index)) !== isWordChar(charAt(text, index));
}

/**
 * A RegExp from a Python pattern (no `\b`): `\d` gets Unicode digits, `\s` Python's whitespace.
 * Always a `u` regex; `i` when the engine's pattern was IGNORECASE.
 */
export function pyRegex(source: string, flags = ''): RegExp {
  const translated = source.replaceAll('\\d', '\\p{Nd}').replaceAll('\\s', S);
  return new RegExp(translated, `${flags}u`);
}

/**
 * A Python pattern that may start and/or end with `\b`, Python's Unicode word boundary. The
 * boundaries are checked in code around each candidate match: a lookaround over Unicode letter
 * classes costs milliseconds to compile per pattern, and these patterns are built per project.
 */
export class PyPattern {
  private readonly scan: RegExp;
  private readonly sticky: RegExp;
  private readonly boundaryStart: boolean;
  private readonly boundaryEnd: boolean;

  constructor(source: string, flags = '') {
    this.boundaryStart = source.startsWith('\\b');
    this.boundaryEnd = source.endsWith('\\b') && !source.endsWith('\\\\b');
    const body = source.slice(this.boundaryStart ? 2 : 0, this.boundaryEnd ? -2 : undefined);
    this.scan = pyRegex(body, `${flags}g`);
    this.sticky = pyRegex(body, `${flags}y`);
  }

  private accepts(text: string, match: RegExpExecArray): boolean {
    if (this.boundaryStart && !isBoundary(text, match.index)) return false;
    return !this.boundaryEnd || isBoundary(text, match.index + match[0].length);
  }

  /** Matches left to right, not overlapping, as `re.finditer`. */
  *matchAll(text: string): Generator<RegExpExecArray> {
    this.scan.lastIndex = 0;
    for (let match = this.scan.exec(text); match !== null; match = this.scan.exec(text)) {
      if (this.accepts(text, match)) {
        if (match[0].length === 0) this.scan.lastIndex++;
        yield match;
      } else {
        this.scan.lastIndex = match.index + 1;
      }
    }
  }

  /** `re.search(...) is not None`. */
  test(text: string): boolean {
    this.scan.lastIndex = 0;
    for (let match = this.scan.exec(text); match !== null; match = this.scan.exec(text)) {
      if (this.accepts(text, match)) return true;
      this.scan.lastIndex = match.index + 1;
    }
    return false;
  }

  /** Does a match start exactly at `index`? */
  testAt(text: string, index: number): boolean {
    this.sticky.lastIndex = index;
    const match = this.sticky.exec(text);
    return match !== null && this.accepts(text, match);
  }
}

/** A literal for use inside a pattern (`re.escape`), valid in `u` mode. */
export function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

// Python's case properties: `Uppercase`/`Lowercase` (which include letter-like symbols such as
// circled and mathematical letters, that have no case mapping) and titlecase letters.
const UPPER_OR_TITLE = /^[\p{Uppercase}\p{Lt}]$/u;
const LOWER = /^\p{Lowercase}$/u;
const CASED = /^[\p{Uppercase}\p{Lowercase}\p{Lt}]$/u;

/** `str.islower()`: at least one lower-case character and no upper- or title-case one. */
export function isLower(text: string): boolean {
  let cased = false;
  for (const char of text) {
    if (UPPER_OR_TITLE.test(char)) return false;
    if (!cased && LOWER.test(char)) cased = true;
  }
  return cased;
}

/** `str.isupper()` for one character. */
export function isUpperChar(char: string): boolean {
  return UPPER_OR_TITLE.test(char) && !/^\p{Lt}$/u.test(char);
}

/** Title-case mappings that differ from the upper-case one (ligatures, digraphs, `ß`). */
const TITLE_CASE: Readonly<Record<string, string>> = {
  ß: 'Ss',
  ﬀ: 'Ff',
  ﬁ: 'Fi',
  ﬂ: 'Fl',
  ﬃ: 'Ffi',
  ﬄ: 'Ffl',
  ﬅ: 'St',
  ﬆ: 'St',
  Ǆ: 'ǅ',
  ǅ: 'ǅ',
  ǆ: 'ǅ',
  Ǉ: 'ǈ',
  ǈ: 'ǈ',
  ǉ: 'ǈ',
  Ǌ: 'ǋ',
  ǋ: 'ǋ',
  ǌ: 'ǋ',
  Ǳ: 'ǲ',
  ǲ: 'ǲ',
  ǳ: 'ǲ',
  և: 'Եւ',
  ﬓ: 'Մն',
  ﬔ: 'Մե',
  ﬕ: 'Մի',
  ﬖ: 'Վն',
  ﬗ: 'Մխ',
};

function titleChar(char: string): string {
  const mapped = TITLE_CASE[char];
  if (mapped !== undefined) return mapped;
  const point = char.codePointAt(0) ?? 0;
  // Greek with ypogegrammeni: the title case is the single prosgegrammeni letter.
  if (point >= 0x1f80 && point <= 0x1faf) return String.fromCodePoint(point | 0x08);
  if (point === 0x1fb3 || point === 0x1fc3 || point === 0x1ff3) return String.fromCodePoint(point + 9);
  // Georgian Mkhedruli letters are their own title case (their upper case is Mtavruli).
  if ((point >= 0x10d0 && point <= 0x10fa) || (point >= 0x10fd && point <= 0x10ff)) return char;
  return char.toUpperCase();
}

/** `str.title()`: a character after a cased one is lower-cased, any other title-cased. */
export function pyTitle(text: string): string {
  let previousCased = false;
  let out = '';
  for (const char of text) {
    out += previousCased ? char.toLowerCase() : titleChar(char);
    previousCased = CASED.test(char);
  }
  return out;
}

/** Keeps the first item of each key, in order (the engine's `_dedupe_preserve`). */
export function dedupe(items: readonly string[], key: (item: string) => string = (item) => item): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const item of items) {
    const marker = key(item);
    if (seen.has(marker)) continue;
    seen.add(marker);
    out.push(item);
  }
  return out;
}

export const lowerKey = (item: string): string => item.toLowerCase();
