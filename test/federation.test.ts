/**
 * Federation across machines: real servers on loopback ports. A and B peer with each other,
 * C is configured but dead, D answers too slowly, E is an old peer without the newer tools.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAudit } from '../src/core/trust/audit.js';
import { LibraryStore } from '../src/core/store/library.js';
import { localDay } from '../src/core/store/dates.js';
import { mergeExports } from '../src/core/federation/federation.js';
import type { PeerConfig } from '../src/core/federation/peers-config.js';
import type { PeerFanout } from '../src/core/peers.js';
import { RECOGNITION_BUDGET_MS } from '../src/core/operations/prompt-reads.js';
import { runHttpServer, type HttpServerHandle } from '../src/mcp/http.js';
import { McpPeerFanout } from '../src/mcp/peer-client.js';
import { createMcpServer } from '../src/mcp/server.js';
import { standInServer } from './helpers/peer-stand-in.js';
import { runCli } from './helpers/cli.js';
import { callOverHttp, deadPort } from './helpers/http.js';
import { BIN, libraryOf, tempDir } from './helpers/fixtures.js';
import { at, only } from './helpers/items.js';
import { firstText, stdioClient } from './helpers/mcp.js';

const TOKEN_A = 'shared-token-for-a';
const TOKEN_B = 'shared-token-for-b';
const silent = () => {};

/** A peer that answers every tool after a long pause, and spoofs provenance when it does. */
/** Released when the suite ends: the slow peer answers nothing before, however fast this machine is. */
let releaseSlow: () => void = () => {};
const slowHeld = new Promise<void>((resolve) => (releaseSlow = resolve));

const slowServer = () =>
  standInServer(
    'slow',
    Object.fromEntries(
      ['find_entity', 'list_agents', 'prepare_recognition_context', 'list_recent_work', 'get_cross_agent_summary'].map(
        (tool) => [tool, () => slowHeld.then(() => ({ agents: ['too-late'], matches: [] }))],
      ),
    ),
  );

/** A peer that claims to be someone else in its export. */
const spoofingServer = () =>
  standInServer('spoof', {
    export_agents: () => ({
      schema: 'bourdon.agents/v1',
      machine: 'trusted-desktop',
      agents: [{ id: 'claude-code', type: 'code-assistant', source: 'trusted-desktop', source_kind: 'local' }],
    }),
  });

/** An old peer (like the Python engine): the classic tools only, no list_notes/list_workstreams. */
const oldServer = () => standInServer('old', { list_agents: () => ({ agents: ['legacy-bot'] }) });

