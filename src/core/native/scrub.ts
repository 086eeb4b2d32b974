/**
 * The engine's scrubber for text read from an agent's native memory (the codex participant's
 * `_safe_native_memory_text`, shared by cursor and copilot-cli), and the small pieces of Python's
 * text semantics it relies on. Python counts code points, treats a wider set of characters as
 * whitespace than JavaScript and has Unicode word boundaries; each is reproduced here so a port
 * cuts, collapses and redacts exactly where the engine does.
 */

import { codePointLength, codePointPrefix, PY_WHITESPACE as WS, pyRstrip, pyStrip } from './python-text.js';

export { codePointLength, codePointPrefix, pyLstrip, pyRstrip, pyStrip } from './python-text.js';

const WS_RUN = new RegExp(`[${WS}]+`, 'g');

/** Python's `\b` on str patterns: word characters are letters, digits and `_` in any script. */
const WORD = '[\\p{L}\\p{N}_]';
const START = `(?<!${WORD})`;
const END = `(?!${WORD})`;

/** Text that names or holds a credential: the whole text is replaced, not just the match. */
export const CREDENTIAL_PATTERNS: readonly RegExp[] = [
  new RegExp(`${START}api[_-]?key${END}`, 'iu'),
  new RegExp(`${START}api[_-]?token${END}`, 'iu'),
  new RegExp(`${START}access[_-]?token${END}`, 'iu'),
  new RegExp(`${START}bearer[${WS}]+token${END}`, 'iu'),
  new RegExp(`${START}password${END}`, 'iu'),
  new RegExp(`${START}sk_live_[A-Za-z0-9_]+${END}`, 'u'),
  new RegExp(`${START}hf_[A-Za-z0-9_]{10,}${END}`, 'iu'),
];
/**
 * A word every credential pattern needs, under the same flags (`iu`: `ſ` and the Kelvin sign
 * fold as those do): a text with none is no credential, found in one pass of a pattern that has
 * no lookaround and no `\p{…}` class, and the seven above are not run (nor compiled) for it.
 */
const CREDENTIAL_WORD = /api|access|bearer|password|sk_live_|hf_/iu;
const URL_PATTERN = new RegExp(`https?://[^${WS}]+`, 'gu');

export const REDACTED_TEXT = '[redacted credential-like text]';
const LINK_TEXT = '[link]';
/** The engine's default cut for a native snippet. */
const DEFAULT_SNIPPET_LIMIT = 180;

/** Python's `" ".join(value.split())`: whitespace runs become one space, ends trimmed. */
export function collapseWhitespace(value: string): string {
  return pyStrip(value).replace(WS_RUN, ' ');
}

/** Python's `value.split()`: the non-empty runs between whitespace. */
export function pySplit(value: string): string[] {
  return pyStrip(value)
    .split(WS_RUN)
    .filter((part) => part !== '');
}

/** True when the text names or holds a credential (the engine's list). */
export function looksLikeCredential(value: string): boolean {
  return CREDENTIAL_WORD.test(value) && CREDENTIAL_PATTERNS.some((pattern) => pattern.test(value));
}

/** Cuts `value` to `limit` code points, the last `marker.length` of them being the marker. */
function cut(value: string, limit: number, marker: string): string {
  // A string of at most `limit` UTF-16 units has at most `limit` code points: the common case is free.
  if (value.length <= limit || codePointLength(value) <= limit) return value;
  return pyStrip(codePointPrefix(value, Math.max(0, limit - codePointLength(marker)))) + marker;
}

/**
 * The engine's native-memory scrubber: whitespace collapsed; a text that looks like it holds a
 * credential becomes `[redacted credential-like text]` as a whole; URLs become `[link]`; the rest
 * is cut to `limit` code points ending in `...`.
 */
export function scrubNativeText(value: string, limit: number = DEFAULT_SNIPPET_LIMIT): string {
  const text = collapseWhitespace(value);
  if (looksLikeCredential(text)) return REDACTED_TEXT;
  return cut(text.replace(URL_PATTERN, LINK_TEXT), limit, '...');
}

/**
 * The engine's collapse-and-cut: whitespace collapsed; a text longer than `limit` code points
 * keeps its first `limit - 1`, right-trimmed, plus `ellipsis` (so `...` may end 2 past `limit`).
 */
export function collapseAndCut(value: string, limit: number, ellipsis: string): string {
  const text = collapseWhitespace(value);
  if (text.length <= limit || codePointLength(text) <= limit) return text;
  return pyRstrip(codePointPrefix(text, limit - 1)) + ellipsis;
}

/** Whitespace collapsed and cut to `limit` code points ending in `…` (copilot-cli's `_bounded`). */
export function boundText(value: string, limit: number): string {
  return collapseAndCut(value, limit, '…');
}

const WORD_CHAR = new RegExp(`^${WORD}$`, 'u');
const wordPatterns = new Map<string, RegExp>();

/**
 * Python's `re.search(rf"\b{re.escape(word)}\b", text)`: `word` occurs with a word boundary on
 * each side. A boundary is a change between word and non-word characters, so an end of `word`
 * that is not a word character needs a word character beside it.
 */
export function containsWord(text: string, word: string): boolean {
  if (!word) return false;
  let pattern = wordPatterns.get(word);
  if (!pattern) {
    const first = String.fromCodePoint(word.codePointAt(0)!);
    const last = Array.from(word.slice(-2)).pop()!;
    const before = WORD_CHAR.test(first) ? `(?<!${WORD})` : `(?<=${WORD})`;
    const after = WORD_CHAR.test(last) ? `(?!${WORD})` : `(?=${WORD})`;
    const literal = word.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
    pattern = new RegExp(`${before}${literal}${after}`, 'u');
    // A turn asks about one repository name, thousands of times: compiled once.
    if (wordPatterns.size >= 64) wordPatterns.clear();
    wordPatterns.set(word, pattern);
  }
  return pattern.test(text);
}
