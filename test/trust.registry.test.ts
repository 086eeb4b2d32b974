/**
 * The member registry (spec §4): tokens, hashes, constant-time authentication over every
 * row, revocation and rotation seen by a running server without restart, a corrupt file
 * that authenticates no one, the engine's file shape, and concurrent admins.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../src/core/errors.js';
import { FederationRegistry, hashToken, parseRegistry, serialiseRegistry } from '../src/core/trust/registry.js';
import { parseYaml } from '../src/core/store/yaml.js';
import { REPO_ROOT, tempDir } from './helpers/fixtures.js';

let home: string;
let file: string;
let warnings: string[];

function registry(): FederationRegistry {
  return new FederationRegistry(file, { warn: (message) => warnings.push(message) });
}

beforeEach(() => {
  home = tempDir('bourdon-registry-');
  file = path.join(home, 'federation.yaml');
  warnings = [];
});
afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

describe('tokens', () => {
  it('are bdn_ plus 48 lowercase hex characters, and differ every time', () => {
    const reg = registry();
    const tokens = ['a', 'b', 'c', 'd'].map((id) => reg.add(id).token);
    for (const token of tokens) expect(token).toMatch(/^bdn_[0-9a-f]{48}$/);
    expect(new Set(tokens).size).toBe(4);
  });

  it('are stored only as SHA-256, in an owner-only file', () => {
    const { token } = registry().add('openclaw', { grants: ['cursor'] });
    const text = fs.readFileSync(file, 'utf8');
    expect(text).not.toContain(token);
    expect(text).not.toContain(token.slice(4));
    expect(text).toContain(crypto.createHash('sha256').update(token).digest('hex'));
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('authenticate to the member, with its tier, grants and ceiling', () => {
    const reg = registry();
    const q = reg.add('openclaw', { grants: ['cursor', 'codex'] });
    const t = reg.add('laptop', { tier: 'trusted' });
    expect(reg.authenticate(q.token)).toEqual({
      agent_id: 'openclaw',
      tier: 'quarantined',
      grants: ['cursor', 'codex'],
      ceiling: 'team',
    });
    expect(reg.authenticate(t.token)).toEqual({ agent_id: 'laptop', tier: 'trusted', grants: [], ceiling: 'private' });
    expect(q.tier).toBe('quarantined'); // the default tier
  });

  it('never authenticate when empty, blank, wrong, a hash, or a near miss', () => {
    const reg = registry();
    const { token } = reg.add('openclaw');
    for (const bad of [
      '',
      ' ',
      '\t',
      'bdn_',
      token.slice(0, -1),
      token + '0',
      token.toUpperCase(),
      hashToken(token),
      'Bearer ' + token,
    ]) {
      expect(reg.authenticate(bad), JSON.stringify(bad)).toBeNull();
    }
    // @ts-expect-error: a caller in plain JavaScript may pass no token at all.
    expect(reg.authenticate(undefined)).toBeNull();
  });
});

describe('a running server (one long-lived instance) sees admin changes on its next call', () => {
  it('revocation', () => {
    const server = registry();
    const { token } = registry().add('openclaw');
    expect(server.authenticate(token)?.agent_id).toBe('openclaw');
    registry().revoke('openclaw');
    expect(server.authenticate(token)).toBeNull();
    expect(server.hasActiveMembers()).toBe(false);
  });

  it('rotation, many times in quick succession (no stale cache within one clock tick)', () => {
    const server = registry();
    const admin = registry();
    let current = admin.add('openclaw').token;
    for (let i = 0; i < 25; i++) {
      expect(server.authenticate(current)?.agent_id).toBe('openclaw');
      const next = admin.rotate('openclaw').token;
      expect(server.authenticate(current), `rotation ${i}: old token`).toBeNull();
      current = next;
    }
    expect(server.authenticate(current)?.agent_id).toBe('openclaw');
  });

  it('tier and grant changes', () => {
    const server = registry();
    const { token } = registry().add('openclaw', { grants: ['cursor'] });
    expect(server.authenticate(token)?.grants).toEqual(['cursor']);
    registry().grant('openclaw', 'codex');
    expect(server.authenticate(token)?.grants).toEqual(['cursor', 'codex']);
    registry().ungrant('openclaw', 'cursor');
    expect(server.authenticate(token)?.grants).toEqual(['codex']);
    registry().setTier('openclaw', 'trusted');
    expect(server.authenticate(token)).toMatchObject({ tier: 'trusted', ceiling: 'private' });
    registry().setTier('openclaw', 'quarantined');
    expect(server.authenticate(token)).toMatchObject({ tier: 'quarantined', ceiling: 'team' });
  });

  it('the file being removed, then restored', () => {
    const server = registry();
    const { token } = registry().add('openclaw');
    const saved = fs.readFileSync(file, 'utf8');
    fs.rmSync(file);
    expect(server.authenticate(token)).toBeNull();
    fs.writeFileSync(file, saved);
    expect(server.authenticate(token)?.agent_id).toBe('openclaw');
  });
});

describe('revoked members', () => {
  it('never authenticate, cannot be rotated or changed, and can be re-added with a fresh token', () => {
    const reg = registry();
    const old = reg.add('openclaw').token;
    const revoked = reg.revoke('openclaw');
    expect(revoked.revoked).toBe(true);
    expect(reg.authenticate(old)).toBeNull();
    expect(() => reg.rotate('openclaw')).toThrow("agent 'openclaw' is revoked; re-add it instead");
    expect(() => reg.grant('openclaw', 'cursor')).toThrow('is revoked');
    expect(() => reg.setTier('openclaw', 'trusted')).toThrow('is revoked');
    const again = reg.add('openclaw');
    expect(again.token).not.toBe(old);
    expect(reg.authenticate(old)).toBeNull();
    expect(reg.authenticate(again.token)?.agent_id).toBe('openclaw');
  });

  it('keep the first revocation time when revoked twice', () => {
    const reg = registry();
    reg.add('openclaw');
    const first = reg.revoke('openclaw', new Date('2026-01-01T00:00:00Z'));
    const second = reg.revoke('openclaw', new Date('2026-02-01T00:00:00Z'));
    expect(second.revoked_at).toBe(first.revoked_at);
    expect(first.revoked_at).toBe('2026-01-01T00:00:00Z');
  });

  it('with a revoked flag written by hand in any truthy form still never authenticate', () => {
    const token = 'bdn_' + 'a'.repeat(48);
    for (const flag of ['true', 'yes', "'no'", '1', '[x]']) {
      fs.writeFileSync(
        file,
        `agents:\n  x:\n    tier: trusted\n    token_sha256: ${hashToken(token)}\n    revoked: ${flag}\nversion: 1\n`,
      );
      expect(registry().authenticate(token), `revoked: ${flag}`).toBeNull();
    }
    for (const flag of ['false', '0', "''", 'null']) {
      fs.writeFileSync(
        file,
        `agents:\n  x:\n    tier: trusted\n    token_sha256: ${hashToken(token)}\n    revoked: ${flag}\nversion: 1\n`,
      );
      expect(registry().authenticate(token)?.agent_id, `revoked: ${flag}`).toBe('x');
    }
  });
});

describe('a corrupt registry authenticates no one', () => {
  it('fails closed, says why once (without quoting hashes), and recovers when fixed', () => {
    const server = registry();
    const { token } = registry().add('openclaw');
    const good = fs.readFileSync(file, 'utf8');
    const hash = hashToken(token);
    // A broken line that quotes the hash: the parser's message would show it.
    fs.writeFileSync(file, good.replace(`token_sha256: ${hash}`, `token_sha256: [${hash}`));
    expect(server.authenticate(token)).toBeNull();
    expect(server.authenticate(token)).toBeNull();
    expect(server.hasActiveMembers()).toBe(false);
    expect(server.problem()).toBeTruthy();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('no member can authenticate');
    expect(warnings.join('\n') + String(server.problem())).not.toMatch(/[0-9a-f]{32}/);
    fs.writeFileSync(file, good);
    expect(server.authenticate(token)?.agent_id).toBe('openclaw');
    expect(server.problem()).toBeNull();
  });

  it.each([
    ['not a mapping', '- a\n- b\n'],
    ['agents not a mapping', 'agents: [1, 2]\nversion: 1\n'],
    ['an unknown version', `agents: {}\nversion: 2\n`],
    ['a row without a hash', 'agents:\n  x:\n    tier: trusted\nversion: 1\n'],
    ['a malformed hash', 'agents:\n  x:\n    tier: trusted\n    token_sha256: abc\nversion: 1\n'],
    ['an invalid member id', `agents:\n  ../x:\n    tier: trusted\n    token_sha256: ${'0'.repeat(64)}\nversion: 1\n`],
    [
      'duplicate keys',
      `agents:\n  x:\n    token_sha256: ${'0'.repeat(64)}\n  x:\n    token_sha256: ${'1'.repeat(64)}\nversion: 1\n`,
    ],
    ['invalid YAML', 'agents: {x: [\n'],
  ])('%s', (_label, text) => {
    const token = 'bdn_' + 'b'.repeat(48);
    const valid = `agents:\n  y:\n    tier: trusted\n    token_sha256: ${hashToken(token)}\nversion: 1\n`;
    fs.writeFileSync(file, text);
    const reg = registry();
    expect(reg.authenticate(token)).toBeNull();
    expect(reg.problem()).toBeTruthy();
    // …and admin commands refuse to overwrite it rather than silently dropping members.
    expect(() => reg.add('z')).toThrow('unreadable');
    fs.writeFileSync(file, valid);
    expect(reg.authenticate(token)?.agent_id).toBe('y');
  });

  it('a missing file is an empty registry, not an error', () => {
    const reg = registry();
    expect(reg.problem()).toBeNull();
    expect(reg.list()).toEqual([]);
    expect(reg.hasActiveMembers()).toBe(false);
    expect(reg.authenticate('bdn_' + '0'.repeat(48))).toBeNull();
  });
});

describe("the file shape (the engine reads ours, we read the engine's)", () => {
  it('is written with sorted keys, agents before version, engine timestamps', () => {
    const reg = registry();
    reg.add('zed', { grants: ['cursor'] }, new Date('2026-06-01T10:11:12.345Z'));
    reg.add('alpha', { tier: 'trusted' }, new Date('2026-06-01T10:11:13Z'));
    reg.rotate('zed', new Date('2026-06-02T00:00:00Z'));
    const text = fs.readFileSync(file, 'utf8');
    expect(text.indexOf('agents:')).toBeLessThan(text.indexOf('version: 1'));
    expect(text.indexOf('alpha:')).toBeLessThan(text.indexOf('zed:'));
    const doc = parseYaml(text) as { agents: Record<string, Record<string, unknown>>; version: number };
    expect(doc.version).toBe(1);
    expect(Object.keys(doc.agents.zed ?? {})).toEqual([
      'created_at',
      'grants',
      'revoked',
      'rotated_at',
      'tier',
      'token_sha256',
    ]);
    expect(doc.agents.zed).toMatchObject({
      created_at: '2026-06-01T10:11:12Z',
      rotated_at: '2026-06-02T00:00:00Z',
      grants: ['cursor'],
      revoked: false,
    });
  });

  it('reads a registry written by the Python engine', () => {
    const token = 'bdn_' + '1234abcd'.repeat(6);
    fs.writeFileSync(
      file,
      [
        'agents:',
        '  openclaw:',
        "    created_at: '2026-05-01T09:00:00Z'",
        '    grants:',
        '    - cursor',
        '    revoked: false',
        '    tier: quarantined',
        `    token_sha256: ${hashToken(token)}`,
        'version: 1',
        '',
      ].join('\n'),
    );
    const reg = registry();
    expect(reg.authenticate(token)).toEqual({
      agent_id: 'openclaw',
      tier: 'quarantined',
      grants: ['cursor'],
      ceiling: 'team',
    });
    expect(reg.list()).toEqual([
      {
        agent_id: 'openclaw',
        tier: 'quarantined',
        grants: ['cursor'],
        created_at: '2026-05-01T09:00:00Z',
        revoked: false,
      },
    ]);
  });

  it('reads hand-edited rows on the safe side: unknown or missing tier is quarantined, a scalar grant is one grant', () => {
    const hash = `'${'0'.repeat(64)}'`; // quoted, or YAML reads all digits as a number
    const rows = parseRegistry(
      `agents:\n  a:\n    token_sha256: ${hash}\n  b:\n    tier: Trusted\n    token_sha256: ${hash}\n  c:\n    tier: trusted\n    grants: cursor\n    token_sha256: ${hash}\n`,
    );
    expect(rows.get('a')?.tier).toBe('quarantined');
    expect(rows.get('b')?.tier).toBe('quarantined');
    expect(rows.get('c')?.tier).toBe('trusted');
    expect(rows.get('c')?.grants).toEqual(['cursor']);
    expect(parseRegistry(serialiseRegistry(rows))).toEqual(rows);
  });

  it('when two rows share a hash, only a live one authenticates (every row is compared)', () => {
    const token = 'bdn_' + 'c'.repeat(48);
    const hash = hashToken(token);
    fs.writeFileSync(
      file,
      `agents:\n  a:\n    tier: trusted\n    token_sha256: ${hash}\n  b:\n    tier: quarantined\n    revoked: true\n    token_sha256: ${hash}\nversion: 1\n`,
    );
    expect(registry().authenticate(token)?.agent_id).toBe('a');
  });
});

describe('listing and errors', () => {
  it('lists members sorted, revoked ones included, never with a hash', () => {
    const reg = registry();
    reg.add('zed');
    reg.add('alpha', { tier: 'trusted', grants: ['x'] });
    reg.revoke('zed');
    const listed = reg.list();
    expect(listed.map((m) => [m.agent_id, m.revoked])).toEqual([
      ['alpha', false],
      ['zed', true],
    ]);
    expect(JSON.stringify(listed)).not.toMatch(/token|sha256|[0-9a-f]{64}/);
  });

  it("refuses bad ids, tiers and namespaces as usage errors, with the engine's words", () => {
    const reg = registry();
    const cases: [() => unknown, string][] = [
      [() => reg.add('Bad'), "invalid agent_id 'Bad': must match ^[a-z0-9][a-z0-9_-]*$"],
      [() => reg.add('../etc'), "invalid agent_id '../etc'"],
      [() => reg.add('ok', { tier: 'admin' }), "invalid tier 'admin': must be one of ('trusted', 'quarantined')"],
      [() => reg.add('ok', { grants: ['../x'] }), "invalid namespace '../x'"],
    ];
    for (const [fn, message] of cases) {
      let thrown: unknown;
      try {
        fn();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(UsageError);
      expect((thrown as Error).message).toContain(message);
    }
    expect(fs.existsSync(file)).toBe(false);
  });

  it("refuses a duplicate, and unknown ids, with the engine's words", () => {
    const reg = registry();
    reg.add('openclaw');
    expect(() => reg.add('openclaw')).toThrow(
      "agent 'openclaw' already registered; use `bourdon agent rotate` for a new token or `bourdon revoke` first",
    );
    for (const fn of [
      () => reg.rotate('nobody'),
      () => reg.revoke('nobody'),
      () => reg.grant('nobody', 'x'),
      () => reg.setTier('nobody', 'trusted'),
    ]) {
      expect(fn).toThrow("unknown agent 'nobody'");
    }
  });
});

describe('concurrent admins', () => {
  it('lose no member when four processes add at once', async () => {
    const moduleUrl = pathToFileURL(path.join(REPO_ROOT, 'dist', 'core', 'trust', 'registry.js')).href;
    const script = (prefix: string) => `
      const { FederationRegistry } = await import(${JSON.stringify(moduleUrl)});
      const reg = new FederationRegistry(${JSON.stringify(file)});
      for (let i = 0; i < 6; i++) reg.add('${prefix}-' + i);
    `;
    const runs = ['a', 'b', 'c', 'd'].map(
      (prefix) =>
        new Promise<number | null>((resolve, reject) => {
          const child = spawn(process.execPath, ['--input-type=module', '-e', script(prefix)], {
            stdio: ['ignore', 'ignore', 'inherit'],
          });
          child.on('error', reject);
          child.on('close', resolve);
        }),
    );
    expect(await Promise.all(runs)).toEqual([0, 0, 0, 0]);
    const ids = registry()
      .list()
      .map((member) => member.agent_id);
    expect(ids).toHaveLength(24);
  });
});
