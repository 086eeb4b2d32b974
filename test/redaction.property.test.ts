/**
 * Redaction (spec §7) as properties: a credential embedded anywhere in random text never
 * survives, whatever surrounds it, and redaction stays linear on long hostile input.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { looksLikeCredential, redactText, REDACTED } from '../src/core/trust/redaction.js';

/** Environment-style names: OPENAI_API_KEY, DB_PASSWORD, AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN… */
const envName = fc
  .record({
    prefix: fc.stringMatching(/^[A-Z][A-Z0-9]{0,8}(?:_[A-Z0-9]{1,8}){0,2}$/),
    suffix: fc.constantFrom('KEY', 'TOKEN', 'SECRET', 'PASSWORD', 'API_KEY', 'SECRET_ACCESS_KEY', 'key', 'Token'),
  })
  .map(({ prefix, suffix }) => `${prefix}_${suffix}`);

const envAssignment = fc
  .record({
    name: envName,
    sep: fc.constantFrom('=', ': ', ' = ', ':'),
    value: fc.stringMatching(/^[!-~]{1,40}$/),
  })
  .map(({ name, sep, value }) => `${name}${sep}${value}`);

/** A token body of `length` characters from `alphabet` with a digit among the first ten. */
const tokenBody = (alphabet: RegExp, length: number) =>
  fc
    .record({ body: fc.stringMatching(new RegExp(`^${alphabet.source}{${length}}$`)), at: fc.nat(9), digit: fc.nat(9) })
    .map(({ body, at, digit }) => body.slice(0, at) + String(digit) + body.slice(at + 1));

const wellKnownToken = fc.oneof(
  tokenBody(/[A-Za-z0-9]/, 48).map((body) => `sk-${body}`),
  tokenBody(/[A-Za-z0-9_-]/, 80).map((body) => `sk-proj-${body}`),
  tokenBody(/[A-Za-z0-9_-]/, 80).map((body) => `sk-ant-api03-${body}`),
  tokenBody(/[A-Za-z0-9]/, 36).map((body) => `ghp_${body}`),
  tokenBody(/[A-Za-z0-9]/, 36).map((body) => `gho_${body}`),
  tokenBody(/[A-Za-z0-9_]/, 82).map((body) => `github_pat_${body}`),
  tokenBody(/[A-Za-z0-9]/, 24).map((body) => `xoxb-1234567890-${body}`),
  fc.stringMatching(/^[A-Z0-9]{16}$/).map((body) => `AKIA${body}`),
  tokenBody(/[A-Za-z0-9_-]/, 20).map((body) => `glpat-${body}`),
  tokenBody(/[A-Za-z0-9_-]/, 30).map((body) => `eyJhbGciOiJIUzI1NiJ9.eyJ${body}.sig`),
  tokenBody(/[A-Za-z0-9]/, 36).map((body) => `npm_${body}`),
  tokenBody(/[A-Za-z0-9_-]/, 35).map((body) => `AIza${body}`),
  // Issue 50: kinds the first rule set let through.
  tokenBody(/[a-z0-9]/, 64).map((body) => `xapp-1-A0123456789-1234567890123-${body}`),
  tokenBody(/[A-Za-z0-9]/, 32).map((body) => `whsec_${body}`),
  tokenBody(/[A-Za-z0-9_~.-]/, 34).map((body) => `abc8Q~${body}`),
  tokenBody(/[A-Za-z0-9_-]/, 38).map((body) => `MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.${body}`),
  tokenBody(/[a-f0-9]/, 40).map((body) => `pul-${body}`),
  tokenBody(/[A-Za-z0-9]/, 120).map((body) => `EAAB${body}`),
  tokenBody(/[a-f0-9]/, 32).map((body) => `twilio_auth_token: ${body}`),
  tokenBody(/[a-z0-9]/, 40).map((body) => `<datadogToken>${body}</datadogToken>`),
  fc
    .record({
      kind: fc.constantFrom('', 'RSA ', 'EC ', 'OPENSSH ', 'ENCRYPTED ', 'DSA '),
      body: tokenBody(/[A-Za-z0-9+/]/, 64),
    })
    .map(({ kind, body }) => `-----BEGIN ${kind}PRIVATE KEY-----\n${body}\n-----END ${kind}PRIVATE KEY-----`),
  fc
    .record({ scheme: fc.constantFrom('Bearer', 'bearer', 'BEARER'), body: tokenBody(/[A-Za-z0-9._~+/-]/, 32) })
    .map(({ scheme, body }) => `Authorization: ${scheme} ${body}`),
  fc
    .record({
      name: fc.constantFrom('PGPASSWORD', 'SECRET', 'PASSWORD', 'MYSQLPWD', 'secret', 'ClientSecret', 'REDISPASSWORD'),
      sep: fc.constantFrom('=', ': ', ' = '),
      value: fc.stringMatching(/^[!-~]{1,40}$/),
    })
    .map(({ name, sep, value }) => `${name}${sep}${value}`),
);

