#!/usr/bin/env node
// What parsing a peer's answer through the answer model costs, against the federated call it
// belongs to (issue 42: at most 10%). A real Bourdon HTTP server on loopback serves a
// generated library as the peer; the peer client calls each tool this server asks peers
// (the call includes the parse), and the parse alone is timed on the same answers.
// Usage: npm run build && node bench/peer-answers.js [agents=50] [rounds=40]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateLibrary } from './generate.js';
import { ROOT } from './lib.js';

const agents = Number(process.argv[2] ?? 50);
const rounds = Number(process.argv[3] ?? 40);
const dist = (file) => import(path.join(ROOT, 'dist', file));
const [{ LibraryStore }, { createMcpServer }, { runHttpServer }, { McpPeerFanout }, { readPeerAnswer }] =
  await Promise.all([
    dist('core/store/library.js'),
    dist('mcp/server.js'),
    dist('mcp/http.js'),
    dist('mcp/peer-client.js'),
    dist('core/operations/peer-answers.js'),
  ]);

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bourdon-peer-bench-'));
generateLibrary(scratch, { agents });
const store = new LibraryStore(scratch, { warn: () => {} });
const peer = await runHttpServer(() => createMcpServer(store, { warn: () => {}, auditPath: null }), {
  port: 0,
  allowUnauthenticated: true,
  warn: () => {},
});
const fanout = new McpPeerFanout([{ name: 'bench', url: peer.url, token_env: 'BOURDON_PEER_TOKEN' }], {}, 30_000);

const CALLS = [
  ['list_recent_work', { since: '2026-01-01', limit: 100 }],
  ['list_notes', { since: '2026-01-01', limit: 100 }],
  ['find_entity', { name: 'sync' }],
  ['export_agents', {}],
  ['list_agents', {}],
];
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

console.log(`library: ${agents} agents; ${rounds} rounds per tool; medians`);
console.log('tool                 answer KB   call ms   parse ms   parse/call');
try {
  for (const [tool, args] of CALLS) {
    await fanout.call(tool, args); // warm the connection and the server's indexes
    const calls = [];
    let payload = null;
    for (let i = 0; i < rounds; i++) {
      const started = process.hrtime.bigint();
      const [answer] = await fanout.call(tool, args);
      calls.push(Number(process.hrtime.bigint() - started) / 1e6);
      if (!answer.ok) throw new Error(`${tool}: ${answer.error}`);
      payload = answer.payload;
    }
    // The parse alone, on the answer as it came over the wire (parsed from its JSON text).
    const text = JSON.stringify(payload);
    const parses = [];
    for (let i = 0; i < rounds; i++) {
      const raw = JSON.parse(text);
      const started = process.hrtime.bigint();
      const read = readPeerAnswer(tool, raw);
      parses.push(Number(process.hrtime.bigint() - started) / 1e6);
      if ('error' in read) throw new Error(`${tool}: ${read.error}`);
    }
    const call = median(calls);
    const parse = median(parses);
    console.log(
      `${tool.padEnd(20)} ${(text.length / 1024).toFixed(1).padStart(9)} ${call.toFixed(2).padStart(9)} ${parse
        .toFixed(3)
        .padStart(10)} ${((100 * parse) / call).toFixed(1).padStart(11)}%`,
    );
  }
} finally {
  await fanout.close();
  await peer.close();
  fs.rmSync(scratch, { recursive: true, force: true });
}
