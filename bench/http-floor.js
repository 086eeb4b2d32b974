#!/usr/bin/env node
// HTTP overhead and fairness (run after a build). Server CPU per HTTP tools/call (utime + stime
// of the server process from /proc/<pid>/stat, over a fixed load) for:
//   - the SDK's floor: bench/echo-server.js, 15 echo tools, the same handler and transport;
//   - bourdon serve --transport http on the smallest library (the conformance fixture), calling
//     find_entity (auth, guards and the audit line included, as in production);
// then bourdon under 64 clients for --duration seconds: p50, p99 and their ratio.
// Every connection is its own member (its own bearer token), as 64 MCP clients on as many
// machines would be, each taken in turn by the admission queue (src/mcp/http/admission.ts);
// 64 connections of one token would run 8 at a time (one member's bound). The floor has no members;
// both CPU figures use the same 4 autocannon connections (one member each for bourdon).
// The 64 clients are node:http keep-alive connections, one per member, each connected and
// answered once before the clock starts, then calling one after another: autocannon opens
// its connections as it starts, and on a saturated machine a few of them were accepted
// seconds late, a connection-setup tail that no queueing in the server can change.
// Flags: --duration <s> (default 10), --rounds <n> (default 3), --connections <n> (default 64), --json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import {
  crowd,
  flagReader,
  mcpCallBody as body,
  mcpCallHeaders as headers,
  ROOT,
  startEchoServer,
  startHttpServer,
} from './lib.js';

const flag = flagReader();
const duration = Number(flag('--duration', 10));
const crowdSize = Number(flag('--connections', 64));
const roundCount = Number(flag('--rounds', 3));
const CPU_CONNECTIONS = 4;
const asJson = process.argv.includes('--json');
const { FederationRegistry } = await import(path.join(ROOT, 'dist', 'core', 'trust', 'registry.js'));
const TICK_MS = 1000 / 100; // USER_HZ is 100 on Linux

const cpuMs = (pid) => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
};

/** `connections` connections; connection i sends tokens[i] (none when `tokens` is empty). */
function run(url, name, args, tokens, connections, seconds) {
  let next = 0;
  return new Promise((resolve, reject) =>
    autocannon(
      {
        url,
        method: 'POST',
        headers: headers(name, null),
        body: body(name, args),
        connections,
        duration: seconds,
        setupClient: (client) => {
          const token = tokens[next++ % Math.max(1, tokens.length)];
          if (token) client.setHeaders(headers(name, token));
        },
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    ),
  );
}

async function cpuPerRequest(pid, url, name, args, tokens) {
  await run(url, name, args, tokens, CPU_CONNECTIONS, 2); // warm-up
  const before = cpuMs(pid);
  const result = await run(url, name, args, tokens, CPU_CONNECTIONS, duration);
  const used = cpuMs(pid) - before;
  if (result.errors || result.non2xx) throw new Error(`${name}: ${result.errors} errors, ${result.non2xx} non-2xx`);
  return { cpu_ms: used / result.requests.total, requests: result.requests.total };
}

const { child: echo, url: echoUrl } = await startEchoServer();
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'bourdon-bench-floor-'));
const registry = new FederationRegistry(path.join(home, 'federation.yaml'));
const tokens = Array.from(
  { length: Math.max(crowdSize, CPU_CONNECTIONS) },
  (_, i) => registry.add(`bench-${i}`, { tier: 'trusted' }).token,
);
const library = path.join(ROOT, 'test', 'fixtures', 'conformance', 'library');
const ours = await startHttpServer(library, { PATH: process.env.PATH, HOME: home, BOURDON_HOME: home, NO_COLOR: '1' });
try {
  // Floor and bourdon alternate, so a change in the machine's load touches both alike; each
  // round's ratio is taken within the round and the median round reported.
  const rounds = [];
  for (let round = 0; round < roundCount; round++) {
    const floor = await cpuPerRequest(echo.pid, echoUrl, 'echo_0', { text: 'Bourdon' }, []);
    const find = await cpuPerRequest(ours.child.pid, ours.url, 'find_entity', { name: 'Bourdon' }, tokens);
    rounds.push({ floor_cpu_ms: floor.cpu_ms, find_entity_cpu_ms: find.cpu_ms, ratio: find.cpu_ms / floor.cpu_ms });
  }
  const { floor_cpu_ms: floorMs, find_entity_cpu_ms: findMs } = [...rounds].sort((a, b) => a.ratio - b.ratio)[
    Math.floor(rounds.length / 2)
  ];
  const floor = { cpu_ms: floorMs };
  const find = { cpu_ms: findMs };
  const many = await crowd(ours.url, 'find_entity', { name: 'Bourdon' }, tokens.slice(0, crowdSize), duration);
  const result = {
    floor_cpu_ms: floor.cpu_ms,
    find_entity_cpu_ms: find.cpu_ms,
    ratio: find.cpu_ms / floor.cpu_ms,
    rounds,
    connections: crowdSize,
    crowd: {
      requests: many.requests,
      p50_ms: many.p50,
      p99_ms: many.p99,
      max_ms: many.max,
      calls_per_client: many.per_client,
      ratio: many.p99 / many.p50,
    },
    crowd_errors: many.failed,
    load_average: os.loadavg()[0],
  };
  if (asJson) process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  else
    process.stdout.write(
      `HTTP: SDK echo floor ${floor.cpu_ms.toFixed(2)} ms CPU/request; bourdon find_entity (conformance library) ${find.cpu_ms.toFixed(2)} ms → ${result.ratio.toFixed(2)}× the floor (median of ${rounds.map((r) => r.ratio.toFixed(2) + '×').join(', ')}); ` +
        `${crowdSize} clients: p50 ${many.p50} ms, p99 ${many.p99} ms → p99/p50 ${result.crowd.ratio.toFixed(2)}×, ${many.per_client.min}–${many.per_client.max} calls per client (errors ${result.crowd_errors}); load ${result.load_average.toFixed(1)}\n`,
    );
} finally {
  echo.kill('SIGTERM');
  const exited = new Promise((resolve) => ours.child.once('exit', resolve));
  ours.child.kill('SIGTERM');
  await exited;
  fs.rmSync(home, { recursive: true, force: true });
}