describe('federation across machines', () => {
  const handles: HttpServerHandle[] = [];
  const askedBudgets: { tool: string; budgetMs: number | undefined }[] = [];
  const fanouts: McpPeerFanout[] = [];
  let libA: string;
  let libB: string;
  let auditA: string;
  let a: HttpServerHandle;

  beforeAll(async () => {
    libA = libraryOf({
      'claude-code':
        "known_entities:\n  - {name: Bourdon, type: project, summary: Local view.}\nrecent_sessions:\n  - {date: '2026-06-02', cwd: /a, project_focus: [Bourdon], key_actions: [Local work]}\n",
    });
    libB = libraryOf({
      'claude-code':
        "known_entities:\n  - {name: bourdon, type: project, summary: Laptop view.}\n  - {name: Laptop Only, type: concept}\nrecent_sessions:\n  - {date: '2026-06-03', cwd: /b, project_focus: [Bourdon], key_actions: [Laptop work]}\n",
      codex:
        "known_entities:\n  - {name: Private Thing, visibility: private}\nnotes:\n  - {date: '2026-06-04', text: Laptop note about Bourdon, project_focus: [Bourdon]}\n",
    });
    const home = tempDir('bourdon-fed-home-');
    auditA = path.join(home, 'audit-a.jsonl');
    const env = { BOURDON_PEER_TOKEN_A: TOKEN_A, BOURDON_PEER_TOKEN_B: TOKEN_B };

    // B first, so A can point at it; B's peers are A, once A is up (B's server is made per
    // request, so it takes the fan-out as it is then).
    let fanoutB = new McpPeerFanout([], env);
    fanouts.push(fanoutB);
    const storeB = new LibraryStore(libB, { warn: silent });
    const b = await runHttpServer(() => createMcpServer(storeB, { warn: silent, auditPath: null, peers: fanoutB }), {
      port: 0,
      legacyToken: TOKEN_B,
      warn: silent,
      // B stands for another machine: its callers arrive from a non-loopback address.
      isRemote: () => true,
    });
    handles.push(b);

    const c = `http://127.0.0.1:${await deadPort()}/mcp`;
    const d = await runHttpServer(slowServer, { port: 0, allowUnauthenticated: true, warn: silent });
    const e = await runHttpServer(oldServer, { port: 0, allowUnauthenticated: true, warn: silent });
    handles.push(d, e);

    const peersOfA: PeerConfig[] = [
      { name: 'b', url: b.url, token_env: 'BOURDON_PEER_TOKEN_B' },
      { name: 'c', url: c, token_env: 'BOURDON_PEER_TOKEN_B' },
      { name: 'd', url: d.url, token_env: 'BOURDON_PEER_TOKEN_B' },
      { name: 'e', url: e.url, token_env: 'BOURDON_PEER_TOKEN_B' },
    ];
    // The budgets are the test's, injected at the fan-out seam: the peers that answer get a long
    // one (they answer whenever this machine gets to it), the held peer d a short one (it times
    // out whatever the load). The budget each operation asks for is recorded.
    const answering = new McpPeerFanout(
      peersOfA.filter((peer) => peer.name !== 'd'),
      env,
      30_000,
    );
    const held = new McpPeerFanout(
      peersOfA.filter((peer) => peer.name === 'd'),
      env,
      300,
    );
    fanouts.push(answering, held);
    const fanoutA: PeerFanout = {
      names: peersOfA.map((peer) => peer.name),
      async call(tool, args, options = {}) {
        askedBudgets.push({ tool, budgetMs: options.budgetMs });
        const answers = (await Promise.all([answering.call(tool, args), held.call(tool, args)])).flat();
        return peersOfA.map((peer) => answers.find((answer) => answer.peer === peer.name)!);
      },
    };
    const storeA = new LibraryStore(libA, { warn: silent });
    a = await runHttpServer(() => createMcpServer(storeA, { warn: silent, auditPath: auditA, peers: fanoutA }), {
      port: 0,
      legacyToken: TOKEN_A,
      warn: silent,
    });
    handles.push(a);
    fanoutB = new McpPeerFanout([{ name: 'a', url: a.url, token_env: 'BOURDON_PEER_TOKEN_A' }], env);
    fanouts.push(fanoutB);
  });

  afterAll(async () => {
    releaseSlow();
    await Promise.all(fanouts.map((fanout) => fanout.close()));
    await Promise.all(handles.map((handle) => handle.close()));
  });

  const askA = (tool: string, args: Record<string, unknown>) => callOverHttp(a.url, TOKEN_A, tool, args);

  it("lists B's agents tagged with provenance, and reports the dead and slow peers", async () => {
    const payload = await askA('list_agents', {});
    expect(payload.agents).toEqual(['claude-code', 'peer:b:claude-code', 'peer:b:codex', 'peer:e:legacy-bot']);
    const missing = payload.peers_unreachable as { peer: string; timed_out: boolean }[];
    expect(missing.map((peer) => peer.peer).sort()).toEqual(['c', 'd']);
    expect(missing.find((peer) => peer.peer === 'd')!.timed_out).toBe(true);
    expect(missing.find((peer) => peer.peer === 'c')!.timed_out).toBe(false);
  });

  it('merges entity matches by lower-cased name with tagged agents and summaries', async () => {
    const payload = await askA('find_entity', { name: 'bourdon' });
    const matches = payload.matches as { name: string; agents: string[]; summaries: Record<string, string> }[];
    const match = only(matches, 'match');
    expect(match.agents).toEqual(['claude-code', 'peer:b:claude-code']);
    expect(match.summaries).toEqual({ 'claude-code': 'Local view.', 'peer:b:claude-code': 'Laptop view.' });
  });

  it('never recurses: B answers A from its own store (no call comes back to A)', async () => {
    await askA('find_entity', { name: 'laptop only' });
    const ops = readAudit(auditA).map((record) => record.agent);
    expect(new Set(ops)).toEqual(new Set(['operator'])); // only our own calls, via the legacy token
  });

  it('merges recent work across machines, newest first, and pages the merged list', async () => {
    const payload = await askA('list_recent_work', { since: '2026-01-01', limit: 1 });
    expect(payload.sessions).toEqual([
      {
        agent: 'peer:b:claude-code',
        date: '2026-06-03',
        cwd: '/b',
        project_focus: ['Bourdon'],
        key_actions: ['Laptop work'],
        files_touched: [],
      },
    ]);
    expect(payload.has_more).toBe(true);
    const next = await askA('list_recent_work', { since: '2026-01-01', limit: 1, cursor: payload.next_cursor });
    expect((next.sessions as { agent: string }[])[0]?.agent).toBe('claude-code');
  });

  it('notes and workstreams merge across machines; an old peer without those tools degrades to nothing', async () => {
    const notes = await askA('list_notes', { since: '2026-01-01' });
    expect(notes.notes).toEqual([
      {
        agent: 'peer:b:codex',
        date: '2026-06-04',
        title: null,
        text: 'Laptop note about Bourdon',
        tags: [],
        project_focus: ['Bourdon'],
      },
    ]);
    const unreachableNotes = (notes.peers_unreachable as { peer: string }[]).map((peer) => peer.peer).sort();
    // e, an old server, offers no list_notes: it answered, contributes nothing, and is named as
    // lacking the tool rather than unreachable. d offers none either, but its budget here is short
    // (300 ms): on a loaded machine it may not even connect in time, and is then unreachable.
    const withoutTool = notes.peers_without_tool as string[];
    expect(withoutTool).toContain('e');
    expect(unreachableNotes).toContain('c');
    expect([...unreachableNotes, ...withoutTool].sort()).toEqual(['c', 'd', 'e']);
    const streams = await askA('list_workstreams', { since: '2026-01-01' });
    const bourdon = (
      streams.workstreams as {
        name: string;
        agents: string[];
        session_count: number;
        note_count: number;
        last_activity: string;
      }[]
    ).find((stream) => stream.name.toLowerCase() === 'bourdon')!;
    expect(bourdon.agents).toEqual(['claude-code', 'peer:b:claude-code', 'peer:b:codex']);
    expect(bourdon.session_count).toBe(2);
    expect(bourdon.note_count).toBe(1);
    expect(bourdon.last_activity).toBe('2026-06-04');
  });

  it('recognition asks peers with its own budget, folds them in and reports per-peer latencies', async () => {
    const payload = await askA('prepare_recognition_context', { prompt: 'what about bourdon and laptop only?' });
    expect(askedBudgets).toContainEqual({ tool: 'prepare_recognition_context', budgetMs: RECOGNITION_BUDGET_MS });
    expect(RECOGNITION_BUDGET_MS).toBe(200);
    expect((payload.peer_latencies_us as Record<string, number | null>).b).not.toBeNull();
    expect(payload.matched_entities).toEqual([
      { name: 'Bourdon', type: 'project', source_agents: ['claude-code', 'peer:b:claude-code'] },
      { name: 'Laptop Only', type: 'concept', source_agents: ['peer:b:claude-code'] },
    ]);
    expect(payload.peers_queried).toBe(4);
    const latencies = payload.peer_latencies_us as Record<string, number | null>;
    expect(latencies.c).toBeNull();
    expect(latencies.d).toBeNull();
    expect(payload.peers_timed_out).toBeGreaterThanOrEqual(1);
  });

  it('private rows never leave their machine, even when the operator asks for private access', async () => {
    const payload = await askA('find_entity', { name: 'private thing', access_level: 'private' });
    expect(payload.matches).toEqual([]);
    const agents = await askA('list_agents', {});
    expect(agents.agents).toContain('peer:b:codex'); // the agent is visible, its private row is not
  });

  it('bourdon agents --export --federated re-tags peers and ignores their provenance claims', async () => {
    const spoof = await runHttpServer(spoofingServer, { port: 0, allowUnauthenticated: true, warn: silent });
    handles.push(spoof);
    const home = tempDir('bourdon-fed-cli-');
    fs.writeFileSync(
      path.join(home, 'peers.yaml'),
      `peers:\n  - {name: b, url: "${at(handles, 0).url}", token_env: BOURDON_PEER_TOKEN_B}\n  - {name: spoof, url: "${spoof.url}"}\n  - {name: gone, url: "http://127.0.0.1:9/mcp"}\n`,
    );
    const result = await runCli(['agents', '--export', '--federated', '--json', '--library', libA], {
      env: { BOURDON_HOME: home, BOURDON_PEER_TOKEN_B: TOKEN_B, BOURDON_LOCAL_NAME: 'desk' },
    });
    expect(result.code, result.stderr).toBe(0);
    const envelope = JSON.parse(result.stdout);
    const byId = Object.fromEntries(envelope.agents.map((agent: { id: string }) => [agent.id, agent]));
    expect(byId['claude-code']).toMatchObject({ source: 'desk', source_kind: 'local' });
    expect(byId['peer:b:claude-code']).toMatchObject({ source: 'peer:b', source_kind: 'peer' });
    expect(byId['peer:spoof:claude-code']).toMatchObject({ source: 'peer:spoof', source_kind: 'peer' });
    expect(envelope.machine).toBe('desk');
    expect(envelope.sources).toEqual([
      { name: 'desk', kind: 'local', reachable: true, error: null },
      { name: 'b', kind: 'peer', reachable: true, error: null },
      { name: 'spoof', kind: 'peer', reachable: true, error: null },
      { name: 'gone', kind: 'peer', reachable: false, error: expect.any(String) },
    ]);
  });

  it('a spawned `bourdon serve --peer <url>` federates with B over the network', async () => {
    const { client } = await stdioClient(
      {
        args: [BIN, 'serve', '--library', libA, '--peer', at(handles, 0).url],
        env: { BOURDON_HOME: tempDir('bourdon-fed-stdio-'), BOURDON_PEER_TOKEN: TOKEN_B },
      },
      { name: 'fed-stdio' },
    );
    try {
      const result = await client.callTool({ name: 'list_agents', arguments: {} });
      const payload = JSON.parse(firstText(result));
      expect(payload.agents).toEqual([
        'claude-code',
        'peer:127-0-0-1-' + new URL(at(handles, 0).url).port + ':claude-code',
        'peer:127-0-0-1-' + new URL(at(handles, 0).url).port + ':codex',
      ]);
    } finally {
      await client.close();
    }
  });

  it('talks to a handshake-era-only peer (as the Python engine serves): the client negotiates down', async () => {
    // A stateless streamable-HTTP server that knows nothing of MCP 2026-07-28 (no server/discover).
    const legacyOnly = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [key, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(key, value);
      const request = new Request(`http://127.0.0.1${req.url}`, {
        method: req.method,
        headers,
        body: req.method === 'POST' ? Buffer.concat(chunks) : undefined,
      });
      const server = new McpServer({ name: 'python-like', version: '0.10.1' });
      server.registerTool(
        'list_agents',
        { inputSchema: z.object({ federation_hop: z.number().optional() }) },
        async () => ({
          content: [{ type: 'text', text: JSON.stringify({ agents: ['hermes'] }) }],
        }),
      );
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      await server.connect(transport);
      const response = await transport.handleRequest(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    });
    await new Promise<void>((resolve) => legacyOnly.listen(0, '127.0.0.1', resolve));
    const { port } = legacyOnly.address() as { port: number };
    const fanout = new McpPeerFanout(
      [{ name: 'py', url: `http://127.0.0.1:${port}/mcp`, token_env: 'BOURDON_PEER_TOKEN' }],
      {},
    );
    try {
      const [answer] = await fanout.call('list_agents', {});
      expect(answer).toMatchObject({ peer: 'py', ok: true, payload: { agents: ['hermes'] } });
    } finally {
      await fanout.close();
      await new Promise<void>((resolve) => legacyOnly.close(() => resolve()));
    }
  });

  it("a remote caller capped at team never gets a loopback peer's private rows through this server", async () => {
    // F: a peer on this machine that trusts A fully (loopback, operator token): it would hand
    // A private rows if A asked for them.
    const libF = libraryOf({
      hermes: 'known_entities:\n  - {name: Vault Plan, visibility: private}\n  - {name: Open Plan}\n',
    });
    const f = await runHttpServer(
      () => createMcpServer(new LibraryStore(libF, { warn: silent }), { warn: silent, auditPath: null }),
      {
        port: 0,
        legacyToken: 'token-f',
        warn: silent,
      },
    );
    handles.push(f);
    const fanout = new McpPeerFanout([{ name: 'f', url: f.url, token_env: 'BOURDON_PEER_F' }], {
      BOURDON_PEER_F: 'token-f',
    });
    fanouts.push(fanout);
    // A2 serves callers from another machine (capped at team), and federates with F.
    const a2 = await runHttpServer(
      () => createMcpServer(new LibraryStore(libA, { warn: silent }), { warn: silent, auditPath: null, peers: fanout }),
      {
        port: 0,
        legacyToken: TOKEN_A,
        warn: silent,
        isRemote: () => true,
      },
    );
    handles.push(a2);
    const client = new Client({ name: 'remote', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(a2.url), {
        requestInit: { headers: { Authorization: `Bearer ${TOKEN_A}` } },
      }),
    );
    try {
      for (const args of [{ access_level: 'private' }, { include_private: true }]) {
        const vault = await client.callTool({ name: 'find_entity', arguments: { name: 'vault plan', ...args } });
        expect(JSON.parse(firstText(vault)).matches).toEqual([]);
      }
      const open = await client.callTool({ name: 'find_entity', arguments: { name: 'open plan' } });
      expect(JSON.parse(firstText(open)).matches[0].agents).toEqual(['peer:f:hermes']);
    } finally {
      await client.close();
    }
  });

  it('a peer whose token is wrong contributes nothing; the query still answers locally', async () => {
    const wrong = new McpPeerFanout([{ name: 'b', url: at(handles, 0).url, token_env: 'BOURDON_PEER_WRONG' }], {
      BOURDON_PEER_WRONG: 'nope',
    });
    try {
      const answer = at(await wrong.call('list_agents', {}), 0, 'an answer');
      expect(answer.ok).toBe(false);
      expect(answer.error ?? '').not.toContain('nope');
    } finally {
      await wrong.close();
    }
  });
});

