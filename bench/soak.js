#!/usr/bin/env node
// Bounded soak of a real server on loopback (npm run soak -- --seconds 60).
//
// Starts the real `bourdon serve --transport http` on 127.0.0.1 (a free port) over a generated
// library, then for --seconds runs at the same time:
//   - --clients MCP SDK clients (alternately handshake era and 2026-07-28), each in a loop of
//     mixed reads (find_entity, list_recent_work, query_agent_memory, list_agents, list_notes,
//     list_workstreams, get_cross_agent_summary, prepare_recognition_context, export_agents,
//     list_memory_versions, the memory resource) and writes (commit_to_federation of a new row
//     to one of two shared agents); every few commits it reads its own write back;
//   - one quarantined member committing to its own namespace (staged writes);
//   - --cli-lanes loops of the real `bourdon commit` CLI, as separate processes, into the same
//     agents as the HTTP writers.
// It samples the server's RSS every 250 ms. Afterwards it checks, from the files on disk, that
// every acknowledged write is there (live manifests, staged file), that each agent's history is
// whole, and that the server is still answering.
//
// Exit 1 on any failed request, any lost write, or RSS growth over --max-rss-growth-mb.
// Flags: --seconds <s> (60)  --clients <n> (4)  --cli-lanes <n> (1)  --agents <n> (10)
//        --max-rss-growth-mb <mb> (64)  --json
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { generateLibrary } from './generate.js';
import { flagReader, ROOT, startHttpServer } from './lib.js';

const argv = process.argv.slice(2);
const flag = flagReader(argv);
const SECONDS = Number(flag('--seconds', 60));
const CLIENTS = Number(flag('--clients', 4));
const CLI_LANES = Number(flag('--cli-lanes', 1));
const AGENTS = Number(flag('--agents', 10));
const MAX_RSS_GROWTH_MB = Number(flag('--max-rss-growth-mb', 64));
const asJson = argv.includes('--json');
const WRITE_AGENTS = ['soak-a', 'soak-b'];

const dist = (file) => import(pathToFileURL(path.join(ROOT, 'dist', 'core', file)).href);
const { FederationRegistry } = await dist('trust/registry.js');
const { parseManifest } = await dist('store/library.js');
const { readHistory, readArchivedBytes } = await dist('writes/history.js');
const { sha256 } = await dist('writes/version-record.js');
const { libraryPaths } = await dist('store/library.js');

const log = (line) => {
  if (!asJson) process.stderr.write(`${line}\n`);
};

// ---------------------------------------------------------------------------------------------
// Setup: a library, two members, the server.

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bourdon-soak-'));
const library = path.join(work, 'library');
const home = path.join(work, 'home');
fs.mkdirSync(home, { mode: 0o700 });
generateLibrary(library, { agents: AGENTS, entities: 200, sessions: 100, notes: 20 });
const registry = new FederationRegistry(path.join(home, 'federation.yaml'), { warn: () => {} });
const trusted = registry.add('soak', { tier: 'trusted' }).token;
const quarantined = registry.add('soak-q', { tier: 'quarantined', grants: ['soak-a'] }).token;
const childEnv = { PATH: process.env.PATH, HOME: home, BOURDON_HOME: home, NO_COLOR: '1' };

function startServer() {
  return startHttpServer(library, childEnv);
}

function rssOf(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
    return Number.isFinite(kb) ? kb * 1024 : null;
  } catch {
    return null; // not Linux: no sample
  }
}

// ---------------------------------------------------------------------------------------------
// Book-keeping.

const stats = new Map(); // op -> { count, failures, latencies[] }
const failures = [];
const committed = new Map(WRITE_AGENTS.map((agent) => [agent, new Set()])); // agent -> row names acknowledged
const versionsSeen = new Map(WRITE_AGENTS.map((agent) => [agent, []]));
const staged = new Set();
let cliCommits = 0;

function record(op, ms, failure) {
  let entry = stats.get(op);
  if (!entry) stats.set(op, (entry = { count: 0, failures: 0, latencies: [] }));
  entry.count += 1;
  entry.latencies.push(ms);
  if (failure) {
    entry.failures += 1;
    if (failures.length < 20) failures.push(`${op}: ${failure}`);
  }
}

