/**
 * Issue 14, "bounded work and honest provenance": the attacks of the attack run, replayed
 * against a spawned `bourdon serve --transport http` with members and a fake peer (a real
 * HTTP MCP server, and raw HTTP for the oversized answer). While each attack runs, another
 * member keeps calling the server and must keep getting answers. How long it waits is a
 * figure, not a test: bench/attack-latency.js measures it (bench/README.md), so a busy machine
 * cannot fail this file and a fast one cannot hide a regression here.
 * Needs a build (npm test does it).
 */
import fs from 'node:fs';
import http from 'node:http';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDay } from '../src/core/store/dates.js';
import { mergeRows, ENTITY_LIST_FIELDS, entityKey, incomingEntityKey } from '../src/core/writes/merge.js';
import { precheckCommit } from '../src/core/writes/commit-input.js';
import { callJson, httpClient, oneAgentLibrary, startHttpServeWithPeer, type ServedHttp } from './helpers/http.js';
import { at } from './helpers/items.js';
import { standInServer } from './helpers/peer-stand-in.js';
import { ids, wideMatchAnswer, worstAllowedAnswer } from './helpers/hostile-matches.mjs';

const PEER_CAP = 2 * 1024 * 1024;

/** What the fake peer answers; the tests switch it between attacks. */
type PeerMode = 'wide-match' | 'worst-allowed' | 'huge' | 'spoof';

interface FakePeer {
  url: string;
  mode: PeerMode;
  /** Bytes of the last oversized answer the socket took before the client hung up. */
  hugeBytesWritten: number;
  close(): Promise<void>;
}

