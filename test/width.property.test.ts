/**
 * How human output fits a width (src/cli/width.ts): display widths as a terminal draws them,
 * and wrapped text whose every line fits, with nothing lost: on generated lines of words, long
 * unbreakable tokens (paths, URLs), wide CJK text and colour codes, at widths from 20 to 120.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { displayWidth, stripColour, truncate, wrapText } from '../src/cli/width.js';

const word = fc.oneof(
  fc.stringMatching(/^[a-z]{1,12}$/),
  fc.stringMatching(/^(\/[a-z0-9.-]{2,24}){3,10}$/),
  fc.stringMatching(/^https:\/\/[a-z.]{4,20}(\/[a-z0-9?=&-]{2,30}){2,6}$/),
  fc.stringMatching(/^[\u3041-\u3093\u4e00-\u4e80]{1,40}$/),
  fc.stringMatching(/^[a-z]{1,10}$/).map((text) => `\u001b[1m${text}\u001b[22m`),
);
const line = fc
  .tuple(fc.stringMatching(/^ {0,8}$/), fc.array(fc.tuple(fc.stringMatching(/^ {1,3}$/), word), { maxLength: 30 }))
  .map(
    ([lead, words]) =>
      lead +
      words
        .map(([gap, text]) => gap + text)
        .join('')
        .trimStart(),
  );

describe('display width', () => {
  it('counts columns as a terminal draws them', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('同期エンジン')).toBe(12);
    expect(displayWidth('ｆｕｌｌ')).toBe(8);
    expect(displayWidth('\u001b[31mred\u001b[39m')).toBe(3);
    expect(displayWidth('e\u0301')).toBe(1);
    expect(displayWidth('🚀')).toBe(2);
    // A grapheme is one thing drawn: a family joined by zero-width joiners, a flag, a keycap.
    expect(displayWidth('👨‍👩‍👧')).toBe(2);
    expect(displayWidth('🇫🇷')).toBe(2);
    expect(displayWidth('#️⃣')).toBe(2);
    expect(displayWidth('한국어')).toBe(6);
  });

  it('never cuts inside a grapheme', () => {
    const family = '👨‍👩‍👧';
    // Continued lines are indented: the pieces, without it, are whole families.
    const pieces = wrapText(family.repeat(30), 20)
      .split('\n')
      .map((piece) => piece.trimStart());
    expect(pieces.join('')).toBe(family.repeat(30));
    for (const piece of pieces) expect(piece.length % family.length).toBe(0);
    expect(truncate(`ab${family}cd`, 4)).toBe('ab…');
    expect(truncate(`ab${family}cd`, 5)).toBe(`ab${family}…`);
  });

  it('truncate cuts to the columns, ellipsis included', () => {
    fc.assert(
      fc.property(line, fc.integer({ min: 1, max: 60 }), (text, max) => {
        const plain = stripColour(text);
        const cut = truncate(plain, max);
        expect(displayWidth(cut)).toBeLessThanOrEqual(max);
        if (displayWidth(plain) > max) expect(cut.endsWith('…')).toBe(true);
        else expect(cut).toBe(plain);
      }),
    );
  });
});

describe('wrapText', () => {
  it('every line fits the width, and no character is lost or reordered', () => {
    fc.assert(
      fc.property(
        line,
        fc.integer({ min: 20, max: 120 }),
        fc.option(fc.integer({ min: 0, max: 40 })),
        (text, width, continuation) => {
          const wrapped = wrapText(text, width, continuation ?? undefined);
          for (const shown of wrapped.split('\n')) expect(displayWidth(shown), shown).toBeLessThanOrEqual(width);
          expect(wrapped.replace(/\s+/g, '')).toBe(text.replace(/\s+/g, ''));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a line that fits is left as it is; null leaves everything', () => {
    expect(wrapText('  aligned   columns  stay', 80)).toBe('  aligned   columns  stay');
    const long = 'word '.repeat(40);
    expect(wrapText(long, null)).toBe(long);
  });

  it('a line that opens with a colour code keeps its indentation', () => {
    const text = '\u001b[32m  + 2026-12-02 /home/developer/workspaces/client-projects\u001b[39m';
    expect(wrapText(text, 40).split('\n')).toEqual([
      '\u001b[32m  + 2026-12-02 /home/developer/',
      '    workspaces/client-projects\u001b[39m',
    ]);
  });

  it('a path breaks after a folder, continued under the indentation', () => {
    const text = '  library /home/developer/workspaces/client-projects/acme-corporation/mobile-clients/packages';
    expect(wrapText(text, 50).split('\n')).toEqual([
      '  library /home/developer/workspaces/',
      '    client-projects/acme-corporation/',
      '    mobile-clients/packages',
    ]);
  });
});
