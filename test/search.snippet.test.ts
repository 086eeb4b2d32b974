/**
 * A result's snippet marks the words the query matched. Its words are found by a table for ASCII
 * text and by the Unicode expression for the rest; on random texts — punctuation, tabs, accents,
 * non-breaking spaces, long texts cut to a window — the snippet and `holds` are those the
 * expression alone gives (the reference below: every word by the expression, folded by fold()).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fold } from '../src/core/operations/search-words.js';
import { holds, snippet, SNIPPET_WIDTH } from '../src/core/operations/search-snippet.js';
import { redactText } from '../src/core/trust/redaction.js';

const WORD = /[^\n\r\p{Z}\p{P}]+/gu;

/** The matched words' spans as the expression finds them. */
function spansOf(text: string, matched: ReadonlySet<string>): [number, number][] {
  const spans: [number, number][] = [];
  for (const word of text.matchAll(WORD))
    if (matched.has(fold(word[0]))) spans.push([word.index, word.index + word[0].length]);
  return spans;
}

const piece = fc.oneof(
  fc.constantFrom('Route', 'route', 'ROUTER', 'café', 'Cafe', 'tide', 'x', '42', 'naïve', 'Ünïcode'),
  fc.constantFrom(' ', '  ', '\t', '\n', '.', ', ', '-', '_', '$', '+', '/', '\u00a0', ' — ', '…', '·'),
  fc.string({ unit: 'binary', maxLength: 6 }),
);
const text = fc.array(piece, { maxLength: 60 }).map((parts) => parts.join(''));
const matched = fc
  .uniqueArray(fc.constantFrom('route', 'router', 'cafe', 'tide', 'x', '42', 'naive', 'unicode', 'zz'), {
    maxLength: 4,
  })
  .map((words) => new Set<string>(words));

describe('search snippets', () => {
  it('mark the words the Unicode expression finds, ASCII or not, one part or several, cut or whole', () => {
    // A result's snippet is made of parts (a summary, its aliases, its tags) joined by ' · '.
    const source = fc.oneof(text, fc.array(text, { maxLength: 4 }));
    fc.assert(
      fc.property(source, matched, (source, words) => {
        const shown = snippet(source, words, SNIPPET_WIDTH);
        // The snippet is cut from the text as every read shows it (spaces collapsed, credentials hidden).
        const parts = typeof source === 'string' ? [source] : source;
        const read = parts
          .map((part) => redactText(part, 4_000))
          .filter(Boolean)
          .join(' · ');
        const spans = spansOf(read, words);
        // Each marked word is a matched one, and a text short enough shows every match marked.
        for (const [, inner] of shown.matchAll(/\*\*(.+?)\*\*/gu)) expect(words.has(fold(inner!))).toBe(true);
        if (read.length <= SNIPPET_WIDTH) {
          let expected = '';
          let at = 0;
          for (const [from, to] of spans) {
            expected += read.slice(at, from) + '**' + read.slice(from, to) + '**';
            at = to;
          }
          expect(shown).toBe(expected + read.slice(at));
        }
        for (const part of parts) expect(holds(part, words)).toBe(spansOf(part, words).length > 0);
      }),
      { numRuns: 400 },
    );
  });
});
