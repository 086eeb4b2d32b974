/**
 * `strippedLines` (src/participants/kit/line-streams.ts) reads a file STRIPPED_READ_BYTES at a
 * time, so a 100 KB copilot-vscode transcript is several reads: whatever straddles a read's end
 * (a `\r\n`, a character of two to four bytes, a Unicode line break, blank lines that `strip()`
 * may or may not cut) still gives the lines Python's `text.strip().splitlines()` gives for the
 * whole file read at once, cut after `maxLines`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pySplitLines, pyStrip } from '../src/core/native/python-text.js';
import { STRIPPED_READ_BYTES, strippedLines } from '../src/participants/kit/line-streams.js';
import { normaliseNewlines } from '../src/participants/kit/text-decoding.js';
import { tempDir } from './helpers/fixtures.js';

/** What may straddle the end of a read: line breaks, blanks, characters of 1-4 bytes, bad bytes. */
const PIECES: readonly Buffer[] = [
  '\r\n',
  '\r',
  '\n',
  '\n\n',
  '\v',
  '\f',
  '\x1c',
  '\x1d',
  '\x1e',
  '\x85',
  '\u2028',
  '\u2029',
  ' ',
  '\t',
  '\u00a0',
  '\u3000',
  'é',
  '€',
  '😀',
  '{"type":"user.message"}',
  'word',
].map((piece) => Buffer.from(piece, 'utf8'));
const BAD_BYTES: readonly Buffer[] = [Buffer.from([0xff]), Buffer.from([0xc3]), Buffer.from([0xe2, 0x82])];

/**
 * A file's bytes: plain text up to a few bytes before each of the first reads' ends, then pieces
 * across it; blanks at the start and the end, as `strip()` cuts.
 */
const fileBytes = fc
  .record({
    start: fc.constantFrom('', ' \n', '\r\n\t\n', '\u2028 '),
    boundaries: fc.array(
      fc.record({
        before: fc.integer({ min: 0, max: 6 }),
        pieces: fc.array(fc.oneof(fc.constantFrom(...PIECES), fc.constantFrom(...BAD_BYTES)), {
          minLength: 1,
          maxLength: 6,
        }),
      }),
      { minLength: 1, maxLength: 4 },
    ),
    end: fc.constantFrom('', '\n', ' \r\n\n', '\u2029\t', 'last'),
  })
  .map(({ start, boundaries, end }) => {
    const parts: Buffer[] = [Buffer.from(start, 'utf8')];
    let size = parts[0]!.length;
    boundaries.forEach(({ before, pieces }, i) => {
      const fill = Math.max(0, (i + 1) * STRIPPED_READ_BYTES - before - size);
      // Lines of text up to the boundary, the last one running into it.
      const filler = Buffer.from(('line of text ' + 'x'.repeat(60) + '\n').repeat(Math.ceil(fill / 74)).slice(0, fill));
      parts.push(filler, ...pieces);
      size += filler.length + pieces.reduce((sum, piece) => sum + piece.length, 0);
    });
    parts.push(Buffer.from(end, 'utf8'));
    return Buffer.concat(parts);
  });

const dir = tempDir();

function streamed(file: string, maxLines: number): (string | undefined)[] {
  const fd = fs.openSync(file, 'r');
  try {
    return [...strippedLines({ fd, file, warn: () => undefined }, maxLines)];
  } finally {
    fs.closeSync(fd);
  }
}

describe('strippedLines across reads', () => {
  it('gives the lines of the whole text read at once, whatever straddles the end of a read', () => {
    let n = 0;
    fc.assert(
      fc.property(fileBytes, fc.option(fc.integer({ min: 1, max: 3000 })), (bytes, max) => {
        const file = path.join(dir, `t${(n += 1)}.jsonl`);
        fs.writeFileSync(file, bytes);
        const whole = pySplitLines(pyStrip(normaliseNewlines(new StringDecoder('utf8').end(bytes))));
        const maxLines = max ?? Number.POSITIVE_INFINITY;
        expect(streamed(file, maxLines)).toEqual(whole.slice(0, maxLines));
        fs.rmSync(file);
      }),
      { numRuns: 300 },
    );
  });
});
