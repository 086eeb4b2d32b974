#!/usr/bin/env node
// search_memory through a real server (`bourdon serve`, one MCP client over stdio), after a build,
// side by side with find_entity on the same server and library and with the official memory
// server's search_nodes on the same public entities (bench/memory-server.js), at 50 full agents
// and at 1,000 small ones (bench/scaling.js's sizes). Reported: the first search after start
// (the index is built then), the warm medians, the RSS of a server after searching against one
// that only answered find_entity, and whether a manifest changed on disk is found by the next
// call. `npm run bench:search`; alone: node bench/search.js [--runs 60] [--rounds 5] [--warm 2000] [--spaced 40] [--gap 100] [--level team] [--sizes 50] [--settle 2000] [--json]
// BOURDON_BENCH_BIN=/other/checkout/bin/run.js: serve another build (before and after, interleaved).
// --level: the access_level every call passes (default: none, the level search_memory answers at
// by default, which is the one a server indexes as it starts; `team` sees every generated row).
// --settle 2000: the pause after the first search before the warm passes (below).
// --rounds 5: the warm passes alternate, find_entity's RUNS calls then search_memory's, this many
// times, and each median is taken over all of its calls: a machine whose speed drifts between
// one block of calls and the next (a shared host) shifts both tools, not one.
// --warm 2000: before those passes, this many untimed calls of each tool (alternating blocks of
// 100; memory-server.js warmUp), so the medians are of a server whose code V8 has optimised:
// before 2026-12-06 22:15 there were none, and the medians were of the first few hundred calls,
// when find_entity still ran at two to three times its settled cost (bench/README.md, "Warm to
// the end"). --warm 0 measures as before.
// --spaced 40 --gap 100: then this many calls of each tool again, alternating, each after a pause
// of --gap ms: a model or a person calls a tool seconds apart, never back to back, and between
// calls the machine idles, so each call also pays for waking the server and the client (pauses of
// 20 ms to 1 s gave the same ratio: bench/README.md). Both medians are reported.
// A server builds its search index in the background as it starts, so the find-only server holds
// one too: the RSS is also given against a find-only server started with BOURDON_SEARCH_WARM=0.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateLibrary } from './generate.js';
import { flagReader, ROOT } from './lib.js';
import { connect, MEMORY_SERVER, median, memoryFileFor, pass, queriesFor, rssMb, warmUp } from './memory-server.js';

const flag = flagReader();
const RUNS = Number(flag('--runs', '60'));
const LEVEL = flag('--level', '');
const at = LEVEL ? { access_level: LEVEL } : {};
const DATA = path.join(ROOT, '.bench-data');
// --settle: milliseconds between the first search and the warm passes (0: none, as before 2026-12-06 14:00).
const SETTLE_MS = Number(flag('--settle', '2000'));
const ROUNDS = Number(flag('--rounds', '5'));
const WARM = Number(flag('--warm', '2000'));
const SPACED = Number(flag('--spaced', '40'));
const GAP_MS = Number(flag('--gap', '100'));
// The official memory server's warm-up: its search takes about 45 ms a call, so a hundred.
const THEIR_WARM = Math.min(WARM, 100);
const round = (ms) => Math.round(ms * 100) / 100;
// BOURDON_BENCH_BIN names another build's bin/run.js to serve (a checkout before a change), as bench/engine.js.
const BIN = process.env.BOURDON_BENCH_BIN ?? path.join(ROOT, 'bin', 'run.js');

async function timed(server, tool, args) {
  const start = process.hrtime.bigint();
  const result = await server.client.callTool({ name: tool, arguments: args });
  if (result.isError) throw new Error(`${tool} failed: ${JSON.stringify(result.content).slice(0, 300)}`);
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, payload: JSON.parse(result.content[0].text) };
}