/** A peer that answers the worst it can for the current mode. */
async function fakePeer(): Promise<FakePeer> {
  const peer: FakePeer = { url: '', mode: 'wide-match', hugeBytesWritten: 0, close: async () => {} };
  const today = localDay(new Date());
  const mcpServer = () =>
    standInServer('hostile-peer', {
      find_entity: () => (peer.mode === 'wide-match' ? wideMatchAnswer() : worstAllowedAnswer()),
      list_agents: () => ({ agents: ['peer:laptop:codex', 'codex'] }),
      list_recent_work: () => ({
        since: '2000-01-01',
        agent: null,
        access_level: 'public',
        include_private: false,
        limit: null,
        cursor: null,
        summary: false,
        next_cursor: null,
        has_more: false,
        sessions: [
          { agent: 'codex', date: '2099-01-01', cwd: '/future', project_focus: ['Pinned'] },
          { agent: 'peer:laptop:codex', date: today, cwd: '/today', project_focus: ['Real'] },
        ],
      }),
    });
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const isCall = body.includes('"tools/call"');
    if (peer.mode === 'huge' && isCall) {
      // 60 MB, streamed as fast as the client takes it, with no Content-Length.
      const id = (JSON.parse(body.toString('utf8')) as { id: unknown }).id;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`);
      const block = Buffer.alloc(64 * 1024, 'x');
      peer.hugeBytesWritten = 0;
      let open = true;
      res.on('close', () => (open = false));
      while (open && peer.hugeBytesWritten < 60 * 1024 * 1024) {
        const more = res.write(block);
        peer.hugeBytesWritten += block.length;
        if (!more && open)
          await new Promise<void>((resolve) => {
            const settle = () => {
              res.off('drain', settle);
              res.off('close', settle);
              resolve();
            };
            res.on('drain', settle);
            res.on('close', settle);
          });
      }
      if (open) res.end('"}]}}');
      return;
    }
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(key, value);
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: req.method,
      headers,
      body: req.method === 'POST' ? body : undefined,
    });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await mcpServer().connect(transport);
    const response = await transport.handleRequest(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  peer.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`;
  peer.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return peer;
}

/**
 * Runs `attack` while `probe` keeps calling `list_agents` (federation_hop 1: local only) on
 * its own connection; returns the attack's result and how many probe calls were answered meanwhile.
 */
async function duringAttack<T>(probe: Client, attack: () => Promise<T>): Promise<{ result: T; probes: number }> {
  let done = false;
  let probes = 0;
  const probing = (async () => {
    while (!done) {
      await callJson(probe, 'list_agents', { federation_hop: 1 });
      probes += 1;
    }
  })();
  // Let the probe loop get going first, so the attack lands while it is calling.
  await new Promise((resolve) => setTimeout(resolve, 50));
  try {
    return { result: await attack(), probes };
  } finally {
    done = true;
    await probing;
  }
}

describe('issue 14: a hostile member or peer cannot freeze the server', () => {
  let root: string;
  let server: ServedHttp;
  let peer: FakePeer;
  let alice: Client; // trusted: her queries fan out to the peer
  let bob: Client; // trusted: the other caller whose latency is measured
  let mallory: Client; // quarantined: her commits are staged

  beforeAll(async () => {
    const served = oneAgentLibrary('bourdon-attack-');
    root = served.root;
    const { library, home, registry } = served;
    const tokens = {
      alice: registry.add('alice', { tier: 'trusted' }).token,
      bob: registry.add('bob', { tier: 'trusted' }).token,
      mallory: registry.add('mallory', { tier: 'quarantined', grants: ['mallory'] }).token,
    };
    peer = await fakePeer();
    server = await startHttpServeWithPeer(library, home, { name: 'evil', url: peer.url });
    alice = await httpClient(server.url, 'auto', tokens.alice);
    bob = await httpClient(server.url, 'auto', tokens.bob);
    mallory = await httpClient(server.url, 'auto', tokens.mallory);
  }, 90_000);

  afterAll(async () => {
    await Promise.all([alice, bob, mallory].map((client) => client?.close().catch(() => {})));
    await server?.stop();
    await peer?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('the attack-run commit (two same-name entities × 40,000 tags) is refused at once; the worst allowed commit does not stall others', async () => {
    const attackRun = {
      agent_id: 'mallory',
      agent_type: 'other',
      entities: [
        { name: 'x', tags: ids('t', 40_000) },
        { name: 'X', tags: ids('u', 40_000) },
      ],
    };
    const refused = await duringAttack(bob, () => callJson(mallory, 'commit_to_federation', attackRun));
    expect(refused.result.error).toBe('entities[0].tags has 40000 items; the limit is 1000 per commit');

    // The most a commit may carry: 2,000 entities and 20,000 tags, twice, so the second merges
    // every row into a staged file already at the caps (the YAML work is the larger part).
    const worst = {
      agent_id: 'mallory',
      agent_type: 'other',
      entities: Array.from({ length: 2_000 }, (_, i) => ({ name: `entity-${i}`, tags: ids(`t${i}-`, 10) })),
    };
    for (let round = 0; round < 2; round++) {
      const allowed = await duringAttack(bob, () => callJson(mallory, 'commit_to_federation', worst));
      expect(allowed.result.staged, JSON.stringify(allowed.result)).toBe(true);
      expect(allowed.probes).toBeGreaterThan(0);
    }
  }, 120_000);

  it("a peer's 30,000-agent match and its worst answer under the byte cap are merged in bounded time", async () => {
    peer.mode = 'wide-match';
    const wide = await duringAttack(bob, () => callJson(alice, 'find_entity', { name: 'bourdon' }));
    const match = at(wide.result.matches as { agents: string[]; tags: string[] }[], 0, 'a match');
    // Local first, then the peer's, cut to 1,000 per list and tagged with the peer we configured.
    expect(match.agents).toHaveLength(1 + 1_000);
    expect(match.agents.slice(0, 2)).toEqual(['codex', 'peer:evil:a0']);
    expect(match.tags).toHaveLength(1 + 1_000);

    peer.mode = 'worst-allowed';
    const worst = await duringAttack(bob, () => callJson(alice, 'find_entity', { name: 'bourdon' }));
    // 20,000 list items per answer in all: the first matches whole, the rest cut.
    expect((worst.result.matches as { agents: string[] }[])[0]?.agents).toHaveLength(1 + 10 * 1_000);
  }, 120_000);

  it('a 60 MB peer answer is cut off at 2 MiB while it arrives (not read whole, not timed out)', async () => {
    peer.mode = 'huge';
    const huge = await duringAttack(bob, () => callJson(alice, 'find_entity', { name: 'bourdon' }));
    expect(huge.result.peers_unreachable).toEqual([
      { peer: 'evil', timed_out: false, error: expect.stringContaining(`peer answer over ${PEER_CAP} bytes`) },
    ]);
    expect((huge.result.matches as { agents: string[] }[])[0]?.agents).toEqual(['codex']);
    // The client hung up soon after the cap, far from the 60 MB the peer had to send.
    expect(peer.hugeBytesWritten).toBeLessThan(20 * 1024 * 1024);
  }, 60_000);

  it("every peer row carries the configured peer's tag, and sessions dated after tomorrow are dropped", async () => {
    peer.mode = 'spoof';
    const agents = await callJson(alice, 'list_agents', {});
    expect(agents.agents).toEqual(['codex', 'peer:evil:codex', 'peer:evil:peer:laptop:codex']);
    const recent = await callJson(alice, 'list_recent_work', {});
    const sessions = recent.sessions as { agent: string; date: string }[];
    expect(sessions.map((session) => [session.agent, session.date])).toEqual([
      ['peer:evil:peer:laptop:codex', localDay(new Date())],
    ]);
  }, 60_000);
});

describe('per-commit caps', () => {
  const entity = (i: number, tags = 0) => ({ name: `e${i}`, tags: ids('t', tags) });
  it('refuses more rows, list items per field, or list items in all than a commit may carry, in one line', () => {
    const base = { agent_id: 'a', agent_type: 'other' };
    expect(precheckCommit({ ...base, entities: Array.from({ length: 2_000 }, (_, i) => entity(i, 10)) })).toBeNull();
    expect(
      precheckCommit({
        ...base,
        sessions: Array.from({ length: 2_001 }, (_, i) => ({ date: `2026-01-0${(i % 9) + 1}` })),
      }),
    ).toBe('sessions has 2001 rows; the limit is 2000 per commit');
    expect(
      precheckCommit({ ...base, notes: [{ date: '2026-01-01', text: 'n', project_focus: ids('p', 1_001) }] }),
    ).toBe('notes[0].project_focus has 1001 items; the limit is 1000 per commit');
    expect(precheckCommit({ ...base, entities: Array.from({ length: 21 }, (_, i) => entity(i, 1_000)) })).toBe(
      'the rows carry 21000 list items in all; the limit is 20000 per commit',
    );
  });
});

describe('list unions stay what they were, only linear', () => {
  it('keeps the existing order, appends new items in theirs, and treats equal values as one', () => {
    const existing: unknown[] = [
      { name: 'Thing', tags: ['b', 'a', { k: 1, j: [1, 2] }, 0] },
      { name: 'Other', aliases: 'solo' },
    ];
    const counts = mergeRows(
      existing,
      [
        { name: ' thing ', tags: ['a', 'c', { j: [1, 2], k: 1 }, -0, 'c', '0', 0, null] },
        { name: 'other', aliases: ['solo', 'duo'] },
      ],
      ENTITY_LIST_FIELDS,
      entityKey,
      incomingEntityKey,
    );
    expect(counts).toEqual({ added: 0, updated: 2 });
    // Object keys in another order are the same value; -0 is not 0 (Object.is), nor is '0'.
    expect((existing[0] as { tags: unknown[] }).tags).toEqual(['b', 'a', { k: 1, j: [1, 2] }, 0, 'c', -0, '0', null]);
    expect(Object.is((existing[0] as { tags: unknown[] }).tags[5], -0)).toBe(true);
    expect((existing[1] as { aliases: unknown[] }).aliases).toEqual(['solo', 'duo']);
  });
});
