#!/usr/bin/env node
// Another caller's latency while a hostile member or peer attacks (not part of npm test).
//
// Starts the real `bourdon serve --transport http` on 127.0.0.1 with three members (alice and
// bob trusted, mallory quarantined) and one peer, a hostile fake MCP server in this process.
// For each attack, bob calls `list_agents` (federation_hop 1: local only) in a loop on his own
// connection while the attack runs, and the script reports his median and slowest call:
//   - idle: no attack (the floor);
//   - commit, attack run: mallory's 2 same-name entities x 40,000 tags (refused by the caps);
//   - commit, worst allowed: 2,000 entities and 20,000 tags, merged into a staged file at the caps;
//   - peer, attack run: alice's find_entity while the peer answers one match of 30,000 agents/tags;
//   - peer, worst allowed: 60 matches x 1,000 agents and tags (~1.4 MB, under the 2 MiB cap);
//   - peer, 60 MB: an answer streamed without Content-Length (cut off at 2 MiB).
// Each attack runs --rounds times (default 5); the table gives the worst round's slowest call.
// Run `npm run build` first. Flags: --rounds <n>  --json
/* global Headers, Request -- Node 20 has both (the Fetch API) */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { findEntityAnswer, ids, wideMatchAnswer, worstAllowedAnswer } from '../test/helpers/hostile-matches.mjs';
import { flagReader, ROOT, startHttpServer } from './lib.js';

const args = process.argv.slice(2);
const flag = flagReader(args);
const rounds = Number(flag('--rounds', 5));
const asJson = args.includes('--json');
const { FederationRegistry } = await import(path.join(ROOT, 'dist', 'core', 'trust', 'registry.js'));

const text = (payload) => ({ content: [{ type: 'text', text: JSON.stringify(payload) }] });

const peerState = { mode: 'idle' };
function hostileServer() {
  const server = new McpServer({ name: 'hostile-peer', version: '1' });
  const any = { inputSchema: z.object({}).passthrough() };
  server.registerTool('find_entity', any, async () => {
    if (peerState.mode === 'wide-match') return text(wideMatchAnswer());
    if (peerState.mode === 'worst-allowed') return text(worstAllowedAnswer());
    return text(findEntityAnswer([]));
  });
  server.registerTool('list_agents', any, async () => text({ agents: [] }));
  return server;
}

