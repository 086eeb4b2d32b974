/**
 * The secret corpus (issue 41, item 2): every format people really write into notes, each
 * redacted where it stands with the prose around it kept, and 200 harmless sentences — prose
 * that names passwords, tokens and keys, URLs without credentials, hashes, UUIDs, times — that
 * must come out unchanged. Then the same corpus through each boundary where text leaves a
 * source: a participant's export (the real binary), a commit, a peer's answer, a sync push.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeExports } from '../src/core/federation/federation.js';
import { REDACTED, REDACTED_VALUE, redactSecrets, redactText } from '../src/core/trust/redaction.js';
import { publishedDocument } from '../src/sync/publish.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';
import { GITLEAKS_SAMPLES, sampleForms } from './fixtures/redaction/gitleaks-samples.js';

/** [prose before, the secret value, prose after]: the value must go, the prose must stay. */
const SECRETS: readonly (readonly [string, string, string])[] = [
  ['connect with postgres://admin:', 'S3cretPw', '@db.example.com:5432/app before the deploy'],
  ['cluster: mongodb+srv://app:', 'p%40ssW0rd', '@cluster0.abcd.mongodb.net/prod?retryWrites=true'],
  ['broker amqp://guest:', 'Gu3st-2026', '@rabbit.internal:5672/ is shared'],
  [
    'oauth app {"client_id": "1234.apps.googleusercontent.com", "client_secret": "',
    'GOCSPX-abcdefghijklmnopqrstuvwx12',
    '"}',
  ],
  [
    'storage DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=',
    'abcdEFGHijklMNOPqrstUVWXyz0123456789abcdEFGHijklMNOPqrstUVWXyz0123456789abcdEFGH==',
    ';EndpointSuffix=core.windows.net',
  ],
  ['docker config {"auths": {"ghcr.io": {"auth": "', 'ZGFuYTpnaHBfc2VjcmV0', '"}}} for the registry'],
  [
    'kubeconfig user: client-key-data: ',
    'LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVB',
    ' (staging)',
  ],
  ['pgpass line db.example.com:5432:app:admin:', 'S3cretPw', ' in my home'],
  ['reach it with curl -u admin:', 'hunter2', ' https://api.example.com/v1/items'],
  ['dump it with mysql -u root -p', 'S3cretPw', ' app < dump.sql'],
  ['stripe test key ', 'sk_test_4eC39HqLyjWDarjtT1zdp7dc', ' for the sandbox'],
  ['restricted key ', 'rk_live_51HabcdefGHIJKLmnopqrstu', ' is read-only'],
  ['mail with ', 'SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG', ' from the app'],
  ['droplets via ', `dop_v1_${'3f2a9c1b'.repeat(8)}`, ' in CI'],
  ['deploy token: ', '3f2a9c1b7d8e4f6a0b1c2d3e4f5a6b7c', ' (read only)'],
  ['export TOKEN=', '3f2a9c1b7d8e4f6a0b1c2d3e4f5a6b7c', ' before running'],
  [
    'my signing key ',
    '-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBGXabcdefgh\n=abcd\n-----END PGP PRIVATE KEY BLOCK-----',
    ' is backed up',
  ],
  ['disk passphrase: ', 'correct horse battery staple', ''],
  ['alerts go to https://hooks.slack.com/services/', 'T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX', ' now'],
  // The forms the first redaction already knew, and a peer's (issue 41: summaries, actions, roles).
  ['set OPENAI_API_KEY=', 'sk-proj-Ab3dEfGhIjKlMnOpQrStUvWxYz0123456789', ' in .env'],
  ['GITHUB_TOKEN=', 'ghp_16C7e42F292c6912E7710c838347Ae178B4a', ' for the release job'],
  ['DB_PASSWORD=', 'hunter2', ' on the staging box'],
  ['aws ', 'AKIAIOSFODNN7EXAMPLE', ' is the deploy user'],
  [
    'ssh ',
    '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----',
    ' for the bastion',
  ],
  ['curl -H "Authorization: Bearer ', 'abcdefghijklmnop1234', '" https://api'],
  ['anthropic ', `sk-ant-api03-${'Ab3dEfGhIj'.repeat(9)}`, ' for the eval'],
  ['slack bot ', 'xoxb-1234567890-abcdefghij42', ' posts releases'],
  [
    'a webhook for discord https://discord.com/api/webhooks/',
    '123456789012345678/abcdefghijklmnopqrstuvwxyz012345',
    '',
  ],
  ['jwt ', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abc123signature', ' expires tomorrow'],
  ['password: ', 'hunter2', ' for the test user'],
  ['"password": "', 'correct horse', '" in the seed file'],
];

/** Every kind of the corpus: the forms above and a sample of each rule of gitleaks' default set (issue 50, item 7). */
const ALL: readonly (readonly [string, string, string])[] = [
  ...SECRETS,
  ...GITLEAKS_SAMPLES.map(([, before, secret, after]) => [before, secret, after] as const),
];

const HARMLESS = fs
  .readFileSync(path.join(import.meta.dirname, 'fixtures', 'redaction', 'harmless.txt'), 'utf8')
  .split('\n')
  .filter((line) => line !== '');

/** Prose that names the providers of gitleaks' rule set, their keys and tokens, with ids, hashes and numbers beside. */
const HARMLESS_PROVIDERS = fs
  .readFileSync(path.join(import.meta.dirname, 'fixtures', 'redaction', 'harmless-providers.txt'), 'utf8')
  .split('\n')
  .filter((line) => line !== '');

describe('the secret corpus', () => {
  it.each(SECRETS.map(([before, secret, after]) => [before + secret + after, before, secret, after]))(
    'redacts the value and keeps the prose: %j',
    (text, before, secret, after) => {
      const out = redactSecrets(text);
      expect(out).toBe(`${before}${REDACTED_VALUE}${after}`);
      expect(out).not.toContain(secret);
    },
  );

  it.each(GITLEAKS_SAMPLES)(
    'redacts every rule of gitleaks’ default set, keeping the prose: %s',
    (_, before, secret, after) => {
      const out = redactSecrets(before + secret + after);
      expect(out).toBe(`${before}${REDACTED_VALUE}${after}`);
      expect(out).not.toContain(secret);
    },
  );

  it.each([
    ['datadog', 'a7bd8e0c1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c'],
    ['twilio', '7f3a9c1b2d4e6f8a0b1c3d5e7f9a1b3c'],
    ['cloudflare', 'Ab7dEfGhIjKlMnOpQrStUvWxYz0123456789_-Ab'],
    ['discord', '123456789012345678'],
    ['alibaba', 'a7b3c9d1e5f2a8b4c6d0e1f7a9b3c5'],
    ['sentry', 'c0ffee11c0ffee22c0ffee33c0ffee44c0ffee55c0ffee66c0ffee77c0ffee88'],
    ['deploy', 'x9Kq2LmP7vR4tZ8wQ3nB'],
  ])(
    'redacts a %s value in each of gitleaks’ sample forms (INI, JSON, XML, YAML blocks, code, Makefile)',
    (name, secret) => {
      for (const form of sampleForms(name, secret)) expect(redactSecrets(form), form).not.toContain(secret);
    },
  );

  it.each(HARMLESS_PROVIDERS)('leaves prose about providers and their credentials unchanged: %s', (sentence) => {
    expect(redactSecrets(sentence)).toBe(sentence);
  });

  it('holds 200 harmless sentences', () => expect(HARMLESS).toHaveLength(200));

  it.each(HARMLESS)('leaves a harmless sentence unchanged: %s', (sentence) => {
    expect(redactSecrets(sentence)).toBe(sentence);
  });

  it('the read surfaces (spec §7) replace a text holding any of the corpus whole', () => {
    for (const [before, secret, after] of ALL) expect(redactText(before + secret + after)).toBe(REDACTED);
  });

  it('is idempotent: redacted text has nothing left to redact', () => {
    for (const [before, secret, after] of ALL) {
      const once = redactSecrets(before + secret + after);
      expect(redactSecrets(once)).toBe(once);
    }
  });
});

describe('every boundary where text leaves a source', () => {
  const leaky = ALL.map(([before, secret, after]) => before + secret + after);
  const secrets = ALL.map(([, secret]) => secret);
  const expectNoSecret = (text: string) => {
    for (const secret of secrets) expect(text).not.toContain(secret);
  };

  it('an export: notes holding secrets are redacted in the manifest; a description that only names a credential is kept (issue 40, item 6)', async () => {
    const root = tempDir('bourdon-corpus-');
    const home = path.join(root, 'home');
    const memory = path.join(home, '.claude', 'projects', '-work-app', 'memory');
    fs.mkdirSync(memory, { recursive: true });
    fs.writeFileSync(path.join(memory, 'MEMORY.md'), '# index\n');
    leaky.forEach((text, i) => {
      const body = text.replaceAll('\n', ' ');
      fs.writeFileSync(path.join(memory, `secret-${i}.md`), `---\nname: Note ${i}\ntype: reference\n---\n\n${body}\n`);
    });
    // Descriptions are not scanned by the engine; a credential WORD is not a credential.
    fs.writeFileSync(
      path.join(memory, 'rotation.md'),
      '---\nname: Key rotation\ndescription: Remember to rotate the API key and the DB password monthly\ntype: reference\n---\n\nbody\n',
    );
    const out = path.join(root, 'out.yaml');
    const result = await runCli(['claude-code', 'export', '--out', out, '--access-level', 'team'], {
      env: { HOME: home, CLAUDE_BRAIN: undefined, SOURCE_DATE_EPOCH: '1764806400' },
      cwd: root,
    });
    expect(result.code, result.stderr).toBe(0);
    const manifest = fs.readFileSync(out, 'utf8');
    expectNoSecret(manifest);
    expect(manifest).toContain('Remember to rotate the API key and the DB password monthly');
    expect(manifest).toContain('connect with postgres://admin:[redacted]@db.example.com:5432/app before the deploy');
  });

  it('a commit: the library never stores a secret value; the prose around it is kept', async () => {
    const root = tempDir('bourdon-corpus-lib-');
    const library = path.join(root, 'library');
    fs.mkdirSync(path.join(library, 'agents'), { recursive: true });
    const file = path.join(root, 'commit.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        role_narrative: 'Deploy bot. OPENAI_API_KEY=sk-proj-Ab3dEfGhIjKlMnOpQrStUvWxYz0123456789',
        entities: leaky.map((summary, i) => ({ name: `Entity ${i}`, summary })),
        sessions: [{ date: '2026-12-01', cwd: '/work/app', key_actions: leaky }],
      }),
    );
    const result = await runCli(
      ['commit', 'deploy-bot', '--file', file, '--library', library, '--agent-type', 'other', '--json'],
      {
        env: { BOURDON_HOME: tempDir('bourdon-corpus-home-') },
      },
    );
    expect(result.code, result.stderr + result.stdout).toBe(0);
    const stored = fs.readFileSync(path.join(library, 'agents', 'deploy-bot.l5.yaml'), 'utf8');
    expectNoSecret(stored);
    expect(stored).toContain('Deploy bot. OPENAI_API_KEY=[redacted]');
    expect(stored).toContain('reach it with curl -u admin:[redacted] https://api.example.com/v1/items');
  });

  it("a peer's answer: secrets in its summaries, actions and roles never pass through", () => {
    const answer = {
      peer: 'laptop',
      ok: true,
      latency_us: 1,
      timed_out: false,
      payload: {
        agents: [
          {
            id: 'codex',
            role_narrative: 'Runs with OPENAI_API_KEY=sk-proj-Ab3dEfGhIjKlMnOpQrStUvWxYz0123456789 set',
            summaries: { Deploy: 'GITHUB_TOKEN=ghp_16C7e42F292c6912E7710c838347Ae178B4a' },
            recent_activity: [{ date: '2026-12-01', project_focus: ['App'], key_actions: leaky }],
          },
        ],
      },
    };
    const merged = JSON.stringify(mergeExports({ machine: 'here', agents: [] }, [answer], new Date('2026-12-02')));
    expectNoSecret(merged);
    expect(merged).toContain('Runs with OPENAI_API_KEY=[redacted] set');
    expect(merged).toContain('DB_PASSWORD=[redacted] on the staging box');
  });

  it('a sync push publishes none of the corpus', () => {
    const doc = {
      spec_version: '0.1',
      agent: { id: 'codex', role_narrative: leaky[0] },
      known_entities: leaky.map((summary, i) => ({ name: `Entity ${i}`, summary })),
      recent_sessions: [{ date: '2026-12-01', key_actions: leaky }],
    };
    expectNoSecret(JSON.stringify(publishedDocument(doc, 'codex', 'team')));
  });
});