async function ours(library, home, env = {}) {
  return connect('bourdon', process.execPath, [BIN, 'serve', '--library', library], {
    BOURDON_HOME: home,
    BOURDON_AUDIT_PATH: path.join(home, 'audit.jsonl'),
    ...env,
  });
}

/** The calls of one tool a pass makes (memory-server.js `pass`, `warmUp`): its arguments for each name or query. */
const findPlan = (names) => ({ tool: 'find_entity', argsFor: (name) => ({ name, ...at }), list: names });
const searchPlan = (queries) => ({ tool: 'search_memory', argsFor: (query) => ({ query, ...at }), list: queries });

/** The RSS (MB) of a server that answered only find_entity, in the searched server's sequence (measure). */
async function findOnlyRssMb(library, names, scratch, env) {
  const server = await ours(library, fs.mkdtempSync(path.join(scratch, 'home-')), env);
  try {
    await timed(server, 'find_entity', { name: names[0], ...at });
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    // As many calls as the searched server's warm-up makes, every one a find_entity.
    const find = findPlan(names);
    await warmUp(server, [find, find], WARM);
    for (let round = 0; round < 2 * ROUNDS; round++) await pass(server, find.tool, find.argsFor, find.list, RUNS);
    return rssMb(server.pid);
  } finally {
    await server.client.close();
  }
}

