/**
 * The native-text scrubber the participants share: credential-like text is replaced whole, links
 * become [link], and cuts fall where the engine's do (Python code points, Python whitespace).
 * Python itself is the reference for the whitespace and cut rules.
 */
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  REDACTED_TEXT,
  boundText,
  codePointLength,
  collapseWhitespace,
  looksLikeCredential,
  scrubNativeText,
} from '../src/participants/kit/scrub.js';

describe('scrubNativeText', () => {
  it.each([
    'Store the api_key for stripe',
    'rotate the API-KEY now',
    'apikey in env',
    'my api_token leaked',
    'Rotate the access_token used by CI',
    'Bearer   token leaked?',
    'the Password is in vault',
    'use sk_live_abc123 for prod',
    'hf_abcdefghijk is the hub token',
  ])('replaces the whole text when it names a credential: %s', (text) => {
    expect(scrubNativeText(text)).toBe(REDACTED_TEXT);
  });

  it.each([
    'passwords are hashed', // a word boundary is needed on both sides
    'my_api_key_name', // `_` is a word character
    'sk_test_abc123', // only live keys
    'hf_short',
    'éapi_key', // Python's \b: a letter of any script is a word character
  ])('leaves text that only resembles one: %s', (text) => {
    expect(scrubNativeText(text)).toBe(text);
  });

  it('is case-sensitive for live keys, as the engine is', () => {
    expect(looksLikeCredential('SK_LIVE_abc')).toBe(false);
    expect(looksLikeCredential('HF_abcdefghijk')).toBe(true);
  });

  it('replaces links, collapses whitespace and cuts to the limit with ...', () => {
    expect(scrubNativeText('Read https://example.com/a?b=c  and\n\tsummarise')).toBe('Read [link] and summarise');
    expect(scrubNativeText('word '.repeat(100), 20)).toBe('word word word wo...');
    expect(scrubNativeText('x'.repeat(180))).toBe('x'.repeat(180));
    expect(scrubNativeText('x'.repeat(181))).toBe('x'.repeat(177) + '...');
  });

  it('counts code points, not UTF-16 units, when it cuts', () => {
    const emoji = '😀'.repeat(200);
    const cut = scrubNativeText(emoji, 10);
    expect(cut).toBe('😀'.repeat(7) + '...');
    expect(codePointLength(cut)).toBe(10);
  });

  it('boundText cuts with … after collapsing', () => {
    expect(boundText('a  b\nc', 10)).toBe('a b c');
    expect(boundText('abcdefghijkl', 5)).toBe('abcd…');
  });
});

describe('the scrubber against Python (the engine language) as reference', () => {
  it('whitespace collapse and the cut agree with Python on generated text', () => {
    const alphabet = [
      'a',
      'b',
      ' ',
      '\t',
      '\n',
      '\x1c',
      '\x85',
      '\u00a0',
      '\u2003',
      '\u3000',
      '\ufeff',
      '😀',
      'é',
      '.',
    ];
    const samples = fc.sample(
      fc.array(fc.constantFrom(...alphabet), { maxLength: 40 }).map((chars) => chars.join('')),
      { numRuns: 300, seed: 26 },
    );
    const script =
      'import json,re,sys\n' +
      'out=[]\n' +
      'for v in json.load(sys.stdin):\n' +
      '  t=re.sub(r"\\s+"," ",v.strip())\n' +
      '  c=t if len(t)<=12 else t[:9].rstrip()+"..."\n' +
      '  out.append([" ".join(v.split()),c])\n' +
      'print(json.dumps(out))\n';
    const run = spawnSync('python3', ['-c', script], { input: JSON.stringify(samples), encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const expected = JSON.parse(run.stdout) as [string, string][];
    const ours = samples.map((sample) => [collapseWhitespace(sample), scrubNativeText(sample, 12)]);
    expect(ours).toEqual(expected);
  });
});
