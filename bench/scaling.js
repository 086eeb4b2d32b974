#!/usr/bin/env node
// How per-request cost grows with the library (npm run bench:scaling; run after a build).
// Reports CPU per call, in process, of the server's store against the sweeping store every
// other reader uses, so the ratios are about our code, not the transport:
//   - freshness: find_entity (one agent's entity: the same answer at every size) and a first
//     page of list_recent_work, on 10 and 1,000 small agents;
//   - paging: the first, middle and last page of a whole list_recent_work walk (limit 100) on
//     the 50-agent benchmark library, and the whole walk;
//   - the one-shot CLI: wall time of a spawned `bourdon find --json` with a warm parsed cache,
//     on the same 10 and 1,000 small agents (the same one-match answer), runs alternated so load
//     drift hits both sizes alike, median of --cli-runs each; `node -e 0` beside it.
// Flags: --runs <n> (calls per measure, default 2000), --cli-runs <n> (default 31), --json.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateLibrary, manifestText } from './generate.js';
import { flagReader, ROOT } from './lib.js';

const flag = flagReader();
const RUNS = Number(flag('--runs', '2000'));
const CLI_RUNS = Number(flag('--cli-runs', '31'));
const asJson = process.argv.includes('--json');
const DIST = path.join(ROOT, 'dist');
const DATA = path.join(ROOT, '.bench-data');
const SMALL = { entities: 50, sessions: 20, notes: 5 };

const { LibraryStore, parseManifest } = await import(path.join(DIST, 'core', 'store', 'library.js'));
const { createContext } = await import(path.join(DIST, 'core', 'context.js'));
const reads = await import(path.join(DIST, 'core', 'operations', 'reads.js'));
const recentWork = await import(path.join(DIST, 'core', 'operations', 'recent-work.js'));

const results = {};
const say = (line) => asJson || process.stdout.write(line + '\n');

function library(name, sizes) {
  const dir = path.join(DATA, name);
  if (!fs.existsSync(path.join(dir, 'agents'))) generateLibrary(dir, sizes);
  return dir;
}

/** CPU µs per call (user + system), median of five batches after a warm-up batch. */
async function cpuPerCall(fn, runs = RUNS) {
  const batch = Math.max(1, Math.floor(runs / 5));
  for (let i = 0; i < batch; i++) await fn();
  const perCall = [];
  for (let b = 0; b < 5; b++) {
    const start = process.cpuUsage();
    for (let i = 0; i < batch; i++) await fn();
    const used = process.cpuUsage(start);
    perCall.push((used.user + used.system) / batch);
  }
  perCall.sort((a, b) => a - b);
  return perCall[2];
}

