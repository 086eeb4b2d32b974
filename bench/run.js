#!/usr/bin/env node
// Benchmark harness (npm run bench). Generates the 50-agent library once (deterministic), then
// reports medians over repeated runs and checks each against its budget. Flags:
//   --quick   a 10-agent library and fewer repetitions (a smoke run, not for the README)
//   --json    print the results as JSON
//   --no-mcp  stop after the CLI measures and the goals (skips the MCP round trips)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateLibrary } from './generate.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist');
const quick = process.argv.includes('--quick');
const asJson = process.argv.includes('--json');
const AGENTS = quick ? 10 : 50;
const DATA = path.join(ROOT, '.bench-data');
const LIBRARY = path.join(DATA, `library-${AGENTS}`);
const HOME = path.join(DATA, 'home');
const RUNS = quick ? 20 : 200;

const results = [];
/** The search comparison with the official MCP memory server (bench/memory-server.js), after the MCP measures. */
let memoryServer = null;
function record(name, samplesMs, budgetMs, note = '') {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  const p95 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))];
  const pass = budgetMs === null ? null : median <= budgetMs;
  results.push({
    name,
    median_ms: round(median),
    p95_ms: round(p95),
    runs: samplesMs.length,
    budget_ms: budgetMs,
    pass,
    note,
  });
  if (!asJson) {
    const verdict = pass === null ? '' : pass ? 'pass' : 'FAIL';
    process.stdout.write(
      `${name.padEnd(46)} ${fmt(median).padStart(10)} ${fmt(p95).padStart(10)}  ${budgetMs === null ? '' : `≤ ${fmt(budgetMs)}`.padEnd(10)} ${verdict} ${note}\n`,
    );
  }
}
const round = (ms) => Math.round(ms * 1000) / 1000;
const fmt = (ms) =>
  ms >= 100 ? `${ms.toFixed(0)} ms` : ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(0)} µs`;

function time(fn) {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}
async function timeAsync(fn) {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}
async function repeat(fn, runs = RUNS, warmup = 5) {
  for (let i = 0; i < warmup; i++) await fn();
  const samples = [];
  for (let i = 0; i < runs; i++) samples.push(await timeAsync(fn));
  return samples;
}
async function optional(modulePath) {
  try {
    return await import(path.join(DIST, modulePath));
  } catch {
    return null;
  }
}

if (!fs.existsSync(path.join(DIST, 'bundle', 'cli.js'))) {
  process.stderr.write('bench: run `npm run build` first\n');
  process.exit(1);
}
if (!fs.existsSync(path.join(LIBRARY, 'agents'))) {
  process.stderr.write(`bench: generating ${AGENTS}-agent library in ${LIBRARY} …\n`);
  generateLibrary(LIBRARY, { agents: AGENTS });
}
const bytes = fs
  .readdirSync(path.join(LIBRARY, 'agents'))
  .reduce((sum, f) => sum + fs.statSync(path.join(LIBRARY, 'agents', f)).size, 0);
if (!asJson) {
  process.stdout.write(
    `library: ${AGENTS} agents × 1,000 entities × 500 sessions × 50 notes, ${(bytes / 1e6).toFixed(1)} MB; node ${process.version}, ${os.cpus().length} cores\n\n`,
  );
  process.stdout.write(`${'measure'.padEnd(46)} ${'median'.padStart(10)} ${'p95'.padStart(10)}  budget\n`);
}

// The spawned measures come first, while this process is small: spawning from a process that
// holds a loaded library (hundreds of MB) costs every child tens of ms more to fork, which a
// shell calling the CLI never pays (measured: a find after a change 255 ms from a 46 MB parent,
// 300 ms from a 540 MB one).
// Memory of a process that holds just the loaded library (what a server holds), measured in
// a fresh process after load and again after a full GC (parse garbage is short-lived). Right
// after the GC, RSS still counts pages V8 has freed but its background thread has not yet
// handed back to the system (20-30 MB on a busy machine): `idle` is read after a 2 s pause and
// one more GC, as a server that has just loaded sits. `nodeFlags` measures a start flag.
const measureMemory = (nodeFlags = []) =>
  JSON.parse(
    spawnSync(
      process.execPath,
      [
        ...nodeFlags,
        '--expose-gc',
        '--input-type=module',
        '-e',
        `const { LibraryStore } = await import(${JSON.stringify(path.join(DIST, 'core', 'store', 'library.js'))});
         const store = new LibraryStore(${JSON.stringify(LIBRARY)}, { warn: () => {} }); store.snapshot();
         const loaded = process.memoryUsage().rss; global.gc(); global.gc();
         const settled = process.memoryUsage().rss;
         await new Promise((resolve) => setTimeout(resolve, 2000)); global.gc();
         process.stdout.write(JSON.stringify({ loaded: loaded / 1e6, settled: settled / 1e6, idle: process.memoryUsage().rss / 1e6, agents: store.snapshot().agents.length }));`,
      ],
      { encoding: 'utf8' },
    ).stdout,
  );
const memory = measureMemory();
const smallYoung = measureMemory(['--max-semi-space-size=2']);
// CLI start-up, spawned like a shell hook spawns it.
// An `env` value of undefined removes that variable.
function spawnOnce(args, env = {}) {
  const merged = { ...process.env, BOURDON_HOME: HOME, NO_COLOR: '1', ...env };
  for (const [name, value] of Object.entries(merged)) if (value === undefined) delete merged[name];
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args.slice(1), { env: merged, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${args.join(' ')} failed: ${result.stderr}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}
function spawnTimes(args, runs, env = {}) {
  spawnOnce(['node', ...args], env); // warm-up: the page cache, the parsed cache
  return Array.from({ length: runs }, () => spawnOnce(['node', ...args], env));
}
/** Spawns two commands alternately, so both see the same machine load; samples of each. */
function paired(a, b, runs, env = {}) {
  spawnOnce(['node', ...a], env);
  spawnOnce(['node', ...b], env);
  const samplesA = [];
  const samplesB = [];
  for (let i = 0; i < runs; i++) {
    samplesA.push(spawnOnce(['node', ...a], env));
    samplesB.push(spawnOnce(['node', ...b], env));
  }
  return [samplesA, samplesB];
}
const median = (samples) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)];
const BIN = path.join(ROOT, 'bin', 'run.js');
const spawnRuns = quick ? 5 : 15;
const bare = spawnTimes([path.join(ROOT, 'bench', 'bare-cli', 'bin', 'run.js'), 'hello'], quick ? 3 : 10);
record('bare one-command oclif CLI (reference)', bare, null);

// The CLI's per-call cost goals (bench/README.md), as ratios measured in this run.
const goals = [];
function goal(name, ratio, target, verdict, detail) {
  goals.push({ name, ratio: Math.round(ratio * 100) / 100, target, pass: verdict, detail });
}
const [nodeStart, version] = paired(['-e', '0'], [BIN, '--version'], spawnRuns);
record('node -e 0', nodeStart, null);
record('bourdon --version', version, null);
const versionRatio = median(version) / median(nodeStart);
goal(
  'bourdon --version vs node -e 0',
  versionRatio,
  '≤ 1.6×',
  versionRatio <= 1.6,
  `${fmt(median(version))} vs ${fmt(median(nodeStart))}`,
);

// The Python engine is not installable here: its `agents` figure is the issue's (631 ms).
const ENGINE_AGENTS_MS = 631;
const conformance = path.join(ROOT, 'test', 'fixtures', 'conformance', 'library');
const agentsJson = spawnTimes([BIN, 'agents', '--json', '--library', conformance], spawnRuns);
record('bourdon agents --json (conformance library)', agentsJson, null);
const agentsSpeedup = ENGINE_AGENTS_MS / median(agentsJson);
goal(
  'engine agents (631 ms, issue figure) ÷ bourdon agents --json',
  agentsSpeedup,
  '≥ 3×',
  agentsSpeedup >= 3,
  `${fmt(median(agentsJson))}`,
);

// find on the 10-agent library (10 × 1,000 entities × 500 sessions), the issue's yardstick.
const LIBRARY_10 = path.join(DATA, 'library-10');
if (!fs.existsSync(path.join(LIBRARY_10, 'agents'))) generateLibrary(LIBRARY_10, { agents: 10 });
const findArgs = [BIN, 'find', 'Project sync 5', '--json', '--access-level', 'team', '--library', LIBRARY_10];
const [versionForFind, findWarm] = paired([BIN, '--version'], findArgs, spawnRuns);
record('bourdon find --json (10 agents, cache warm)', findWarm, null);
const findRatio = median(findWarm) / median(versionForFind);
goal(
  'bourdon find (cache warm) vs bourdon --version',
  findRatio,
  '≤ 1.5×',
  findRatio <= 1.5,
  `${fmt(median(findWarm))} vs ${fmt(median(versionForFind))}`,
);
// The same find with the fast path forced off (through oclif), for reference.
const findOclif = spawnTimes(findArgs, quick ? 3 : 7, { BOURDON_NO_FAST_PATH: '1' });
record('bourdon find --json (10 agents, BOURDON_NO_FAST_PATH=1)', findOclif, null);
// The other one-shot views of the parsed cache: the sessions (recent) and the ids (agents).
const recentWarm = spawnTimes([BIN, 'recent', '--json', '--since', '2026-01-01', '--library', LIBRARY_10], spawnRuns);
record('bourdon recent --json --since 2026-01-01 (10 agents)', recentWarm, null);
const recentWindow = spawnTimes([BIN, 'recent', '--json', '--library', LIBRARY_10], spawnRuns);
record('bourdon recent --json, last 14 days (10 agents)', recentWindow, null);
const agentsTen = spawnTimes([BIN, 'agents', '--json', '--library', LIBRARY_10], spawnRuns);
record('bourdon agents --json (10 agents)', agentsTen, null);
// A cold first run after a manifest changed: one manifest rewritten (new mtime) before each run.
const ENGINE_LOAD_FIND_MS = 5900;
const changed = path.join(LIBRARY_10, 'agents', fs.readdirSync(path.join(LIBRARY_10, 'agents')).sort()[0]);
const changedText = fs.readFileSync(changed, 'utf8');
// Each rewrite gets its own past mtime (a distinct stamp, as a real edit has). The last one
// leaves the manifest inside the parsed cache's racy window (its ctime is now), where every read
// checks the entry against the file's bytes: the pause lets later warm reads see it settled.
function findAfterChange(env = {}) {
  const samples = [];
  for (let i = 0; i < (quick ? 3 : 7); i++) {
    fs.writeFileSync(changed, changedText);
    const when = new Date(Date.now() - (100 + i) * 1000);
    fs.utimesSync(changed, when, when);
    samples.push(spawnOnce(['node', ...findArgs], env));
  }
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2500);
  return samples;
}
const findCold = findAfterChange();
record('bourdon find --json (10 agents, one manifest changed)', findCold, null);
// A commit refreshes its manifest's cache entry itself: only an edit by another tool is parsed,
// and the goal is that one parse of the largest manifest the limits allow (this library's
// manifests are at the schema maxima) costs a find at most 1.5 warm finds more.
const changedRatio = median(findCold) / median(findWarm);
goal(
  'bourdon find after an external edit of a largest manifest vs find warm',
  changedRatio,
  '≤ 2.5×',
  changedRatio <= 2.5,
  `${fmt(median(findCold))} vs ${fmt(median(findWarm))}; engine load+find (5.9 s, issue figure) ÷ it ${Math.round((ENGINE_LOAD_FIND_MS / median(findCold)) * 10) / 10}×`,
);
// Without any cache at all (BOURDON_NO_CACHE=1): every manifest parsed.
const findNoCache = spawnTimes(findArgs, quick ? 2 : 3, { BOURDON_NO_CACHE: '1' });
record('bourdon find --json (10 agents, no cache)', findNoCache, null);
// The server's memory goals (issue 34) are ratios taken by bench/server-rss.js, the real server
// after every tool once: the 120 MB bound once checked here is retired. The load-only probe's
// figures stay below, for reference.

// NODE_EXTRA_CA_CERTS (set on some machines, this VM among them) makes Node 20 read and parse
// that file at the start of every process, before any of our code runs: about 420 M
// instructions (callgrind), 40-50 ms here. Most machines do not set it, and there every start
// is that much shorter, which moves the ratios: when it is set, the ratio goals are measured
// again without it, printed for reference (the verdicts stay those of the environment as is).
const reference = [];
if (process.env.NODE_EXTRA_CA_CERTS) {
  const clean = { NODE_EXTRA_CA_CERTS: undefined };
  const [node0, version0] = paired(['-e', '0'], [BIN, '--version'], spawnRuns, clean);
  const [version1, find1] = paired([BIN, '--version'], findArgs, spawnRuns, clean);
  const agents1 = spawnTimes([BIN, 'agents', '--json', '--library', conformance], spawnRuns, clean);
  const changed1 = findAfterChange(clean);
  record('node -e 0 (without NODE_EXTRA_CA_CERTS)', node0, null);
  record('bourdon --version (without NODE_EXTRA_CA_CERTS)', version0, null);
  record('bourdon agents --json, conformance (without it)', agents1, null);
  record('bourdon find --json, cache warm (without it)', find1, null);
  record('bourdon find --json, one manifest changed (without it)', changed1, null);
  const ratio = (a, b) => Math.round((median(a) / median(b)) * 100) / 100;
  reference.push(
    `--version vs node -e 0 ${ratio(version0, node0)}×; engine agents ÷ agents --json ${Math.round((ENGINE_AGENTS_MS / median(agents1)) * 100) / 100}×;`,
    `find warm vs --version ${ratio(find1, version1)}× (${fmt(median(find1))} vs ${fmt(median(version1))}); engine load+find ÷ find after a change ${Math.round((ENGINE_LOAD_FIND_MS / median(changed1)) * 10) / 10}× (${fmt(median(changed1))})`,
  );
}

const { LibraryStore } = await import(path.join(DIST, 'core', 'store', 'library.js'));
const { createContext } = await import(path.join(DIST, 'core', 'context.js'));
const reads = await import(path.join(DIST, 'core', 'operations', 'reads.js'));
const recentWork = await import(path.join(DIST, 'core', 'operations', 'recent-work.js'));
const promptReads = await import(path.join(DIST, 'core', 'operations', 'prompt-reads.js'));
const silent = () => {};

// Cold load: a new store parsing every manifest (what a server start or an uncached CLI pays).
const coldRuns = quick ? 3 : 3;
const cold = [];
for (let i = 0; i < coldRuns; i++) cold.push(time(() => new LibraryStore(LIBRARY, { warn: silent }).snapshot()));
record('cold load (parse every manifest)', cold, 5000, 'Python engine: 51 s');

const store = new LibraryStore(LIBRARY, { warn: silent });
store.snapshot();
const ctx = createContext(store, { warn: silent, env: {}, now: () => new Date(Date.UTC(2026, 10, 29, 12)) });

// Warm reload: one manifest changed on disk (rewritten, new mtime), the next query re-parses it alone.
const victim = path.join(LIBRARY, 'agents', fs.readdirSync(path.join(LIBRARY, 'agents')).sort()[0]);
const victimText = fs.readFileSync(victim, 'utf8');
const reload = [];
for (let i = 0; i < (quick ? 5 : 10); i++) {
  fs.writeFileSync(victim, victimText);
  const when = new Date(Date.now() + (i + 1) * 1000);
  fs.utimesSync(victim, when, when);
  reload.push(
    await timeAsync(async () => {
      store.snapshot();
      await reads.findEntity(ctx, { name: 'warm' }); // the first query after a reload re-indexes that agent
    }),
  );
}
record('warm reload after one manifest changes (+ first query)', reload, 50);

const find = await repeat(() => reads.findEntity(ctx, { name: 'Project sync 5', access_level: 'team' }));
record('find_entity', find, 1, 'Python: 11.6 ms');
const query = await repeat(() => reads.queryAgentMemory(ctx, { agent: 'agent-007', topic: 'Project sync 5' }));
record('query_agent_memory', query, 1);
const recognition = await repeat(() =>
  promptReads.prepareRecognitionContext(ctx, {
    prompt: 'can we get back to project sync 5 and the merge worker before the release?',
  }),
);
record('prepare_recognition_context', recognition, 1, 'Python rebuilds its view each call: 420 ms');
const recentFirst = await repeat(() => recentWork.listRecentWork(ctx, { since: '2026-01-01', access_level: 'team' }));
record('list_recent_work, first page', recentFirst, 2, 'Python: 243 ms');
const deep = (await recentWork.listRecentWork(ctx, { since: '2025-01-01', limit: 100 })).next_cursor;
let cursor = deep;
for (let i = 0; i < 50 && cursor; i++)
  cursor = (await recentWork.listRecentWork(ctx, { since: '2025-01-01', limit: 100, cursor })).next_cursor;
const recentDeep = await repeat(() => recentWork.listRecentWork(ctx, { since: '2025-01-01', limit: 100, cursor }));
record('list_recent_work, page 51 (offset 5,000)', recentDeep, null);
const summary = await repeat(() =>
  reads.getCrossAgentSummary(ctx, { project: 'Project sync 5', access_level: 'team' }),
);
record('get_cross_agent_summary', summary, 5, 'Python: 29 ms');
const workstreamsModule = await optional('core/operations/workstreams.js');
if (workstreamsModule?.listWorkstreams) {
  const ws = await repeat(
    () => workstreamsModule.listWorkstreams(ctx, { since: '2026-01-01', access_level: 'team' }),
    quick ? 10 : 50,
  );
  record('list_workstreams', ws, 5);
}
const writes = await optional('core/writes/commit.js');
if (writes?.commitToFederation) {
  const copy = path.join(DATA, 'commit-library');
  fs.rmSync(copy, { recursive: true, force: true });
  fs.cpSync(LIBRARY, copy, { recursive: true });
  const writeStore = new LibraryStore(copy, { warn: silent });
  writeStore.snapshot();
  const writeCtx = createContext(writeStore, {
    warn: silent,
    env: { BOURDON_HOME: HOME, BOURDON_AUDIT_PATH: path.join(HOME, 'audit.jsonl') },
  });
  let n = 0;
  const commits = await repeat(
    () =>
      writes.commitToFederation(writeCtx, {
        agent_id: 'agent-001',
        sessions: [{ date: '2026-11-29', cwd: `/bench/${n++}`, key_actions: ['bench'] }],
      }),
    quick ? 5 : 20,
    1,
  );
  record('commit_to_federation (1,500-row manifest)', commits, null);
}
record('RSS right after loading (MB)', [memory.loaded], null, '(MB, not ms)');
record('RSS with the library loaded, after GC (MB)', [memory.settled], 300, '(MB, not ms)');
record('RSS … after GC and 2 s idle (MB)', [memory.idle], null, '(MB, not ms)');
record(
  'RSS … after GC and 2 s idle, --max-semi-space-size=2 (MB)',
  [smallYoung.idle],
  null,
  '(MB, not ms; a Node start flag, not set by bourdon)',
);

function printGoals() {
  process.stdout.write(`\nCLI per-call goals, ratios from this run:\n`);
  for (const g of goals)
    process.stdout.write(
      `${g.name.padEnd(66)} ${(g.name.includes('MB') ? `${g.ratio}` : `${g.ratio}×`).padStart(8)}  ${g.target.padEnd(9)} ${g.pass === null ? 'no verdict (--quick)' : g.pass ? 'met' : 'NOT MET'}  (${g.detail})\n`,
    );
  if (reference.length) process.stdout.write(`Without NODE_EXTRA_CA_CERTS (reference): ${reference.join(' ')}\n`);
  process.stdout.write('\n');
}
// Printed here and again at the end of a full run, so they are not lost above the MCP figures.
if (process.argv.includes('--no-mcp')) finish();
if (!asJson) printGoals();

// MCP over stdio: one tools/call round trip through a spawned `bourdon serve`.
const { Client } = await import('@modelcontextprotocol/client');
const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
const client = new Client({ name: 'bench', version: '1' });
await client.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [path.join(ROOT, 'bin', 'run.js'), 'serve', '--library', LIBRARY],
    env: { BOURDON_HOME: HOME, BOURDON_AUDIT_PATH: path.join(HOME, 'audit.jsonl') },
    stderr: 'ignore',
  }),
);
const stdioCall = await repeat(
  () => client.callTool({ name: 'find_entity', arguments: { name: 'Project sync 5' } }),
  quick ? 20 : 100,
);
record('MCP tools/call over stdio (find_entity)', stdioCall, null);
await client.close();

// The official MCP memory server, in the same run: the same public entities, the same names,
// its search_nodes against our find_entity over stdio (bench/memory-server.js).
const { compareWithMemoryServer, describeComparison } = await import('./memory-server.js');
memoryServer = await compareWithMemoryServer({
  library: LIBRARY,
  home: HOME,
  runs: quick ? 20 : 50,
  rounds: quick ? 1 : 3,
});
if (!asJson)
  process.stdout.write(
    `\nSearch against @modelcontextprotocol/server-memory:\n${describeComparison(memoryServer)}\n\n`,
  );

const http = await optional('mcp/http.js');
if (http?.runHttpServer) {
  const { createMcpServer } = await import(path.join(DIST, 'mcp', 'server.js'));
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const httpStore = new LibraryStore(LIBRARY, { warn: silent });
  httpStore.snapshot();
  const server = await http.runHttpServer(() => createMcpServer(httpStore, { warn: silent, auditPath: null }), {
    host: '127.0.0.1',
    port: 0,
    allowUnauthenticated: true,
    warn: silent,
  });
  const url = new URL(`http://127.0.0.1:${server.port}/mcp`);
  for (const mode of ['legacy', { pin: '2026-07-28' }]) {
    const httpClient = new Client({ name: 'bench', version: '1' }, { versionNegotiation: { mode } });
    await httpClient.connect(new StreamableHTTPClientTransport(url));
    const samples = await repeat(
      () => httpClient.callTool({ name: 'find_entity', arguments: { name: 'Project sync 5' } }),
      quick ? 20 : 100,
    );
    record(`MCP tools/call over HTTP (${mode === 'legacy' ? 'handshake era' : '2026-07-28'})`, samples, null);
    await httpClient.close();
  }
  await server.close();
}

finish();
function finish() {
  const failed = results.filter((r) => r.pass === false);
  if (asJson)
    process.stdout.write(
      JSON.stringify(
        { agents: AGENTS, bytes, node: process.version, results, goals, reference, memory_server: memoryServer },
        null,
        2,
      ) + '\n',
    );
  else {
    process.stdout.write(`\n${results.filter((r) => r.pass).length} within budget, ${failed.length} over budget\n`);
    printGoals();
  }
  process.exit(0);
}