const secret = fc.oneof(envAssignment, wellKnownToken);
/** What separates a secret from the text around it in real notes: space, quotes, punctuation. */
const separator = fc.constantFrom(' ', '\n', '\t', '"', "'", '`', '(', ',', ';', ' export ');

describe('redaction of embedded secrets', () => {
  it('never lets a secret through, whatever text surrounds it', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 300 }),
        separator,
        secret,
        separator,
        fc.string({ maxLength: 300 }),
        (before, open, value, close, after) => {
          const out = redactText(`${before}${open}${value}${close}${after}`);
          expect(out).toBe(REDACTED);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it.each([
    'OPENAI_API_KEY=sk-proj-Ab3dEfGhIjKlMnOpQrStUvWxYz0123456789',
    'DB_PASSWORD=hunter2',
    'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    'GITHUB_TOKEN=ghp_16C7e42F292c6912E7710c838347Ae178B4a',
    'deploy with AKIAIOSFODNN7EXAMPLE today',
    'slack xoxb-1234567890-abcdefghij42',
    'gitlab glpat-xxxxxxxxxxxxxxxxxxx1 done',
    'token github_pat_11ABCDEFG0abcdefghij_klmnopqrstuvwxyz',
    'db_password: hunter2',
    'key: -----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAA',
    'PGPASSWORD=hunter2 psql -h db',
    'export SECRET=s3cr3t',
    'PASSWORD=hunter2',
    'curl -H "Authorization: Bearer abcdefghijklmnop1234" https://api',
    'publish with npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8 set',
    'maps key AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q in config',
  ])('redacts the attack run’s forms: %s', (text) => {
    expect(redactText(text)).toBe(REDACTED);
  });

  it.each([
    'the task-management board',
    'scikit-learn and sk-learn-compatible-models',
    'primary keys and tokenisers',
    'the key: is to ship',
    'passwords are plural',
  ])('leaves ordinary prose alone: %s', (text) => {
    expect(redactText(text)).not.toBe(REDACTED);
  });

  it('stays linear on long hostile input (no catastrophic backtracking)', () => {
    // Each would take minutes with a quadratic pattern; linear ones finish in milliseconds.
    const hostile = [
      'a_'.repeat(200_000),
      'sk-'.repeat(200_000),
      'eyJ' + 'a'.repeat(400_000),
      'x'.repeat(400_000) + '_key' + ' '.repeat(100_000),
      'A'.repeat(400_000),
      // The keyword rules, the hint trie and the Kubernetes reader (issue 50, item 7).
      'datadog = '.repeat(40_000),
      'twilio auth token '.repeat(20_000),
      'cloudflare_'.repeat(40_000),
      'kind: Secret\n' + 'data: '.repeat(60_000),
      'kind: Secret\ndata:' + '\n a: aaaaaaaaaaaa'.repeat(25_000),
      '-H "X-api-key: '.repeat(25_000),
      'key=' + 'a'.repeat(400_000) + '1',
    ];
    for (const text of hostile) expect(typeof looksLikeCredential(text)).toBe('boolean');
  });
});