const fmt = (us) => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(0)} µs`);
const warn = () => {};

// --- freshness --------------------------------------------------------------------------------
// agent-000's first own entity: only that agent has it, so the answer is one match at any size.
const ownName = /- name: '([^']+ 0-\d+)'/.exec(manifestText(0, SMALL).text.split('known_entities:')[1])[1];
say(`freshness: find_entity ${JSON.stringify(ownName)} (one match) and list_recent_work (20 rows)`);
for (const agents of [10, 1000]) {
  const root = library(`scaling-${agents}`, { agents, ...SMALL });
  for (const [kind, options] of [
    ['server store (stamp + watch)', { warn, freshness: { watch: true } }],
    ['sweeping store (stat per manifest)', { warn }],
  ]) {
    const store = new LibraryStore(root, options);
    store.snapshot();
    const ctx = createContext(store, { warn });
    const find = await cpuPerCall(() => reads.findEntity(ctx, { name: ownName, access_level: 'team' }));
    const answer = await reads.findEntity(ctx, { name: ownName, access_level: 'team' });
    if (answer.matches.length !== 1) throw new Error(`expected one match, got ${answer.matches.length}`);
    const recent = await cpuPerCall(() =>
      recentWork.listRecentWork(ctx, { since: '2025-01-01', access_level: 'team' }),
    );
    store.close();
    results[`${kind}, ${agents} agents`] = { find_entity_us: find, list_recent_work_us: recent };
    say(
      `  ${String(agents).padStart(5)} agents, ${kind.padEnd(36)} find ${fmt(find).padStart(9)}   recent ${fmt(recent).padStart(9)}`,
    );
  }
}
const ratio = (kind, key) => results[`${kind}, 1000 agents`][key] / results[`${kind}, 10 agents`][key];
for (const kind of ['server store (stamp + watch)', 'sweeping store (stat per manifest)']) {
  say(
    `  ${kind}: 1,000 ÷ 10 agents: find_entity ${ratio(kind, 'find_entity_us').toFixed(2)}×, list_recent_work ${ratio(kind, 'list_recent_work_us').toFixed(2)}×`,
  );
}

// --- paging ---------------------------------------------------------------------------------
{
  const root = library('library-50', { agents: 50 });
  const store = new LibraryStore(root, { warn, freshness: { watch: true } });
  store.snapshot();
  const ctx = createContext(store, { warn });
  const args = { since: '2025-01-01', limit: 100, access_level: 'public' };
  const cursors = [null];
  let rows = 0;
  const walkStart = process.cpuUsage();
  for (;;) {
    const page = await recentWork.listRecentWork(ctx, { ...args, cursor: cursors[cursors.length - 1] });
    rows += page.sessions.length;
    if (!page.next_cursor) break;
    cursors.push(page.next_cursor);
  }
  const walk = process.cpuUsage(walkStart);
  const pageCost = (cursor) =>
    cpuPerCall(() => recentWork.listRecentWork(ctx, { ...args, cursor }), Math.min(RUNS, 500));
  const first = await pageCost(cursors[0]);
  const middle = await pageCost(cursors[Math.floor(cursors.length / 2)]);
  const last = await pageCost(cursors[cursors.length - 1]);
  store.close();
  results.paging = {
    rows,
    pages: cursors.length,
    first_us: first,
    middle_us: middle,
    last_us: last,
    walk_ms: (walk.user + walk.system) / 1000,
  };
  say(`paging: list_recent_work, 50 agents, public level, limit 100: ${rows} sessions in ${cursors.length} pages`);
  say(
    `  first ${fmt(first)}, middle ${fmt(middle)}, last ${fmt(last)} (last ÷ first ${(last / first).toFixed(2)}×); whole walk ${results.paging.walk_ms.toFixed(0)} ms CPU (first walk: builds the order)`,
  );
}

// --- the first read after a write ------------------------------------------------------------
// A server adopts each written manifest (store.adopt); the next find_entity takes the changed
// agent into the library-wide name index. CPU of that one call, median over ten writes to ten
// agents, against a steady call.
{
  const root = library('library-50', { agents: 50 });
  const store = new LibraryStore(root, { warn, freshness: { watch: true } });
  const ctx = createContext(store, { warn });
  const args = { name: 'Project sync 0', access_level: 'team' };
  await reads.findEntity(ctx, args);
  const steady = await cpuPerCall(() => reads.findEntity(ctx, args), Math.min(RUNS, 200));
  const afterWrite = [];
  for (let i = 1; i <= 10; i++) {
    const file = `agent-${String(i).padStart(3, '0')}.l5.yaml`;
    const full = path.join(root, 'agents', file);
    const data = fs.readFileSync(full);
    store.adopt(file, data, parseManifest(data, file, full)); // a new record, as after a commit
    const start = process.cpuUsage();
    await reads.findEntity(ctx, args);
    const used = process.cpuUsage(start);
    afterWrite.push(used.user + used.system);
  }
  store.close();
  afterWrite.sort((a, b) => a - b);
  results.after_write = { steady_us: steady, first_after_write_us: afterWrite[5] };
  say(
    `after a write: find_entity, 50 agents: steady ${fmt(steady)}; the first call after one manifest was replaced ${fmt(afterWrite[5])} (median of 10)`,
  );
}

// --- the one-shot CLI -----------------------------------------------------------------------
{
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'bourdon-bench-scaling-'));
  const env = { ...process.env, BOURDON_HOME: home };
  delete env.BOURDON_NO_CACHE;
  const wall = (args) => {
    const start = process.hrtime.bigint();
    const result = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${args.join(' ')}: ${result.stderr}`);
    return [Number(process.hrtime.bigint() - start) / 1e6, result.stdout];
  };
  const sizes = [10, 1000];
  const findArgs = (agents) => [
    path.join(ROOT, 'bin', 'run.js'),
    'find',
    ownName,
    '--json',
    '--library',
    library(`scaling-${agents}`, { agents, ...SMALL }),
  ];
  for (const agents of sizes) {
    // The first run writes the cache; the second proves the answer; later runs are warm.
    wall(findArgs(agents));
    const matches = JSON.parse(wall(findArgs(agents))[1]).matches;
    if (matches.length !== 1) throw new Error(`expected one match, got ${matches.length}`);
  }
  const samples = { node: [], 10: [], 1000: [] };
  for (let i = 0; i < CLI_RUNS; i++) {
    samples.node.push(wall(['-e', '0'])[0]);
    for (const agents of sizes) samples[agents].push(wall(findArgs(agents))[0]);
  }
  fs.rmSync(home, { recursive: true, force: true });
  const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
  const ms = (value) => `${value.toFixed(1)} ms`;
  results.cli_find = {
    runs: CLI_RUNS,
    node_ms: median(samples.node),
    agents_10_ms: median(samples[10]),
    agents_1000_ms: median(samples[1000]),
  };
  results.cli_find.ratio = results.cli_find.agents_1000_ms / results.cli_find.agents_10_ms;
  say(`one-shot CLI: bourdon find --json ${JSON.stringify(ownName)}, parsed cache warm, median of ${CLI_RUNS} spawns`);
  say(
    `  10 agents ${ms(results.cli_find.agents_10_ms)}, 1,000 agents ${ms(results.cli_find.agents_1000_ms)} (1,000 ÷ 10 ${results.cli_find.ratio.toFixed(2)}×); node -e 0 ${ms(results.cli_find.node_ms)}`,
  );
}

if (asJson) process.stdout.write(JSON.stringify(results, null, 2) + '\n');