const fake = http.createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const body = Buffer.concat(chunks);
  if (peerState.mode === 'huge' && body.includes('"tools/call"')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(
      `{"jsonrpc":"2.0","id":${JSON.stringify(JSON.parse(body.toString()).id)},"result":{"content":[{"type":"text","text":"`,
    );
    const block = Buffer.alloc(64 * 1024, 'x');
    let open = true;
    res.on('close', () => (open = false));
    for (let sent = 0; open && sent < 60 * 1024 * 1024; sent += block.length) {
      if (!res.write(block) && open)
        await new Promise((resolve) => {
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
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await hostileServer().connect(transport);
  const response = await transport.handleRequest(
    new Request(`http://127.0.0.1${req.url}`, {
      method: req.method,
      headers,
      body: req.method === 'POST' ? body : undefined,
    }),
  );
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
});
await new Promise((resolve) => fake.listen(0, '127.0.0.1', resolve));
const peerUrl = `http://127.0.0.1:${fake.address().port}/mcp`;

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bourdon-attack-bench-'));
const library = path.join(root, 'library');
const home = path.join(root, 'home');
fs.mkdirSync(path.join(library, 'agents'), { recursive: true });
fs.mkdirSync(home, { mode: 0o700 });
fs.writeFileSync(
  path.join(library, 'agents', 'codex.l5.yaml'),
  "spec_version: '0.1'\nagent: {id: codex, type: code-assistant}\nknown_entities:\n  - {name: Bourdon, type: project}\n",
);
const registry = new FederationRegistry(path.join(home, 'federation.yaml'));
const tokens = {
  alice: registry.add('alice', { tier: 'trusted' }).token,
  bob: registry.add('bob', { tier: 'trusted' }).token,
  mallory: registry.add('mallory', { tier: 'quarantined', grants: ['mallory'] }).token,
};
const peersFile = path.join(home, 'peers.yaml');
fs.writeFileSync(peersFile, `peers:\n  - {name: evil, url: "${peerUrl}", token_env: BOURDON_PEER_EVIL}\n`);

const { child, url } = await startHttpServer(
  library,
  { PATH: process.env.PATH, HOME: process.env.HOME, BOURDON_HOME: home, BOURDON_PEER_EVIL: 'unused' },
  ['--peers-config', peersFile],
);

async function connect(token) {
  const client = new Client({ name: 'attack-bench', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );
  return client;
}
const call = async (client, name, args) =>
  JSON.parse((await client.callTool({ name, arguments: args })).content[0].text);
const [alice, bob, mallory] = await Promise.all([connect(tokens.alice), connect(tokens.bob), connect(tokens.mallory)]);

/** bob's latencies while `attack` runs (one round). */
async function measure(attack) {
  const latencies = [];
  let done = false;
  const probing = (async () => {
    while (!done) {
      const started = performance.now();
      await call(bob, 'list_agents', { federation_hop: 1 });
      latencies.push(performance.now() - started);
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 50));
  const started = performance.now();
  const outcome = await attack();
  const attackMs = performance.now() - started;
  done = true;
  await probing;
  latencies.sort((a, b) => a - b);
  return {
    outcome,
    attackMs,
    median: latencies[Math.floor(latencies.length / 2)],
    slowest: latencies.at(-1),
    calls: latencies.length,
  };
}

const worstCommit = {
  agent_id: 'mallory',
  agent_type: 'other',
  entities: Array.from({ length: 2_000 }, (_, i) => ({ name: `entity-${i}`, tags: ids(`t${i}-`, 10) })),
};
const scenarios = [
  ['idle (no attack)', () => new Promise((resolve) => setTimeout(() => resolve({ ok: true }), 500))],
  [
    'commit, attack run (2 x 40,000 tags)',
    () =>
      call(mallory, 'commit_to_federation', {
        agent_id: 'mallory',
        agent_type: 'other',
        entities: [
          { name: 'x', tags: ids('t', 40_000) },
          { name: 'X', tags: ids('u', 40_000) },
        ],
      }),
  ],
  ['commit, worst allowed (2,000 rows, 20,000 tags)', () => call(mallory, 'commit_to_federation', worstCommit)],
  [
    'peer, attack run (1 match x 30,000 agents/tags)',
    () => ((peerState.mode = 'wide-match'), call(alice, 'find_entity', { name: 'bourdon' })),
  ],
  [
    'peer, worst allowed (60 x 1,000 agents and tags)',
    () => ((peerState.mode = 'worst-allowed'), call(alice, 'find_entity', { name: 'bourdon' })),
  ],
  ['peer, 60 MB answer', () => ((peerState.mode = 'huge'), call(alice, 'find_entity', { name: 'bourdon' }))],
];

const rows = [];
try {
  await measure(() => call(alice, 'find_entity', { name: 'bourdon' })); // warm-up
  for (const [label, attack] of scenarios) {
    const runs = [];
    for (let round = 0; round < rounds; round++) runs.push(await measure(attack));
    const worst = runs.reduce((a, b) => (b.slowest > a.slowest ? b : a));
    const outcome = worst.outcome;
    rows.push({
      attack: label,
      rounds,
      attack_ms_median: Math.round(runs.map((run) => run.attackMs).sort((a, b) => a - b)[Math.floor(rounds / 2)]),
      caller_median_ms: Number(worst.median.toFixed(1)),
      caller_slowest_ms: Number(worst.slowest.toFixed(1)),
      caller_calls: worst.calls,
      outcome:
        typeof outcome.error === 'string'
          ? `refused: ${outcome.error}`
          : outcome.staged
            ? 'staged'
            : outcome.peers_unreachable
              ? `peer ignored: ${outcome.peers_unreachable[0].error}`
              : outcome.matches
                ? `merged: ${outcome.matches[0]?.agents.length ?? 0} agents`
                : 'ok',
    });
  }
} finally {
  await Promise.all([alice, bob, mallory].map((client) => client.close().catch(() => {})));
  child.kill('SIGTERM');
  fake.closeAllConnections();
  fake.close();
  fs.rmSync(root, { recursive: true, force: true });
}

if (asJson)
  console.log(JSON.stringify({ node: process.version, cpus: os.cpus().length, load: os.loadavg(), rows }, null, 2));
else {
  console.log(
    `node ${process.version}, ${os.cpus().length} CPUs, load average ${os
      .loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
  console.log('| attack | attack call (median) | other caller: median | other caller: slowest | outcome |');
  console.log('|---|---:|---:|---:|---|');
  for (const row of rows)
    console.log(
      `| ${row.attack} | ${row.attack_ms_median} ms | ${row.caller_median_ms} ms | ${row.caller_slowest_ms} ms | ${row.outcome} |`,
    );
}