describe('a federated export takes no future dates from a peer', () => {
  it('clears dates after tomorrow and drops activity dated after it; real dates and the rest stay', () => {
    const now = new Date();
    const today = localDay(now);
    const answer = {
      peer: 'laptop',
      ok: true,
      latency_us: 1,
      timed_out: false,
      payload: {
        agents: [
          {
            id: 'codex',
            last_updated: '2099-01-01T00:00:00+00:00',
            freshest_session_date: '2099-01-01',
            recent_activity: [
              { date: '2099-01-01', project_focus: ['Pinned'], key_actions: [], visibility: 'public' },
              { date: today, project_focus: ['Real'], key_actions: [], visibility: 'public' },
            ],
            role_narrative: 'kept',
          },
          { id: 'cursor', last_updated: `${today}T08:00:00+00:00`, freshest_session_date: today, recent_activity: [] },
        ],
      },
    };
    const merged = mergeExports({ machine: 'here', agents: [] }, [answer], now);
    const [codex, cursor] = merged.agents as Record<string, unknown>[];
    expect(codex).toMatchObject({ id: 'peer:laptop:codex', last_updated: null, freshest_session_date: null });
    expect(codex!.role_narrative).toBe('kept');
    expect((codex!.recent_activity as { date: string }[]).map((item) => item.date)).toEqual([today]);
    expect(cursor).toMatchObject({ last_updated: `${today}T08:00:00+00:00`, freshest_session_date: today });
  });
});