async function timed(op, fn, check) {
  const started = performance.now();
  let failure;
  let value;
  try {
    value = await fn();
    failure = check(value);
  } catch (error) {
    failure = `threw ${error?.message ?? error}`;
  }
  record(op, performance.now() - started, failure);
  return failure ? null : value;
}

function toolPayload(result) {
  if (result.isError) return { failure: `error result ${result.content?.[0]?.text?.slice(0, 200)}` };
  const payload = JSON.parse(result.content[0].text);
  if (payload && typeof payload === 'object' && !Array.isArray(payload) && 'error' in payload)
    return { failure: `error payload ${JSON.stringify(payload).slice(0, 200)}` };
  return { payload };
}

async function call(client, op, args, extraCheck) {
  let payload = null;
  await timed(
    op,
    () => client.callTool({ name: op, arguments: args }),
    (result) => {
      const parsed = toolPayload(result);
      if (parsed.failure) return parsed.failure;
      payload = parsed.payload;
      return extraCheck ? extraCheck(payload) : null;
    },
  );
  return payload;
}

async function connect(url, token, mode) {
  const client = new Client({ name: 'bourdon-soak', version: '1' }, { versionNegotiation: { mode } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );
  return client;
}

// ---------------------------------------------------------------------------------------------
// Load.

const READS = [
  ['find_entity', () => ({ name: 'sync engine' })],
  ['list_recent_work', () => ({ since: '2026-01-01', limit: 20 })],
  ['query_agent_memory', () => ({ agent: 'agent-001', topic: 'sync' })],
  ['list_agents', () => ({})],
  ['list_notes', () => ({ since: '2026-01-01', limit: 10 })],
  ['list_workstreams', () => ({ limit: 10 })],
  ['get_cross_agent_summary', () => ({ project: 'release' })],
  ['prepare_recognition_context', () => ({ prompt: 'what about the sync engine and the release train?' })],
  ['export_agents', () => ({})],
  ['list_memory_versions', () => ({ agent_id: 'soak-a', limit: 5 })],
];

const readMemory = (client) =>
  timed(
    'resource:agent-memory',
    () => client.readResource({ uri: 'agent-library://agents/agent-002/memory' }),
    (result) => (JSON.parse(result.contents[0].text).agent ? null : 'resource without agent block'),
  );

async function httpClientLoop(index, url, deadline) {
  const client = await connect(url, trusted, index % 2 === 0 ? 'legacy' : 'auto');
  let n = 0;
  try {
    // Every kind of read once first: a run on a busy machine still covers each kind, however
    // few rounds it gets through (test/hardening.soak.test.ts checks each kind ran).
    if (index === 0) {
      await readMemory(client);
      for (const [op, args] of READS) await call(client, op, args());
    }
    while (Date.now() < deadline) {
      n += 1;
      if (n % 5 < 2) {
        const agent = WRITE_AGENTS[n % WRITE_AGENTS.length];
        const name = `h${index}-${n}`;
        const payload = await call(
          client,
          'commit_to_federation',
          {
            agent_id: agent,
            agent_type: 'other',
            entities: [{ name, type: 'concept', summary: `soak row ${n} of client ${index}` }],
            sessions:
              n % 3 === 0 ? [{ date: '2026-11-28', cwd: `/soak/${index}/${n}`, key_actions: [`commit ${n}`] }] : [],
            notes: n % 7 === 0 ? [{ date: '2026-11-28', text: `soak note ${index}-${n}` }] : [],
          },
          (p) => (typeof p.version === 'number' ? null : `no version in ${JSON.stringify(p).slice(0, 200)}`),
        );
        if (payload) {
          committed.get(agent).add(name);
          versionsSeen.get(agent).push(payload.version);
          if (n % 10 < 2) {
            // Read your own write back through the server.
            await call(client, 'find_entity', { name }, (found) =>
              found.matches?.some((m) => m.agents.includes(agent))
                ? null
                : `stale read: ${name} not found after commit`,
            );
          }
        }
      } else if (n % 11 === 0) {
        await readMemory(client);
      } else {
        const [op, args] = READS[(n * 7 + index) % READS.length];
        await call(client, op, args());
      }
    }
  } finally {
    await client.close().catch(() => {});
  }
}

async function quarantinedLoop(url, deadline) {
  const client = await connect(url, quarantined, { pin: '2026-07-28' });
  let n = 0;
  try {
    while (Date.now() < deadline) {
      n += 1;
      if (n % 3 === 0) {
        const name = `q-${n}`;
        const payload = await call(
          client,
          'commit_to_federation',
          { agent_id: 'soak-q', agent_type: 'other', entities: [{ name }] },
          (p) => (p.staged === true ? null : `not staged: ${JSON.stringify(p).slice(0, 200)}`),
        );
        if (payload) staged.add(name);
      } else {
        await call(client, 'list_agents', {});
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await client.close().catch(() => {});
  }
}

function cliCommit(agent, name, file) {
  fs.writeFileSync(file, JSON.stringify({ entities: [{ name, type: 'concept', summary: 'from the CLI' }] }));
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        path.join(ROOT, 'bin', 'run.js'),
        'commit',
        agent,
        '--file',
        file,
        '--agent-type',
        'other',
        '--library',
        library,
        '--json',
      ],
      {
        env: childEnv,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

async function cliLoop(lane, deadline) {
  const file = path.join(work, `cli-${lane}.json`);
  for (let n = 1; Date.now() < deadline; n++) {
    const agent = WRITE_AGENTS[n % WRITE_AGENTS.length];
    const name = `cli${lane}-${n}`;
    const started = performance.now();
    const { code, out, err } = await cliCommit(agent, name, file);
    let failure = null;
    if (code !== 0) failure = `exit ${code}: ${err.trim().slice(0, 200)}`;
    else {
      try {
        const payload = JSON.parse(out);
        if (typeof payload.version !== 'number') failure = `no version: ${out.slice(0, 200)}`;
        else {
          committed.get(agent).add(name);
          versionsSeen.get(agent).push(payload.version);
          cliCommits += 1;
        }
      } catch {
        failure = `unparsable output: ${out.slice(0, 200)}`;
      }
    }
    record('cli:commit', performance.now() - started, failure);
  }
}

// ---------------------------------------------------------------------------------------------
// Checks afterwards, from the files on disk.

function entityNames(file) {
  return new Set(
    parseManifest(fs.readFileSync(file, 'utf8'), path.basename(file), file).entities.map((entity) => entity.name),
  );
}

function verify() {
  const problems = [];
  let lost = 0;
  let rows = 0;
  const paths = libraryPaths(library);
  for (const agent of WRITE_AGENTS) {
    const file = path.join(library, 'agents', `${agent}.l5.yaml`);
    const names = entityNames(file);
    for (const name of committed.get(agent)) {
      rows += 1;
      if (!names.has(name)) {
        lost += 1;
        if (problems.length < 10) problems.push(`lost: ${agent} ${name}`);
      }
    }
    const state = readHistory(paths, agent);
    if (state.damaged) problems.push(`${agent}: history index damaged`);
    const versions = state.records.map((r) => r.version);
    if (!versions.every((v, i) => i === 0 || v === versions[i - 1] + 1))
      problems.push(`${agent}: history not contiguous`);
    for (const r of state.records)
      if (sha256(readArchivedBytes(state.dir, r.version)) !== r.sha256)
        problems.push(`${agent}: archive ${r.version} damaged`);
    if (sha256(fs.readFileSync(file)) !== state.records.at(-1)?.sha256)
      problems.push(`${agent}: live file is not the newest version`);
    const seen = versionsSeen.get(agent);
    if (new Set(seen).size !== seen.length) problems.push(`${agent}: a version number was answered twice`);
    if (seen.length && Math.max(...seen) !== versions.at(-1))
      problems.push(`${agent}: newest version ${versions.at(-1)} is not the newest answered (${Math.max(...seen)})`);
  }
  const stagedFile = path.join(library, 'staging', 'soak-q', 'soak-q.l5.yaml');
  const stagedNames = staged.size ? entityNames(stagedFile) : new Set();
  for (const name of staged) {
    rows += 1;
    if (!stagedNames.has(name)) {
      lost += 1;
      if (problems.length < 10) problems.push(`lost staged: ${name}`);
    }
  }
  return { rows, lost, problems };
}

function percentile(sorted, p) {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const median = (values) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
const mb = (bytes) => Math.round((bytes / 1048576) * 10) / 10;

// ---------------------------------------------------------------------------------------------

const loadBefore = os.loadavg()[0];
const server = await startServer();
const rss = [];
let exitCode = 0;
let report;
try {
  const started = Date.now();
  const deadline = started + SECONDS * 1000;
  const sampler = setInterval(() => {
    const value = rssOf(server.child.pid);
    if (value !== null) rss.push({ t: (Date.now() - started) / 1000, rss: value });
  }, 250);
  log(
    `soak: ${SECONDS} s, ${CLIENTS} HTTP clients + 1 quarantined + ${CLI_LANES} CLI lane(s), server ${server.url}, library ${AGENTS} generated agents`,
  );
  const runners = [
    ...Array.from({ length: CLIENTS }, (_, i) => httpClientLoop(i, server.url, deadline)),
    quarantinedLoop(server.url, deadline),
    ...Array.from({ length: CLI_LANES }, (_, lane) => cliLoop(lane, deadline)),
  ];
  const settled = await Promise.allSettled(runners);
  for (const outcome of settled) {
    if (outcome.status === 'rejected') {
      record('client', 0, `a client stopped: ${outcome.reason?.message ?? outcome.reason}`);
    }
  }
  clearInterval(sampler);
  const elapsed = (Date.now() - started) / 1000;

  // The server still answers after the load.
  const probe = await connect(server.url, trusted, 'auto');
  await call(probe, 'list_agents', {}, (p) => (p.agents.includes('soak-a') ? null : 'soak-a missing from list_agents'));
  await probe.close();

  log(`load stopped after ${elapsed.toFixed(1)} s; checking the files on disk`);
  const checked = verify();
  log(`checked in ${((Date.now() - started) / 1000 - elapsed).toFixed(1)} s; stopping the server`);
  const ops = [...stats.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  const all = ops.flatMap(([, entry]) => entry.latencies).sort((a, b) => a - b);
  const requests = ops.filter(([op]) => !op.startsWith('cli:')).reduce((sum, [, entry]) => sum + entry.count, 0);
  const failed = ops.reduce((sum, [, entry]) => sum + entry.failures, 0);
  // Memory: the first fifth is warm-up (JIT, caches, the library parsed); compare the median of
  // the next fifth with the median of the last fifth.
  const warm = rss.filter((s) => s.t >= elapsed * 0.2);
  const early = warm.filter((s) => s.t < elapsed * 0.4).map((s) => s.rss);
  const late = warm.filter((s) => s.t >= elapsed * 0.8).map((s) => s.rss);
  const memory = rss.length
    ? {
        samples: rss.length,
        start_mb: mb(rss[0].rss),
        after_warmup_mb: mb(median(early)),
        end_mb: mb(median(late)),
        peak_mb: mb(Math.max(...rss.map((s) => s.rss))),
        growth_mb: mb(median(late) - median(early)),
        // The RSS at each tenth of the run (median of the samples in it).
        timeline_mb: Array.from({ length: 10 }, (_, i) => {
          const slice = rss
            .filter((s) => s.t >= (elapsed * i) / 10 && s.t < (elapsed * (i + 1)) / 10)
            .map((s) => s.rss);
          return slice.length ? mb(median(slice)) : null;
        }),
      }
    : null;
  report = {
    seconds: Math.round(elapsed * 10) / 10,
    clients: CLIENTS,
    cli_lanes: CLI_LANES,
    requests,
    requests_per_s: Math.round(requests / elapsed),
    failed,
    failures,
    latency_ms: {
      p50: Math.round(percentile(all, 50)),
      p99: Math.round(percentile(all, 99)),
      max: Math.round(all.at(-1) ?? 0),
    },
    ops: Object.fromEntries(
      ops.map(([op, entry]) => {
        const sorted = [...entry.latencies].sort((a, b) => a - b);
        return [
          op,
          {
            count: entry.count,
            failures: entry.failures,
            p50_ms: Math.round(percentile(sorted, 50)),
            p99_ms: Math.round(percentile(sorted, 99)),
          },
        ];
      }),
    ),
    writes: {
      http_commits: [...committed.values()].reduce((sum, set) => sum + set.size, 0) - cliCommits,
      cli_commits: cliCommits,
      staged: staged.size,
      rows_checked: checked.rows,
      lost: checked.lost,
      versions: Object.fromEntries(WRITE_AGENTS.map((agent) => [agent, Math.max(0, ...versionsSeen.get(agent))])),
    },
    problems: checked.problems,
    memory,
    max_rss_growth_mb: MAX_RSS_GROWTH_MB,
    machine: {
      node: process.version,
      cpus: os.cpus().length,
      cpu: os.cpus()[0]?.model ?? 'cpu',
      load_before: Math.round(loadBefore * 100) / 100,
      load_after: Math.round(os.loadavg()[0] * 100) / 100,
    },
  };
  if (failed > 0 || checked.lost > 0 || checked.problems.length > 0) exitCode = 1;
  if (memory && memory.growth_mb > MAX_RSS_GROWTH_MB) exitCode = 1;
  if (requests === 0) exitCode = 1;
} finally {
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  const stopping = Date.now();
  server.child.kill('SIGTERM');
  await exited;
  log(`server stopped in ${((Date.now() - stopping) / 1000).toFixed(1)} s`);
  fs.rmSync(work, { recursive: true, force: true, maxRetries: 3 });
}

if (asJson) {
  process.stdout.write(JSON.stringify(report, null, 2) + '\n');
} else {
  const r = report;
  const out = (line) => process.stdout.write(`${line}\n`);
  out(
    `duration ${r.seconds} s; ${r.clients} HTTP clients (handshake era and 2026-07-28 alternately) + 1 quarantined member + ${r.cli_lanes} CLI lane(s)`,
  );
  out(
    `requests ${r.requests} (${r.requests_per_s}/s), failed ${r.failed}; latency p50 ${r.latency_ms.p50} ms, p99 ${r.latency_ms.p99} ms, max ${r.latency_ms.max} ms`,
  );
  out(
    `writes: ${r.writes.http_commits} over HTTP, ${r.writes.cli_commits} by the CLI, ${r.writes.staged} staged; ${r.writes.rows_checked} rows checked on disk, ${r.writes.lost} lost; newest versions ${JSON.stringify(r.writes.versions)}`,
  );
  if (r.memory) {
    out(
      `server RSS: ${r.memory.start_mb} MB at start, ${r.memory.after_warmup_mb} MB after warm-up, ${r.memory.end_mb} MB at the end (growth ${r.memory.growth_mb} MB, limit ${r.max_rss_growth_mb}), peak ${r.memory.peak_mb} MB; ${r.memory.samples} samples`,
    );
    out(`server RSS by tenth of the run (MB): ${r.memory.timeline_mb.join(', ')}`);
  }
  out(
    `machine: node ${r.machine.node}, ${r.machine.cpus} × ${r.machine.cpu}; load average ${r.machine.load_before} before, ${r.machine.load_after} after`,
  );
  out('');
  out('| op | count | failures | p50 | p99 |');
  out('|---|---:|---:|---:|---:|');
  for (const [op, e] of Object.entries(r.ops))
    out(`| ${op} | ${e.count} | ${e.failures} | ${e.p50_ms} ms | ${e.p99_ms} ms |`);
  for (const line of [...r.failures, ...r.problems]) out(`problem: ${line}`);
}
if (exitCode !== 0)
  process.stderr.write('soak: failed requests, lost writes, an inconsistent history or unbounded memory\n');
process.exit(exitCode);
