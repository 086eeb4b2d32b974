/**
 * A result's snippet: a short window of the field that matched, redacted as every read redacts
 * text (trust/redaction.ts), with each matching word marked `**like this**`. The CLI turns the
 * marks into highlighting and the page into <mark>; a model reads them as emphasis.
 */
import { remembered } from '../lazy.js';
import { redactText } from '../trust/redaction.js';
import { fold, isBreak, WORD } from './search-words.js';

/** Characters a snippet shows at most (marks and ellipses aside). */
export const SNIPPET_WIDTH = 120;
/** Characters shown before the first match when the text is cut. */
const LEAD = 30;

/**
 * A part redacted (redactText, cut at 4,000 characters), remembered: the same summaries and
 * actions are shown by search after search, and the credential rules cost more than a lookup.
 * The memory is dropped past REDACTED_CACHE parts or REDACTED_CHARS characters of redacted text
 * (5,000 parts of up to 4,000 characters would otherwise be 20 MB); a part redaction leaves as it
 * was is held once (the parsed manifest's own string), not as a second copy.
 */
const REDACTED_CACHE = 5_000;
const REDACTED_CHARS = 500_000;
const redactedPart = remembered(
  (part: string) => {
    const text = redactText(part, 4_000);
    return text === part ? part : text;
  },
  REDACTED_CACHE,
  // A part left as it was weighs nothing: it is the manifest's own string.
  { weigh: (text, part) => (text === part ? 0 : text.length), max: REDACTED_CHARS },
);

/** The matched words' first letters as bits (matchedSpans): one array, filled anew by each call. */
const FIRSTS = new Uint32Array(4);

/**
 * Where `text`'s words (runs WORD matches) that fold to a matched word lie, in order (the first
 * only when `one`). Text whose words are ASCII (whatever its breaks: a snippet's parts are joined
 * by ' · ') is scanned character by character (`isBreak`), a word cut out and folded only when its
 * length and first letter are a matched word's (a Unicode class, and a string per word, cost
 * several times more); text with other letters goes through WORD.
 */
function matchedSpans(text: string, matched: ReadonlySet<string>, one: boolean): [number, number][] {
  const spans: [number, number][] = [];
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 127 && !isBreak(code)) {
      for (const word of text.matchAll(WORD))
        if (matched.has(fold(word[0])) && spans.push([word.index, word.index + word[0].length]) && one) break;
      return spans;
    }
  }
  // The matched words' lengths (below 32) and first letters (folded), as bits.
  let lengths = 0;
  const firsts = FIRSTS.fill(0);
  for (const word of matched) {
    lengths |= word.length < 32 ? 1 << word.length : 0;
    const first = word.charCodeAt(0) & 127;
    firsts[first >> 5]! |= 1 << (first & 31);
  }
  for (let i = 0; i < text.length;) {
    while (i < text.length && isBreak(text.charCodeAt(i))) i++;
    const start = i;
    while (i < text.length && !isBreak(text.charCodeAt(i))) i++;
    const length = i - start;
    if (length === 0 || (length < 32 && !(lengths & (1 << length)))) continue;
    let first = text.charCodeAt(start);
    if (first >= 65 && first <= 90) first += 32;
    if (!(firsts[first >> 5]! & (1 << (first & 31)))) continue;
    if (matched.has(text.slice(start, i).toLowerCase()) && spans.push([start, i]) && one) break;
  }
  return spans;
}

/** Whether `text` holds one of the matched words. */
export function holds(text: string, matched: ReadonlySet<string>): boolean {
  return matchedSpans(text, matched, true).length > 0;
}

/**
 * The parts of a field redacted one by one (a session action that looks like a credential
 * hides itself, not its neighbours) and joined, cut to a window around the first matching word,
 * the matching words marked.
 */
export function snippet(
  source: string | readonly string[],
  matched: ReadonlySet<string>,
  width = SNIPPET_WIDTH,
): string {
  const parts = typeof source === 'string' ? [source] : source;
  const text = parts.map(redactedPart).filter(Boolean).join(' · ');
  const spans = matchedSpans(text, matched, false);
  let start = 0;
  const first = spans[0];
  if (first !== undefined && text.length > width && first[0] > LEAD) {
    start = first[0] - LEAD;
    const space = text.indexOf(' ', start);
    if (space !== -1 && space < first[0]) start = space + 1;
  }
  let end = Math.min(text.length, start + width);
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end);
    if (space > start + width / 2) end = space;
  }
  let out = start > 0 ? '…' : '';
  let at = start;
  for (const [from, to] of spans) {
    if (to <= start || from >= end) continue;
    out += text.slice(at, from) + '**' + text.slice(from, to) + '**';
    at = to;
  }
  out += text.slice(at, end);
  return end < text.length ? out.trimEnd() + '…' : out;
}
