/**
 * Python's `str` semantics the engine's rules are written in, once for core and the exporters:
 * its whitespace (`str.isspace`, `\s` in a `str` pattern: JavaScript's `\s` minus U+FEFF, plus
 * U+001C–U+001F and U+0085), its line breaks (`str.splitlines`), lengths and prefixes in code
 * points (`len`, `text[:n]`), and its string order (by code point; JavaScript compares UTF-16
 * units). The stripping functions are loops, not regular expressions, so a long run of blanks
 * costs linear time.
 */

/** Python's whitespace as a character-class body, for patterns built from it. */
export const PY_WHITESPACE =
  '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';

/** Whether a UTF-16 unit is Python whitespace (every whitespace character is in the BMP). */
export function isPySpaceUnit(unit: number): boolean {
  if (unit <= 0x20) return (unit >= 0x09 && unit <= 0x0d) || unit >= 0x1c;
  if (unit < 0x85) return false;
  return (
    unit === 0x85 ||
    unit === 0xa0 ||
    unit === 0x1680 ||
    (unit >= 0x2000 && unit <= 0x200a) ||
    unit === 0x2028 ||
    unit === 0x2029 ||
    unit === 0x202f ||
    unit === 0x205f ||
    unit === 0x3000
  );
}

/** Python's `str.lstrip()`. */
export function pyLstrip(text: string): string {
  let start = 0;
  while (start < text.length && isPySpaceUnit(text.charCodeAt(start))) start++;
  return start === 0 ? text : text.slice(start);
}

/** Python's `str.rstrip()`. */
export function pyRstrip(text: string): string {
  let end = text.length;
  while (end > 0 && isPySpaceUnit(text.charCodeAt(end - 1))) end--;
  return end === text.length ? text : text.slice(0, end);
}

/** Python's `str.strip()`. */
export function pyStrip(text: string): string {
  return pyLstrip(pyRstrip(text));
}

/** Every line boundary `str.splitlines()` knows: `\r\n`, then each of these characters. */
// eslint-disable-next-line no-control-regex -- the separators are line boundaries in Python
export const PY_LINE_BREAK = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/u;

/** Python's `str.splitlines()`: every line boundary it knows, no trailing empty line. */
export function pySplitLines(text: string): string[] {
  const lines = text.split(PY_LINE_BREAK);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The number of code points in `value` (Python's `len`). */
export function codePointLength(value: string): number {
  let count = 0;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/** The first `count` code points of `value` (Python's `value[:count]`). */
export function codePointPrefix(value: string, count: number): string {
  let end = 0;
  for (let taken = 0; taken < count && end < value.length; taken++) {
    const unit = value.charCodeAt(end);
    const pair = unit >= 0xd800 && unit <= 0xdbff && end + 1 < value.length;
    end += pair && value.charCodeAt(end + 1) >= 0xdc00 && value.charCodeAt(end + 1) <= 0xdfff ? 2 : 1;
  }
  return value.slice(0, end);
}

/**
 * Python's default string order, by code point (a lone surrogate is its own code point), without
 * splitting either string: the first unit that differs decides, read as the code point it is
 * part of. Negative, zero or positive.
 */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  let i = 0;
  while (i < length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === length) return a.length - b.length;
  // A low surrogate that differs after the same high one: the code point starts one unit back.
  const previous = i > 0 ? a.charCodeAt(i - 1) : 0;
  if (previous >= 0xd800 && previous <= 0xdbff) i--;
  return (a.codePointAt(i) ?? 0) - (b.codePointAt(i) ?? 0);
}
