/**
 * How search reads text as words, said once for the index, the query and the snippets: words
 * are the runs between breaks (line ends, spaces, punctuation: WORD_BREAK), folded to lower case
 * without accents (`fold`). Text is split by asking each character whether it is a break
 * (`isBreak`: a table taken from the same class; a Unicode class costs several times more), by
 * the expression itself only past the first 65,536 characters.
 */
import { remembered } from '../lazy.js';

/** Case and accents folded: `Café` and `CAFE` are both `cafe`. */
export function fold(text: string): string {
  // Most words are ASCII: lower-casing is all they need (and costs a fraction of normalising).
  if (ASCII.test(text)) return text.toLowerCase();
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

// eslint-disable-next-line no-control-regex -- the ASCII range is what it tests
const ASCII = /^[\u0000-\u007f]*$/;

/**
 * fold() of an indexed word, or null for an empty one, remembered: a library repeats its words,
 * and a lookup costs less than folding again (the memory is dropped past FOLD_CACHE words).
 */
const FOLD_CACHE = 100_000;
export const foldCached = remembered((term: string): string | null => fold(term) || null, FOLD_CACHE);

/** What words break on: line ends, spaces and punctuation (MiniSearch's own rule), as a class. */
const BREAK_CLASS = String.raw`\n\r\p{Z}\p{P}`;
/** Words as the index splits them. */
const WORD_BREAK = new RegExp(`[${BREAK_CLASS}]+`, 'u');
/** A word, as the index splits them (search-snippet.ts finds words with it in text that is not ASCII). */
export const WORD = new RegExp(`[^${BREAK_CLASS}]+`, 'gu');
/** The ASCII characters WORD_BREAK breaks on, taken from it (1), by code. */
const BREAKS = Uint8Array.from({ length: 128 }, (_, code) => (WORD_BREAK.test(String.fromCharCode(code)) ? 1 : 0));
/** Characters past ASCII as WORD_BREAK takes them, learnt when first met: 1 a break, 2 not. */
const WIDE_BREAKS = new Uint8Array(0x10000);
/**
 * Whether WORD_BREAK breaks on the character whose code (a UTF-16 unit) is `code`: a table for
 * ASCII, the expression asked once for each other character met. Half of a surrogate pair never
 * counts as one (the pair is one character to the expression): a scan meeting one falls back.
 */
export function isBreak(code: number): boolean {
  if (code < 128) return BREAKS[code] === 1;
  let known = WIDE_BREAKS[code]!;
  if (!known) known = WIDE_BREAKS[code] = !isSurrogate(code) && WORD_BREAK.test(String.fromCharCode(code)) ? 1 : 2;
  return known === 1;
}
/** Whether `code` is half of a surrogate pair. */
export function isSurrogate(code: number): boolean {
  return (code & 0xf800) === 0xd800;
}

/**
 * `text.split(WORD_BREAK)`, the same array, without the regular expression but for text with a
 * character beyond the first 65,536 (a Unicode class makes the split several times slower).
 */
export function splitWords(text: string): string[] {
  const out: string[] = [];
  const n = text.length;
  let start = 0;
  let i = 0;
  while (i < n) {
    let code = text.charCodeAt(i);
    if (isSurrogate(code)) return text.split(WORD_BREAK);
    if (!isBreak(code)) {
      i++;
      continue;
    }
    out.push(text.slice(start, i));
    while (++i < n) {
      code = text.charCodeAt(i);
      if (isSurrogate(code)) return text.split(WORD_BREAK);
      if (!isBreak(code)) break;
    }
    start = i;
  }
  out.push(text.slice(start));
  return out;
}
/** A text's words as a query's are read: split at breaks, folded, empty ones left out. */
export function words(text: string): string[] {
  return splitWords(text)
    .map(fold)
    .filter((word) => word.length > 0);
}