async function measure(label, sizes) {
  const library = path.join(DATA, `search-${label}`);
  if (!fs.existsSync(path.join(library, 'agents'))) generateLibrary(library, sizes);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bourdon-bench-search-'));
  try {
    const memory = await memoryFileFor(library, scratch);
    const queries = queriesFor(memory.names);
    // A server that only answers find_entity: the RSS baseline. It is read at the same moment of
    // the same sequence as the searched server below (a first call, the settle, 2 × ROUNDS passes
    // of RUNS calls), every call a find_entity: so both have ended what a server does as it starts
    // (the index's build and the start-up searches). Read after one pass right away, as before
    // 2026-12-06 15:40, the find-only server had not finished building its index at 1,000 agents,
    // and the ratio set a server with an index against one with part of it.
    const findOnlyRss = await findOnlyRssMb(library, memory.names, scratch, {});
    // The same without the index a server builds as it starts.
    const bareRss = await findOnlyRssMb(library, memory.names, scratch, { BOURDON_SEARCH_WARM: '0' });

    const server = await ours(library, fs.mkdtempSync(path.join(scratch, 'home-')));
    const first = await timed(server, 'search_memory', { query: queries[0], ...at });
    // The warm passes measure a settled server: what it does as it starts (the index's build, then
    // a few searches that get V8 to compile the search: src/core/operations/search-warm.ts) has
    // ended by then, so neither find_entity's pass nor search_memory's shares a core with it.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    // Each tool's calls, and what was measured of them: back to back (samples, cpu) and spaced.
    const finds = { ...findPlan(memory.names), samples: [], cpu: 0, spaced: [] };
    const searches = { ...searchPlan(queries), samples: [], cpu: 0, spaced: [] };
    await warmUp(server, [finds, searches], WARM);
    for (let round = 0; round < ROUNDS; round++)
      for (const plan of [finds, searches]) {
        const done = await pass(server, plan.tool, plan.argsFor, plan.list, RUNS);
        plan.samples.push(...done.samples);
        plan.cpu += done.cpu;
      }
    const searchRss = rssMb(server.pid);
    for (let i = 0; i < SPACED; i++)
      for (const plan of [finds, searches]) {
        await new Promise((resolve) => setTimeout(resolve, GAP_MS));
        plan.spaced.push((await timed(server, plan.tool, plan.argsFor(plan.list[i % plan.list.length]))).ms);
      }
    // One manifest changed on disk: is its new entity found by the very next call?
    const file = path.join(library, 'agents', fs.readdirSync(path.join(library, 'agents')).sort()[0]);
    const before = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, before.replace('known_entities:\n', "known_entities:\n  - name: 'Zanzibar lighthouse'\n"));
    let changed;
    try {
      changed = await timed(server, 'search_memory', { query: 'zanzibar lighthouse', ...at });
    } finally {
      fs.writeFileSync(file, before);
    }
    await server.client.close();

    const theirs = await connect('server-memory', process.execPath, [MEMORY_SERVER], { MEMORY_FILE_PATH: memory.file });
    await warmUp(theirs, [{ tool: 'search_nodes', argsFor: (query) => ({ query }), list: queries }], THEIR_WARM);
    const nodes = await pass(theirs, 'search_nodes', (query) => ({ query }), queries, RUNS);
    await theirs.client.close();

    const findMs = median(finds.samples);
    const searchMs = median(searches.samples);
    return {
      library: label,
      agents: sizes.agents,
      first_search_ms: round(first.ms),
      search_memory_median_ms: round(searchMs),
      find_entity_median_ms: round(findMs),
      search_over_find: round(searchMs / findMs),
      // The server's CPU time (user + system, /proc, 10 ms ticks) per call: less touched by a loaded machine.
      search_memory_cpu_ms: round(searches.cpu / searches.samples.length),
      find_entity_cpu_ms: round(finds.cpu / finds.samples.length),
      calls_each: finds.samples.length,
      spaced_gap_ms: GAP_MS,
      spaced_calls_each: SPACED,
      spaced_search_memory_median_ms: round(median(searches.spaced)),
      spaced_find_entity_median_ms: round(median(finds.spaced)),
      spaced_search_over_find: round(median(searches.spaced) / median(finds.spaced)),
      search_nodes_median_ms: round(median(nodes.samples)),
      rss_mb_after_search: Math.round(searchRss),
      rss_mb_find_only: Math.round(findOnlyRss),
      rss_ratio: round(searchRss / findOnlyRss),
      rss_mb_find_only_no_index: Math.round(bareRss),
      rss_ratio_no_index: round(searchRss / bareRss),
      level: LEVEL || 'default',
      warm_calls_each: WARM,
      changed_manifest_found_next_call: changed.payload.results.some((r) => r.name === 'Zanzibar lighthouse'),
      changed_manifest_call_ms: round(changed.ms),
      queries,
    };
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

// --sizes 50 (or 1000): only that library (default: both).
const SIZES = flag('--sizes', '50,1000').split(',');
const results = [];
if (SIZES.includes('50')) results.push(await measure('50', { agents: 50 }));
if (SIZES.includes('1000')) results.push(await measure('1000', { agents: 1000, entities: 50, sessions: 20, notes: 5 }));
if (process.argv.includes('--json')) process.stdout.write(JSON.stringify(results, null, 2) + '\n');
else
  for (const r of results)
    process.stdout.write(
      `${r.agents} agents (level ${r.level}, after ${r.warm_calls_each} calls of each): first search ${r.first_search_ms} ms; warm search_memory ${r.search_memory_median_ms} ms ` +
        `vs find_entity ${r.find_entity_median_ms} ms (${r.search_over_find}×) ` +
        `[CPU per call ${r.search_memory_cpu_ms} vs ${r.find_entity_cpu_ms} ms] vs search_nodes ${r.search_nodes_median_ms} ms; ` +
        `${r.spaced_gap_ms} ms apart: search_memory ${r.spaced_search_memory_median_ms} ms vs find_entity ` +
        `${r.spaced_find_entity_median_ms} ms (${r.spaced_search_over_find}×); ` +
        `RSS ${r.rss_mb_after_search} MB after searching vs ${r.rss_mb_find_only} MB find only (${r.rss_ratio}×), ` +
        `${r.rss_mb_find_only_no_index} MB find only without the index (${r.rss_ratio_no_index}×); ` +
        `changed manifest found by the next call: ${r.changed_manifest_found_next_call} (${r.changed_manifest_call_ms} ms)\n`,
    );
