/**
 * Python's strip, lstrip and rstrip (src/core/native/scrub.ts) walk in from the ends of the text
 * instead of matching a `[…]+$` pattern: on any text, made of Python's whitespace and not, they cut
 * exactly where the patterns do.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CREDENTIAL_PATTERNS, looksLikeCredential, pyLstrip, pyRstrip, pyStrip } from '../src/core/native/scrub.js';

const WS = '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const LEADING = new RegExp(`^[${WS}]+`);
const TRAILING = new RegExp(`[${WS}]+$`);
/** Every character Python's str.isspace() accepts, the near misses around them, and plain text. */
const SPACES = [9, 10, 11, 12, 13, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2005, 0x200a];
const OTHERS = [0x08, 0x0e, 0x1b, 0x21, 0x84, 0x86, 0x200b, 0xfeff, 0x2027, 0x202a, 0x3001, 0x61, 0xe9];
const text = fc
  .array(fc.constantFrom(...[...SPACES, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, ...OTHERS]), { maxLength: 40 })
  .map((codes) => String.fromCharCode(...codes));

describe('Python strips', () => {
  it('cut where the whitespace patterns cut', () => {
    fc.assert(
      fc.property(text, (value) => {
        expect(pyStrip(value)).toBe(value.replace(LEADING, '').replace(TRAILING, ''));
        expect(pyLstrip(value)).toBe(value.replace(LEADING, ''));
        expect(pyRstrip(value)).toBe(value.replace(TRAILING, ''));
      }),
      { numRuns: 2000 },
    );
  });
});

/** Pieces of the credential patterns, their near misses, case and Unicode foldings, word characters. */
const PIECES = ['api', 'API', 'aPi', '_', '-', 'key', 'KEY', 'token', 'access', 'acceſſ', 'bearer', ' ', '\u00a0'];
const MORE = ['password', 'paſſword', 'PASSWORD', 'sk_live_', 'SK_LIVE_', 'hf_', 'HF_', 'abcdefghij', 'x', 'é', '1'];
const credentialish = fc
  .array(fc.constantFrom(...PIECES, ...MORE, 'K', '\u212a', 'ap', 'i', 'ſ', 'be', 'arer'), { maxLength: 12 })
  .map((parts) => parts.join(''));

describe('the credential test', () => {
  it('answers as the seven patterns do, though it runs them only on a text with one of their words', () => {
    fc.assert(
      fc.property(credentialish, (value) => {
        expect(looksLikeCredential(value)).toBe(CREDENTIAL_PATTERNS.some((pattern) => pattern.test(value)));
      }),
      { numRuns: 4000 },
    );
  });
});
