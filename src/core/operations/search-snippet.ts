/**
 * A result's snippet: a short window of the field that matched, redacted as every read redacts
 * text (trust/redaction.ts), with each matching word marked `**like this**`. The CLI turns the
 * marks into highlighting and the page into <mark>; a model reads them as emphasis.
 */
import { remembered } from '../lazy.js';
import { redactText } from '../trust/redaction.js';
import { BREAKS, fold } from './search-index.js';

/** Characters a snippet shows at most (marks and ellipses aside). */
export const SNIPPET_WIDTH = 120;
/** Characters shown before the first match when the text is cut. */
const LEAD = 30;
const WORD = /[^\n\r\p{Z}\p{P}]+/gu;

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

/**
 * Each word of `text` (a run WORD matches), folded, with where it lies, passed to `visit` until
 * it answers true. ASCII text is scanned by the index's table of breaks and folded by lower-
 * casing it once (a Unicode class costs several times more); other text goes through WORD.
 */
function eachWord(text: string, visit: (word: string, start: number, end: number) => boolean): void {
  for (let i = 0; i < text.length; i++)
    if (text.charCodeAt(i) > 127) {
      for (const word of text.matchAll(WORD)) if (visit(fold(word[0]), word.index, word.index + word[0].length)) return;
      return;
    }
  const lower = text.toLowerCase();
  for (let i = 0; i < text.length;) {
    while (i < text.length && BREAKS[text.charCodeAt(i)]) i++;
    const start = i;
    while (i < text.length && !BREAKS[text.charCodeAt(i)]) i++;
    if (i > start && visit(lower.slice(start, i), start, i)) return;
  }
}

/** Whether `text` holds one of the matched words. */
export function holds(text: string, matched: ReadonlySet<string>): boolean {
  let found = false;
  eachWord(text, (word) => (found = matched.has(word)));
  return found;
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
  const spans: [number, number][] = [];
  eachWord(text, (word, from, to) => {
    if (matched.has(word)) spans.push([from, to]);
    return false;
  });
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
