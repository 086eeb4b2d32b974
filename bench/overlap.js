#!/usr/bin/env node
// Reads during writes (run after a build): the real HTTP server on the 10-agent library at the
// schema maxima (1,000 entities, 500 sessions, 50 notes each, ~315 KB a manifest), 8 readers
// (autocannon, find_entity) for --duration seconds, first alone, then with one client
// committing a new entity to agent-000 back to back the whole time. Reports read throughput
// and latency of both, and their ratios (goal: ≥ 70 % of the throughput, p99 ≤ 2×).
// BOURDON_WRITE_ON_LOOP=1 in the environment runs the server with each commit's work on the
// event loop, as before the write thread, for comparison (--on-loop does that).
// Each reader connection and the writer are members of their own (trusted tier), as separate
// hosts would be, each taken in turn by the admission queue. Any non-2xx, timeout or failed commit
// is reported and fails the run (exit code 1).
// The two phases alternate over --rounds rounds (default 3) and the median round's ratios are
// the result: one read-only window against one later writer window would measure the machine's
// drift between them as much as the writer.
// Flags: --duration <s> (default 10), --rounds <n> (default 3), --connections <n> (default 8),
// --on-loop, --json.
import os from 'node:os';
import autocannon from 'autocannon';
import { flagReader, scratchLibrary, startHttpServer } from './lib.js';

const args = process.argv.slice(2);
const flag = flagReader(args);
const duration = Number(flag('--duration', 10));
const connections = Number(flag('--connections', 8));
const rounds = Number(flag('--rounds', 3));
const onLoop = args.includes('--on-loop');
const asJson = args.includes('--json');
const log = (line) => asJson || process.stdout.write(`${line}\n`);

const { library, home, registry, remove } = await scratchLibrary(10, 'bourdon-bench-overlap-');
const readerTokens = Array.from(
  { length: connections },
  (_, index) => registry.add(`reader-${index}`, { tier: 'trusted' }).token,
);
const writerToken = registry.add('writer', { tier: 'trusted' }).token;

function call(name, argumentsObject, token) {
  return {
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name,
        arguments: argumentsObject,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  };
}

const readArguments = { name: 'Project sync 0', access_level: 'team' };
const reads = readerTokens.map((token) => call('find_entity', readArguments, token));
function readers(url, seconds) {
  let next = 0;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        method: 'POST',
        headers: reads[0].headers,
        body: reads[0].body,
        connections,
        duration: seconds,
        timeout: 20,
        // One member per connection: autocannon builds each connection's client once.
        setupClient: (client) => client.setHeaders(reads[next++ % reads.length].headers),
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

let entitiesWritten = 0; // across rounds: every commit adds a new entity, so none is a no-op merge
async function writer(url, stop) {
  let commits = 0;
  let failures = 0;
  const times = [];
  while (!stop.done) {
    const request = call(
      'commit_to_federation',
      {
        agent_id: 'agent-000',
        entities: [
          { name: `Overlap ${process.pid} ${entitiesWritten++}`, type: 'concept', summary: 'a row written under load' },
        ],
      },
      writerToken,
    );
    const started = performance.now();
    const response = await fetch(url, { method: 'POST', headers: request.headers, body: request.body });
    const text = await response.text();
    times.push(performance.now() - started);
    if (response.status !== 200 || !text.includes('"version') || text.includes('\\"error\\": \\"')) failures += 1;
    commits += 1;
  }
  return { commits, failures, times };
}

const env = { PATH: process.env.PATH, HOME: home, BOURDON_HOME: home, NO_COLOR: '1' };
if (onLoop) env.BOURDON_WRITE_ON_LOOP = '1';
const server = await startHttpServer(library, env);
/** Status codes other than 2xx, by code (e.g. {"429": 12}). */
const refusedCodes = (result) =>
  Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {})
      .filter(([code]) => !code.startsWith('2'))
      .map(([code, stats]) => [code, stats.count]),
  );
const summary = (result) => ({
  req_per_s: Math.round(result.requests.average),
  p50_ms: result.latency.p50,
  p99_ms: result.latency.p99,
  non_2xx: result.non2xx,
  non_2xx_codes: refusedCodes(result),
  errors: result.errors + result.timeouts,
});
/** One read before the runs: a wrong token or a tool error would otherwise be measured as speed. */
async function checkRead(url) {
  const response = await fetch(url, { method: 'POST', headers: reads[0].headers, body: reads[0].body });
  const text = await response.text();
  if (response.status !== 200 || !text.includes('Project sync 0') || text.includes('"isError":true')) {
    throw new Error(`a find_entity read failed (${response.status}): ${text.slice(0, 300)}`);
  }
}
try {
  await checkRead(server.url);
  await readers(server.url, 3); // warm-up
  const results = [];
  for (let round = 0; round < rounds; round++) {
    const alone = summary(await readers(server.url, duration));
    const stop = { done: false };
    const writing = writer(server.url, stop);
    const during = summary(await readers(server.url, duration));
    stop.done = true;
    const written = await writing;
    written.times.sort((a, b) => a - b);
    results.push({
      read_only: alone,
      with_writer: during,
      throughput_ratio: during.req_per_s / alone.req_per_s,
      p99_ratio: during.p99_ms / alone.p99_ms,
      commits: written.commits,
      commit_failures: written.failures,
      commit_p50_ms: Math.round(written.times[Math.floor(written.times.length / 2)] ?? 0),
    });
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const result = {
    write_path: onLoop ? 'event loop' : 'write thread',
    connections,
    duration_s: duration,
    rounds: results,
    throughput_ratio: median(results.map((r) => r.throughput_ratio)),
    p99_ratio: median(results.map((r) => r.p99_ratio)),
    load_average: os.loadavg()[0],
  };
  if (asJson) process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  for (const [index, r] of results.entries()) {
    const { read_only: alone, with_writer: during } = r;
    log(
      `  round ${index + 1}: read-only ${alone.req_per_s} req/s p50 ${alone.p50_ms} ms p99 ${alone.p99_ms} ms; ` +
        `with a writer ${during.req_per_s} req/s p50 ${during.p50_ms} ms p99 ${during.p99_ms} ms → throughput ${(r.throughput_ratio * 100).toFixed(0)} %, p99 ${r.p99_ratio.toFixed(2)}×; ` +
        `${r.commits} commits (${r.commit_failures} failed, p50 ${r.commit_p50_ms} ms); non-2xx ${alone.non_2xx}/${during.non_2xx}, errors ${alone.errors}/${during.errors}`,
    );
  }
  log(
    `overlap (commits on the ${result.write_path}), ${connections} readers, ${rounds} × ${duration} s each way: ` +
      `median throughput ${(result.throughput_ratio * 100).toFixed(0)} %, median p99 ${result.p99_ratio.toFixed(2)}× (goal ≥ 70 %, ≤ 2×); load ${result.load_average.toFixed(1)}`,
  );
  const bad = results.reduce(
    (sum, r) =>
      sum + r.read_only.non_2xx + r.with_writer.non_2xx + r.read_only.errors + r.with_writer.errors + r.commit_failures,
    0,
  );
  if (bad) {
    const codes = results.map((r) => [r.read_only.non_2xx_codes, r.with_writer.non_2xx_codes]);
    process.stderr.write(
      `overlap: INVALID RUN: ${bad} non-2xx, errors, timeouts or failed commits (non-2xx by round: ${JSON.stringify(codes)})\n`,
    );
    process.exitCode = 1;
  }
} finally {
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
  remove();
}
