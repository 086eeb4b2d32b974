#!/usr/bin/env node
// Where the 64-client tail comes from (run after a build; not part of npm test). A server with
// bench/server-probe.mjs preloaded (it times each request inside the server, from its headers
// being parsed to its answer being handed to the socket, and records every GC pause), and
// --connections clients calling back to back, as bench/http-floor.js does:
//   bourdon  `bourdon serve --transport http` on the conformance library, find_entity, each
//            client its own member;
//   floor    the SDK's echo server (bench/echo-server.js: the same SDK handler and transport, 15
//            echo tools, nothing of bourdon), echo_0.
// Each in two set-ups: shared (the server and this process, the clients, on both cores, as the
// goal figure is taken) and pinned (the server on core 0, this process on core 1: taskset), so
// the load tool cannot take the server's core. The four alternate for --rounds rounds. For each:
// p50, p99 and p99/p50 seen by the clients and inside the server, and the GC pauses in the
// window. Before the measured window the same crowd calls for --warmup seconds, unmeasured, so a
// fresh server's code is compiled and optimised as a running server's is (http-floor.js's crowd
// meets a server its CPU rounds warmed). Linux only (taskset, from util-linux). Flags: --duration
// <s> (default 8), --warmup <s> (default 3), --rounds <n> (default 3), --connections <n>
// (default 64), --json.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { crowd, flagReader, ROOT, startEchoServer, startHttpServer } from './lib.js';

const flag = flagReader();
const duration = Number(flag('--duration', 8));
const warmup = Number(flag('--warmup', 3));
const rounds = Number(flag('--rounds', 3));
const connections = Number(flag('--connections', 64));
const asJson = process.argv.includes('--json');
const { FederationRegistry } = await import(path.join(ROOT, 'dist', 'core', 'trust', 'registry.js'));

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'bourdon-bench-tail-'));
const registry = new FederationRegistry(path.join(home, 'federation.yaml'));
const tokens = Array.from({ length: connections }, (_, i) => registry.add(`tail-${i}`, { tier: 'trusted' }).token);
const library = path.join(ROOT, 'test', 'fixtures', 'conformance', 'library');
const probe = path.join(ROOT, 'bench', 'server-probe.mjs');
/** This process's threads onto `cores` (taskset -a: every thread, the GC's helpers too). */
const pinSelf = (cores) => execFileSync('taskset', ['-a', '-p', '-c', cores, String(process.pid)], { stdio: 'ignore' });

const quantiles = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { p50: at(0.5), p99: at(0.99), ratio: at(0.99) / at(0.5) };
};

async function measure(server, pinned) {
  const out = path.join(home, `probe-${server}-${pinned ? 'pinned' : 'shared'}.json`);
  const allCores = `0-${os.cpus().length - 1}`;
  pinSelf(pinned ? '1' : allCores);
  const env = { PATH: process.env.PATH, HOME: home, BOURDON_HOME: home, NO_COLOR: '1', BOURDON_PROBE_OUT: out };
  const launch = { nodeArgs: ['--import', probe], wrap: ['taskset', '-c', pinned ? '0' : allCores] };
  const started =
    server === 'bourdon' ? await startHttpServer(library, env, [], launch) : await startEchoServer(env, launch);
  const [tool, args, callers] =
    server === 'bourdon'
      ? ['find_entity', { name: 'Bourdon' }, tokens]
      : ['echo_0', { text: 'Bourdon' }, tokens.map(() => null)];
  try {
    if (warmup > 0) await crowd(started.url, tool, args, callers, warmup);
    const clients = await crowd(started.url, tool, args, callers, duration, (label, send) =>
      send({ 'x-probe': label }),
    );
    const exited = new Promise((resolve) => started.child.once('exit', resolve));
    started.child.kill('SIGTERM');
    await exited;
    const inside = JSON.parse(fs.readFileSync(out, 'utf8'));
    const pauses = inside.gc.map(([, ms]) => ms);
    return {
      server,
      setup: pinned ? 'pinned' : 'shared',
      requests: clients.requests,
      failed: clients.failed,
      clients: { p50: clients.p50, p99: clients.p99, ratio: clients.p99 / clients.p50 },
      inside: quantiles(inside.requests.map(([, ms]) => ms)),
      gc: {
        pauses: pauses.length,
        total_ms: pauses.reduce((sum, ms) => sum + ms, 0),
        max_ms: Math.max(0, ...pauses),
        over_10ms: pauses.filter((ms) => ms > 10).length,
        // perf_hooks' kinds: 1 minor (scavenge), 4 major (mark-compact), 8 incremental, 16 weak callbacks.
        by_kind: Object.fromEntries(
          [...new Set(inside.gc.map(([, , kind]) => kind))].map((kind) => {
            const of = inside.gc.filter(([, , k]) => k === kind).map(([, ms]) => ms);
            return [
              kind,
              {
                n: of.length,
                total_ms: Math.round(of.reduce((a, b) => a + b, 0)),
                max_ms: Math.round(Math.max(...of)),
              },
            ];
          }),
        ),
      },
      load: os.loadavg()[0],
    };
  } finally {
    started.child.kill('SIGKILL');
    pinSelf(allCores);
  }
}

const results = [];
try {
  for (let round = 0; round < rounds; round++)
    for (const server of ['bourdon', 'floor'])
      for (const pinned of [false, true]) results.push(await measure(server, pinned));
} finally {
  fs.rmSync(home, { recursive: true, force: true });
}

if (asJson)
  process.stdout.write(JSON.stringify({ node: process.version, cpus: os.cpus().length, results }, null, 2) + '\n');
else {
  const f = (n) => n.toFixed(1);
  console.log(
    `node ${process.version}, ${os.cpus().length} CPUs, ${connections} clients, ${duration} s a run after ${warmup} s unmeasured`,
  );
  console.log(
    '| server | set-up | calls | clients: p50 / p99 (ratio) | inside the server: p50 / p99 (ratio) | GC pauses: n, total, max, > 10 ms | load |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|');
  for (const r of results)
    console.log(
      `| ${r.server} | ${r.setup} | ${r.requests}${r.failed ? ` (${r.failed} failed)` : ''} | ${f(r.clients.p50)} / ${f(r.clients.p99)} ms (${r.clients.ratio.toFixed(2)}×) | ${f(r.inside.p50)} / ${f(r.inside.p99)} ms (${r.inside.ratio.toFixed(2)}×) | ${r.gc.pauses}, ${f(r.gc.total_ms)} ms, ${f(r.gc.max_ms)} ms, ${r.gc.over_10ms} | ${r.load.toFixed(1)} |`,
    );
}
