#!/usr/bin/env node
// Bounded load test of the HTTP transport (npm run bench:http; not part of npm test).
//
// Starts the real `bourdon serve --transport http` on 127.0.0.1 (loopback only, a free port),
// with a member token, over the 50-agent benchmark library (bench/generate.js), then drives
// `find_entity` with autocannon for a fixed time in each protocol era:
//   - 2026-07-28: one POST, one JSON answer (the stateless binding);
//   - handshake era (2025-11-25): a stateless tools/call POST answered over SSE.
// Each era gets an unrecorded 3 s warm-up first.
// It checks one answer of each kind first, and fails (exit 1) on any error, timeout or non-2xx.
//
// Flags: --duration <s> (default 10)  --connections <n> (default 10)  --quick (3 s, 10 agents)
//        --library <dir> (default: the generated 50-agent library in .bench-data/)  --json
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { generateLibrary } from './generate.js';
import { flagReader, ROOT, startHttpServer } from './lib.js';

const args = process.argv.slice(2);
const flag = flagReader(args);
const quick = args.includes('--quick');
const asJson = args.includes('--json');
const duration = Number(flag('--duration', quick ? 3 : 10));
const connections = Number(flag('--connections', 10));
const agents = quick ? 10 : 50;
const QUERY = { name: 'Project sync 0', access_level: 'team' };

const { FederationRegistry } = await import(path.join(ROOT, 'dist', 'core', 'trust', 'registry.js'));

function log(line) {
  if (!asJson) process.stdout.write(`${line}\n`);
}

function libraryDir() {
  const given = flag('--library', null);
  if (given) return path.resolve(given);
  const dir = path.join(ROOT, '.bench-data', `http-library-${agents}`);
  if (!fs.existsSync(path.join(dir, 'agents'))) generateLibrary(dir, { agents });
  return dir;
}

function startServer(library, home) {
  return startHttpServer(library, { PATH: process.env.PATH, HOME: home, BOURDON_HOME: home, NO_COLOR: '1' });
}

function requests(token) {
  const common = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${token}`,
  };
  const modern = {
    headers: { ...common, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'find_entity' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'find_entity',
        arguments: QUERY,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  };
  const legacy = {
    headers: common,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'find_entity', arguments: QUERY },
    }),
  };
  return { modern, legacy };
}

/** One request of a kind, answered correctly, before the load (a fast wrong answer is no result). */
async function check(url, request) {
  const response = await fetch(url, { method: 'POST', headers: request.headers, body: request.body });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`check failed: HTTP ${response.status}: ${text.slice(0, 200)}`);
  const json = text.trim().startsWith('{')
    ? text
    : text
        .split('\n')
        .find((line) => line.startsWith('data:'))
        .slice(5);
  const payload = JSON.parse(JSON.parse(json).result.content[0].text);
  if (!Array.isArray(payload.matches) || payload.matches.length === 0)
    throw new Error(`check failed: no matches in ${text.slice(0, 200)}`);
  return payload.matches[0].agents.length;
}

function load(url, request, seconds = duration) {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        method: 'POST',
        headers: request.headers,
        body: request.body,
        connections,
        duration: seconds,
        timeout: 10,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    autocannon.track(instance, {
      renderProgressBar: false,
      renderResultsTable: false,
      renderLatencyTable: false,
      outputStream: process.stderr,
    });
  });
}

const library = libraryDir();
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'bourdon-bench-http-'));
const token = new FederationRegistry(path.join(home, 'federation.yaml')).add('bench', { tier: 'trusted' }).token;
const server = await startServer(library, home);
const results = [];
let failed = false;
try {
  const { modern, legacy } = requests(token);
  const agentsMatched = await check(server.url, modern);
  await check(server.url, legacy);
  log(`server: ${server.startup}`);
  log(
    `library: ${library} (${fs.readdirSync(path.join(library, 'agents')).length} manifests); find_entity ${JSON.stringify(QUERY)} matches in ${agentsMatched} agents`,
  );
  log(
    `load: autocannon, ${connections} connections, ${duration} s per era after a 3 s warm-up, loopback; node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}; load average before ${os.loadavg()[0].toFixed(2)}`,
  );
  for (const [era, request] of [
    ['2026-07-28 (one POST, JSON answer)', modern],
    ['2025-11-25 handshake era (stateless POST, SSE answer)', legacy],
  ]) {
    await load(server.url, request, 3); // warm-up, not recorded (JIT, caches, sockets)
    const result = await load(server.url, request);
    const row = {
      era,
      requests: result.requests.total,
      req_per_s: Math.round(result.requests.average),
      p50_ms: result.latency.p50,
      p99_ms: result.latency.p99,
      max_ms: result.latency.max,
      errors: result.errors,
      timeouts: result.timeouts,
      non_2xx: result.non2xx,
    };
    results.push(row);
    if (row.errors || row.timeouts || row.non_2xx) failed = true;
  }
} finally {
  // Wait for the server to exit (it may still be appending audit lines) before cleaning up.
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
  fs.rmSync(home, { recursive: true, force: true, maxRetries: 3 });
}

log(`load average after: ${os.loadavg()[0].toFixed(2)}`);
if (asJson) {
  process.stdout.write(JSON.stringify({ duration_s: duration, connections, results }, null, 2) + '\n');
} else {
  log('');
  log('| era | requests | req/s | p50 | p99 | max | errors | timeouts | non-2xx |');
  log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    log(
      `| ${r.era} | ${r.requests} | ${r.req_per_s} | ${r.p50_ms} ms | ${r.p99_ms} ms | ${r.max_ms} ms | ${r.errors} | ${r.timeouts} | ${r.non_2xx} |`,
    );
  }
}
if (failed) {
  process.stderr.write('bench:http: errors, timeouts or non-2xx answers under load\n');
  process.exit(1);
}
