/**
 * Help examples laid out for a width (src/cli/example-wrap.ts) stay the same command: on
 * generated command lines — quoted strings with spaces, flags with values, pipes, a trailing
 * comment — the lines, joined at their ` \` continuations, give back the words as written; no
 * quoted string is split; every line fits unless one unbreakable piece alone is wider.
 */
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shellWords, wrapExample } from '../src/cli/example-wrap.js';
import { displayWidth } from '../src/cli/width.js';

const bare = fc.stringMatching(/^[a-z0-9][a-z0-9._/-]{0,14}$/);
const quoted = fc
  .array(fc.stringMatching(/^[a-z0-9]{1,8}$/), { minLength: 1, maxLength: 5 })
  .chain((parts) => fc.constantFrom(`"${parts.join(' ')}"`, `'${parts.join('  ')}'`));
const flag = fc
  .tuple(fc.stringMatching(/^--[a-z]{2,10}$/), fc.option(fc.oneof(bare, quoted)))
  .map(([name, value]) => (value === null ? name : `${name} ${value}`));
const word = fc.oneof(bare, quoted, flag, fc.constant('|'), fc.constant('&&'));
const line = fc
  .tuple(fc.array(word, { minLength: 1, maxLength: 14 }), fc.option(fc.stringMatching(/^[a-z ,;]{1,60}$/)))
  .map(([words, comment]) => `bourdon ${words.join(' ')}${comment === null ? '' : `   # ${comment.trim() || 'x'}`}`);

/** What a shell would read: continuations joined, and the comment lines (`# …`) set aside. */
function pasted(lines: string[]): { code: string; comment: string } {
  const code: string[] = [];
  const comment: string[] = [];
  for (const raw of lines) {
    const text = raw.replace(/^\$ /, '').trim();
    if (text.startsWith('# ')) comment.push(text.slice(2));
    else code.push(text.endsWith(' \\') ? text.slice(0, -2) : text);
  }
  return { code: code.join(' '), comment: comment.join(' ') };
}

describe('example layout', () => {
  it('joined back, the lines are the command as written, and each fits where it can', () => {
    fc.assert(
      fc.property(line, fc.integer({ min: 30, max: 100 }), (example, width) => {
        const lines = wrapExample(example, width);
        const original = shellWords(example);
        const shown = pasted(lines);
        const { words, comment } = shellWords(shown.code);
        expect(words).toEqual(original.words);
        const commentWords = (text: string | null) => (text ?? '').replace(/^#\s*/, '').split(/\s+/).filter(Boolean);
        expect([...commentWords(comment), ...commentWords(shown.comment)]).toEqual(commentWords(original.comment));
        // A line may be wider only when it holds one piece (a word, or a flag and its value) that is.
        for (const text of lines) {
          if (Array.from(text).length <= width) continue;
          const pieces = shellWords(text.replace(/^\s*(\$ )?/, '').replace(/ \\$/, '')).words;
          expect(pieces.length, text).toBeLessThanOrEqual(2);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('with breakWords, every line fits, and a shell reads the words as written', () => {
    // Words longer than any line: a cursor, a path, a quoted JSON argument, an escaped space.
    const long = fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9+/=]{40,120}$/),
      fc.stringMatching(/^(\/[a-z0-9-]{3,20}){4,9}$/),
      fc.stringMatching(/^[a-z ,:{}"]{30,90}$/).map((text) => `'${text}'`),
      fc.stringMatching(/^[a-z]{20,40}$/).map((text) => `"${text} ${text}"`),
      fc.stringMatching(/^[a-z]{20,40}$/).map((text) => `${text}\\ ${text}`),
    );
    const command = fc
      .array(fc.oneof(bare, quoted, flag, long), { minLength: 1, maxLength: 8 })
      .map((words) => `printf '<%s>' ${words.join(' ')}`);
    const run = (script: string) => spawnSync('sh', ['-c', script], { encoding: 'utf8' }).stdout;
    fc.assert(
      fc.property(command, fc.integer({ min: 30, max: 100 }), (example, width) => {
        const lines = wrapExample(example, width, 'More: ', { indent: '  ', breakWords: true });
        for (const text of lines) expect(displayWidth(text), text).toBeLessThanOrEqual(width);
        expect(run(lines.join('\n').replace(/^More: /, ''))).toBe(run(example));
      }),
      { numRuns: 60 },
    );
  });

  it('a wrapped example runs in a shell as the original does', () => {
    const example = `printf '%s|' "one two  three" --tag 'a  b' four five six seven eight nine ten eleven twelve`;
    const lines = wrapExample(example, 34, '');
    expect(lines.length).toBeGreaterThan(2);
    const run = (script: string) => spawnSync('sh', ['-c', script], { encoding: 'utf8' }).stdout;
    expect(run(lines.join('\n'))).toBe(run(example));
  });
});
