/** Peer configuration rules (spec §11): every rule refuses, and refuses clearly. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAILURES } from '../src/core/errors.js';
import { loadPeersFile, normalisePeerUrl, parsePeersFile, selectPeers } from '../src/core/federation/peers-config.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';

describe('peer URLs', () => {
  it('appends /mcp when missing and keeps https anywhere, http only on loopback', () => {
    expect(normalisePeerUrl('https://laptop.example:7500')).toBe('https://laptop.example:7500/mcp');
    expect(normalisePeerUrl('https://laptop.example/bourdon/')).toBe('https://laptop.example/bourdon/mcp');
    expect(normalisePeerUrl('http://127.0.0.1:7501/mcp')).toBe('http://127.0.0.1:7501/mcp');
    expect(normalisePeerUrl('http://localhost:7501')).toBe('http://localhost:7501/mcp');
    expect(normalisePeerUrl('http://[::1]:7501')).toBe('http://[::1]:7501/mcp');
  });

  it.each([
    ['http://laptop.example:7500', /https/],
    ['http://10.0.0.5:7500', /https/],
    ['https://user:pass@laptop.example', /credentials/],
    ['https://laptop.example/mcp?token=x', /query/],
    ['https://laptop.example/mcp#frag', /fragment/],
    ['ftp://laptop.example', /https/],
    ['not a url', /not a URL/],
  ])('refuses %s', (url, reason) => {
    expect(() => normalisePeerUrl(url)).toThrow(reason);
  });
});

describe('peers files', () => {
  it('defaults token_env to BOURDON_PEER_TOKEN and accepts only BOURDON_PEER_* names', () => {
    expect(parsePeersFile('peers:\n  - {name: laptop, url: "https://l.example"}\n', 'x')).toEqual([
      { name: 'laptop', url: 'https://l.example/mcp', token_env: 'BOURDON_PEER_TOKEN' },
    ]);
    expect(() => parsePeersFile('peers:\n  - {name: l, url: "https://l.example", token_env: HOME}\n', 'x')).toThrow(
      /BOURDON_PEER_/,
    );
    expect(() => parsePeersFile('peers:\n  - {name: "Bad Name", url: "https://l.example"}\n', 'x')).toThrow(
      /peer name/,
    );
    expect(() =>
      parsePeersFile('peers:\n  - {name: a, url: "https://a.example"}\n  - {name: a, url: "https://b.example"}\n', 'x'),
    ).toThrow(/duplicate/);
    expect(() => parsePeersFile('peers: {a: 1}\n', 'x')).toThrow(/peers/);
    expect(() => parsePeersFile('peers: [\n', 'x')).toThrow(/not valid YAML/);
  });

  it('refuses a token written into the file, without echoing it, and the server operator token as a peer token', () => {
    const secret = 'bdn_0123456789abcdef0123456789abcdef';
    for (const key of ['token', 'Token', 'bearer', 'password', 'api_key']) {
      const text = `peers:\n  - {name: laptop, url: "https://l.example", ${key}: ${secret}}\n`;
      let message = '';
      try {
        parsePeersFile(text, 'peers.yaml');
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain(`a \`${key}:\` key is not allowed: the file holds variable names only`);
      expect(message).not.toContain(secret);
      expect(message).not.toContain('\n');
    }
    expect(() =>
      parsePeersFile('peers:\n  - {name: l, url: "https://l.example", token_env: BOURDON_PEER_TOKEN_SERVER}\n', 'x'),
    ).toThrow(/this server's own operator token and is never sent to a peer/);
  });

  it('fails closed on a missing file', () => {
    expect(() => loadPeersFile(path.join(tempDir(), 'missing.yaml'))).toThrow(/does not exist/);
  });

  it('opts in exactly one way; --no-peers refuses the others', () => {
    const file = path.join(tempDir(), 'peers.yaml');
    fs.writeFileSync(file, 'peers:\n  - {name: laptop, url: "https://l.example"}\n');
    expect(selectPeers({}, file)).toEqual([]);
    expect(selectPeers({ federate: true }, file)).toHaveLength(1);
    expect(selectPeers({ peersConfig: file }, '/nope')).toHaveLength(1);
    expect(
      selectPeers({ peer: ['http://127.0.0.1:7501', 'http://127.0.0.1:7502'] }, '/nope').map((p) => p.name),
    ).toEqual(['127-0-0-1-7501', '127-0-0-1-7502']);
    expect(() => selectPeers({ noPeers: true, federate: true }, file)).toThrow(/--no-peers/);
    expect(() => selectPeers({ federate: true, peer: ['http://127.0.0.1:1'] }, file)).toThrow(/choose one/);
    expect(() => selectPeers({ federate: true }, '/definitely/missing.yaml')).toThrow(/does not exist/);
  });
});

describe('bourdon peers', () => {
  it('adds, lists and removes peers in $BOURDON_HOME/peers.yaml; bad input changes nothing', async () => {
    const home = tempDir('bourdon-peers-home-');
    const env = { BOURDON_HOME: home };
    const add = await runCli(
      ['peers', 'add', 'laptop', 'https://laptop.example:7500', '--token-env', 'BOURDON_PEER_LAPTOP'],
      { env },
    );
    expect(add.code, add.stderr).toBe(0);
    const bad = await runCli(['peers', 'add', 'other', 'http://192.168.1.9:7500'], { env });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr.trim().split('\n')[0]).toMatch(/https/);
    const dup = await runCli(['peers', 'add', 'laptop', 'https://x.example'], { env });
    expect(dup.code).toBe(FAILURES.conflict.exit);
    const list = await runCli(['peers', 'list', '--json'], { env });
    expect(JSON.parse(list.stdout).peers).toEqual([
      { name: 'laptop', url: 'https://laptop.example:7500/mcp', token_env: 'BOURDON_PEER_LAPTOP' },
    ]);
    const removed = await runCli(['peers', 'remove', 'laptop'], { env });
    expect(removed.code).toBe(0);
    expect(JSON.parse((await runCli(['peers', 'list', '--json'], { env })).stdout).peers).toEqual([]);
  });

  it('add warns in one line when the token variable it names is not set in this shell (as doctor does), and adds the peer', async () => {
    const home = tempDir('bourdon-peers-home-');
    try {
      const args = ['peers', 'add', 'laptop', 'https://laptop.example:7500', '--token-env', 'BOURDON_PEER_LAPTOP'];
      const unset = await runCli(args, { env: { BOURDON_HOME: home, BOURDON_PEER_LAPTOP: undefined } });
      expect(unset.code, unset.stderr).toBe(0);
      expect(unset.stderr).toBe(
        'bourdon: warning: $BOURDON_PEER_LAPTOP is not set in this shell: export the token laptop issued before `bourdon serve --federate`\n',
      );
      expect(
        JSON.parse((await runCli(['peers', 'list', '--json'], { env: { BOURDON_HOME: home } })).stdout).peers,
      ).toHaveLength(1);
      // Set (to anything but blanks), nothing is said.
      const set = await runCli(
        [...args.slice(0, 2), 'desk', 'https://desk.example:7500', '--token-env', 'BOURDON_PEER_DESK'],
        {
          env: { BOURDON_HOME: home, BOURDON_PEER_DESK: 'bdn_' + 'cd'.repeat(24) },
        },
      );
      expect(set.code, set.stderr).toBe(0);
      expect(set.stderr).toBe('');
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it('add refuses --token-env BOURDON_PEER_TOKEN_SERVER (the server operator token) and writes nothing', async () => {
    const home = tempDir('bourdon-peers-home-');
    try {
      const result = await runCli(
        ['peers', 'add', 'laptop', 'https://laptop.example:7500', '--token-env', 'BOURDON_PEER_TOKEN_SERVER'],
        { env: { BOURDON_HOME: home, BOURDON_PEER_TOKEN_SERVER: 'operator-secret-token-value-0123456789' } },
      );
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split('\n')[0]).toMatch(/own operator token and is never sent to a peer/);
      expect(result.stderr).not.toContain('operator-secret-token-value');
      expect(fs.existsSync(path.join(home, 'peers.yaml'))).toBe(false);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it('check reports an unreachable peer and exits 1', async () => {
    const home = tempDir('bourdon-peers-home-');
    fs.writeFileSync(path.join(home, 'peers.yaml'), 'peers:\n  - {name: gone, url: "http://127.0.0.1:9/mcp"}\n');
    const result = await runCli(['peers', 'check', '--json', '--timeout', '2000'], { env: { BOURDON_HOME: home } });
    expect(result.code).toBe(1);
    const [peer] = JSON.parse(result.stdout).peers;
    expect(peer).toMatchObject({ name: 'gone', reachable: false });
  });
});

describe('bourdon serve peer options', () => {
  it('fails closed: --federate without a peers file, a bad --peer, and --no-peers with a peer all refuse to start', async () => {
    const home = tempDir('bourdon-serve-peers-');
    const library = tempDir('bourdon-serve-lib-');
    const env = { BOURDON_HOME: home };
    const federate = await runCli(['serve', '--library', library, '--federate'], { env });
    expect(federate.code).toBe(FAILURES.not_found.exit);
    expect(federate.stderr).toMatch(/peers file .* does not exist/);
    const bad = await runCli(['serve', '--library', library, '--peer', 'http://10.1.2.3:7500'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/https/);
    const both = await runCli(['serve', '--library', library, '--no-peers', '--peer', 'http://127.0.0.1:7501'], {
      env,
    });
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--no-peers/);
    fs.writeFileSync(path.join(home, 'peers.yaml'), 'peers: [{name: x, url: "https://x.example", token_env: PATH}]\n');
    const invalid = await runCli(['serve', '--library', library, '--federate'], { env });
    expect(invalid.code).toBe(FAILURES.invalid_input.exit);
    expect(invalid.stderr).toMatch(/BOURDON_PEER_/);
  });
});
