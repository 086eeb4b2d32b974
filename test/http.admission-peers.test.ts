/**
 * Fair admission against the real binary: calls waiting on a peer that does not answer do not
 * hold the server's admission slots, so a local call made meanwhile is answered first. Five
 * trusted members fan `find_entity` out to a peer that holds every request (more calls than
 * the 4 admission slots); a sixth member's local-only call must be answered while they all
 * still wait. If a peer wait held its slot, the local call would queue behind four calls that
 * end only with the peer budget (5 s), and would be answered after them.
 * Needs a build (npm test does it).
 */
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callJson, httpClient, oneAgentLibrary, startHttpServeWithPeer, type ServedHttp } from './helpers/http.js';

/** A peer that never answers: it holds each request until `release` drops the connections. */
async function silentPeer() {
  const sockets = new Set<net.Socket>();
  let received = 0;
  const server = http.createServer((req) => {
    received++;
    req.resume();
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    received: () => received,
    release: () => {
      for (const socket of sockets) socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('fair admission: a call waiting on its peers holds no slot', () => {
  let root: string;
  let peer: Awaited<ReturnType<typeof silentPeer>>;
  let server: ServedHttp;
  let federated: Client[];
  let local: Client;

  beforeAll(async () => {
    const served = oneAgentLibrary('bourdon-admission-');
    root = served.root;
    const { library, home, registry } = served;
    const tokens = Array.from({ length: 6 }, (_, i) => registry.add(`member-${i}`, { tier: 'trusted' }).token);
    peer = await silentPeer();
    server = await startHttpServeWithPeer(library, home, { name: 'quiet', url: peer.url });
    federated = await Promise.all(tokens.slice(0, 5).map((token) => httpClient(server.url, 'auto', token)));
    local = await httpClient(server.url, 'auto', tokens[5]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all([...(federated ?? []), local].map((client) => client?.close().catch(() => {})));
    await server?.stop();
    await peer?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('a local call is answered while five calls wait on a silent peer, and theirs come after', async () => {
    const order: string[] = [];
    const waiting = federated.map((client, i) =>
      callJson(client, 'find_entity', { name: 'Bourdon' }).then((answer) => {
        order.push(`federated-${i}`);
        return answer;
      }),
    );
    // The fan-out has reached the peer: the federated calls are (or are about to be) away from their slots.
    while (peer.received() === 0) await new Promise((resolve) => setImmediate(resolve));
    const agents = await callJson(local, 'list_agents', { federation_hop: 1 });
    order.push('local');
    expect(agents.agents).toEqual(['codex']);
    peer.release();
    const answers = await Promise.all(waiting);
    expect(order[0]).toBe('local');
    for (const answer of answers) expect((answer.matches as { name: string }[])[0]?.name).toBe('Bourdon');
  }, 60_000);
});
