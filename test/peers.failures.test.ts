/**
 * `bourdon peers check` and `doctor` say what failed when a peer cannot be reached (DNS, a
 * refused connection, a timeout, a refused token) and what to do, on the real binary against
 * real sockets, instead of the MCP SDK's "Version negotiation probe failed: fetch failed".
 */
import http from 'node:http';
import net from 'node:net';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';

let home: string;
let library: string;
const servers: (net.Server | http.Server)[] = [];

function listen(server: net.Server | http.Server): Promise<number> {
  servers.push(server);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)),
  );
}

const env = () => ({ BOURDON_HOME: home, BOURDON_PEER_GUARDED: 'bdn_not-the-right-token' });

beforeAll(async () => {
  home = tempDir('bourdon-peerfail-home-');
  library = tempDir('bourdon-peerfail-lib-');
  fs.mkdirSync(`${library}/agents`);
  // A port nothing listens on: bound, then closed.
  const probe = net.createServer();
  const closedPort = await listen(probe);
  await new Promise((resolve) => probe.close(resolve));
  // Accepts the connection and never answers.
  const silentPort = await listen(net.createServer(() => {}));
  // Answers every request 401, as a server does for a token it does not know.
  const guardedPort = await listen(
    http.createServer((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end('{"error":"invalid token"}');
    }),
  );
  const add = async (...args: string[]) =>
    expect((await runCli(['peers', 'add', ...args], { env: env() })).code).toBe(0);
  await add('nowhere', 'https://bourdon-peer.invalid:7500');
  await add('closed', `http://127.0.0.1:${closedPort}/mcp`);
  await add('silent', `http://127.0.0.1:${silentPort}/mcp`);
  await add('guarded', `http://127.0.0.1:${guardedPort}/mcp`, '--token-env', 'BOURDON_PEER_GUARDED');
}, 60_000);

afterAll(() => {
  for (const server of servers) server.close();
  for (const dir of [home, library]) fs.rmSync(dir, { recursive: true, force: true });
});

describe('an unreachable peer: what failed and what to do', () => {
  it('peers check names the failure for each peer, whole, and exits 1', async () => {
    const result = await runCli(['peers', 'check', '--timeout', '1500', '--json'], { env: env(), timeoutMs: 60_000 });
    expect(result.code).toBe(1);
    const { peers } = JSON.parse(result.stdout) as { peers: { name: string; error: string }[] };
    const errorOf = (name: string) => peers.find((peer) => peer.name === name)?.error ?? '';
    expect(errorOf('nowhere')).toMatch(
      /^DNS: bourdon-peer\.invalid does not resolve; .*`bourdon peers remove nowhere`$/,
    );
    expect(errorOf('closed')).toMatch(
      /^connection refused at 127\.0\.0\.1:\d+: nothing listens there; .*`bourdon peers remove closed`$/,
    );
    expect(errorOf('silent')).toMatch(
      /^timeout: no answer from 127\.0\.0\.1:\d+ within 1500 ms; .*`bourdon peers remove silent`$/,
    );
    expect(errorOf('guarded')).toMatch(
      /^the peer refused the token \(HTTP 401\): check that BOURDON_PEER_GUARDED holds/,
    );
    for (const peer of peers) expect(peer.error).not.toMatch(/Version negotiation|fetch failed/);
    // The token itself is never echoed.
    expect(result.stdout).not.toContain('not-the-right-token');
  }, 60_000);

  it('the human table is followed by each failure in full, wrapped at the width', async () => {
    const result = await runCli(['peers', 'check', '--timeout', '1500'], {
      env: { ...env(), COLUMNS: '80' },
      timeoutMs: 60_000,
    });
    expect(result.code).toBe(1);
    const text = result.stdout.replace(/\n {2}/g, ' ');
    expect(text).toMatch(/^closed: connection refused at .* or `bourdon peers remove closed`$/m);
    expect(result.stdout.split('\n').filter((line) => line.length > 80)).toEqual([]);
  }, 60_000);

  it('doctor reports the same reasons in its reachability check', async () => {
    const result = await runCli(['doctor', '--json', '--peer-timeout', '1500', '--library', library], {
      env: env(),
      timeoutMs: 60_000,
    });
    const report = JSON.parse(result.stdout) as { checks: { id: string; verdict: string; details: string[] }[] };
    const reach = report.checks.find((check) => check.id === 'reachability');
    expect(reach?.verdict).toBe('fail');
    expect(reach?.details.join('\n')).toMatch(/closed: unreachable \(connection refused at /);
    expect(reach?.details.join('\n')).toMatch(/nowhere: unreachable \(DNS: /);
  }, 60_000);
});
