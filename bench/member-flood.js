#!/usr/bin/env node
// Another member's latency while one member floods the server (not part of npm test).
//
// Starts the real `bourdon serve --transport http` on 127.0.0.1 over a generated library
// (20 agents x 200 entities x 300 sessions x 20 notes) with two members: `flooder` keeps
// --concurrency (default 100) `list_recent_work` calls in flight for --seconds (default 10),
// each re-sent as soon as it is answered (or refused); meanwhile `other` calls `find_entity`
// one after another, on its own connection pool. Reports other's p50/p99/max and what the flood got
// (answered, 429 with Retry-After, failed). Raw JSON-RPC POSTs over node:http (the server is
// stateless).
// Run `npm run build` first. Flags: --concurrency <n>  --seconds <s>  --tier trusted|quarantined  --json
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { flagReader, ROOT, startHttpServer } from './lib.js';

const args = process.argv.slice(2);
const flag = flagReader(args);
const concurrency = Number(flag('--concurrency', 100));
const seconds = Number(flag('--seconds', 10));
const tier = flag('--tier', 'quarantined');
const asJson = args.includes('--json');
const { FederationRegistry } = await import(path.join(ROOT, 'dist', 'core', 'trust', 'registry.js'));

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bourdon-flood-bench-'));
const library = path.join(root, 'library');
const home = path.join(root, 'home');
fs.mkdirSync(home, { mode: 0o700 });
execFileSync(process.execPath, [path.join(ROOT, 'bench', 'generate.js'), library, '20', '200', '300', '20']);
const registry = new FederationRegistry(path.join(home, 'federation.yaml'));
const agents = fs.readdirSync(path.join(library, 'agents')).map((file) => file.replace(/\.l5\.yaml$/, ''));
const flooder = registry.add('flooder', { tier, grants: tier === 'quarantined' ? agents : [] }).token;
const other = registry.add('other', { tier: 'trusted' }).token;
const { child, url } = await startHttpServer(library, {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  BOURDON_HOME: home,
});

// Each member has its own connection pool (as two machines would), so the flood never queues
// the other member's calls inside this process: only the server can make it wait.
const pools = {
  flooder: new http.Agent({ keepAlive: true, maxSockets: Infinity }),
  other: new http.Agent({ keepAlive: true, maxSockets: 1 }),
};
let id = 0;
function call(token, name, argumentsObject, pool) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: ++id,
    method: 'tools/call',
    params: { name, arguments: argumentsObject },
  });
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        agent: pool,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode, retryAfter: res.headers['retry-after'] ?? null }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];

const flood = { answered: 0, refused429: 0, failed: 0, retryAfter: new Set() };
let done = false;
let floodOn = false;
const floodArgs = { since: '2020-01-01', include_private: false, limit: 100 };
const flooders = Array.from({ length: concurrency }, async () => {
  while (!floodOn && !done) await new Promise((resolve) => setTimeout(resolve, 20));
  while (!done) {
    try {
      const result = await call(flooder, 'list_recent_work', floodArgs, pools.flooder);
      if (result.status === 200) flood.answered++;
      else if (result.status === 429) {
        flood.refused429++;
        flood.retryAfter.add(result.retryAfter);
        // A client that honours Retry-After would wait; this one only yields, to keep the pressure on.
        await new Promise((resolve) => setTimeout(resolve, 10));
      } else flood.failed++;
    } catch {
      flood.failed++;
    }
  }
});

/** other's find_entity calls, one after another, for `ms`. */
async function probe(ms) {
  const out = [];
  const until = performance.now() + ms;
  while (performance.now() < until) {
    const started = performance.now();
    const result = await call(other, 'find_entity', { name: 'sync engine' }, pools.other);
    out.push({ ms: performance.now() - started, status: result.status });
  }
  return out;
}

const idle = [];
const latencies = [];
try {
  await call(other, 'find_entity', { name: 'sync engine' }, pools.other); // warm-up
  idle.push(...(await probe(2_000))); // no flood yet: the floor on this machine now
  floodOn = true;
  latencies.push(...(await probe(seconds * 1000)));
} finally {
  done = true;
  await Promise.all(flooders);
  child.kill('SIGTERM');
  pools.flooder.destroy();
  pools.other.destroy();
  fs.rmSync(root, { recursive: true, force: true });
}

const sorted = latencies.map((l) => l.ms).sort((a, b) => a - b);
const idleSorted = idle.map((l) => l.ms).sort((a, b) => a - b);
const row = {
  idle_p50_ms: Number(percentile(idleSorted, 50).toFixed(1)),
  idle_p99_ms: Number(percentile(idleSorted, 99).toFixed(1)),
  flood: `${concurrency} concurrent list_recent_work from a ${tier} member, ${seconds} s`,
  other_calls: latencies.length,
  other_not_200: latencies.filter((l) => l.status !== 200).length,
  other_p50_ms: Number(percentile(sorted, 50).toFixed(1)),
  other_p99_ms: Number(percentile(sorted, 99).toFixed(1)),
  other_max_ms: Number(sorted.at(-1).toFixed(1)),
  flood_answered: flood.answered,
  flood_429: flood.refused429,
  flood_failed: flood.failed,
  retry_after: [...flood.retryAfter].filter(Boolean).join(','),
};
if (asJson)
  console.log(JSON.stringify({ node: process.version, cpus: os.cpus().length, load: os.loadavg(), row }, null, 2));
else {
  console.log(
    `node ${process.version}, ${os.cpus().length} CPUs, load average ${os
      .loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    '| flood | other, idle: p50 / p99 | other: calls | other: p50 | other: p99 | other: max | flood answered | flood 429 | flood failed |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  console.log(
    `| ${row.flood} | ${row.idle_p50_ms} / ${row.idle_p99_ms} ms | ${row.other_calls} (${row.other_not_200} not 200) | ${row.other_p50_ms} ms | ${row.other_p99_ms} ms | ${row.other_max_ms} ms | ${row.flood_answered} | ${row.flood_429} | ${row.flood_failed} |`,
  );
}
