#!/usr/bin/env node
// Search against the official MCP memory server (@modelcontextprotocol/server-memory, a
// devDependency), run after a build: the same public entities of a bench library are loaded
// into both servers — ours reads the library's YAML, the memory server a JSONL file
// (MEMORY_FILE_PATH) holding one entity per name, each agent's summary and aliases as its
// observations — and one real MCP client calls our `find_entity` and its `search_nodes` over
// stdio with the same names in the same order. Reported per search: the client's round trip
// (median and p95) and the server's CPU (user + system from /proc/<pid>/stat over the timed
// calls, divided by their number; Linux only), in rounds that alternate the two servers so a
// change in machine load hits both alike. `npm run bench` runs it on its library; alone:
//   node bench/memory-server.js [--agents 10] [--runs 100] [--rounds 3] [--json]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { generateLibrary } from './generate.js';
import { flagReader, ROOT } from './lib.js';

export const MEMORY_SERVER = path.join(
  ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'server-memory',
  'dist',
  'index.js',
);
/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

function cpuMs(pid) {
  // Fields after the command name (which may hold spaces, so split after its closing paren).
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

export function rssMb(pid) {
  return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
}

/**
 * The memory server's JSONL for the library's public entities, and the names to search:
 * `{ file, entities, bytes, names }`.
 */
export async function memoryFileFor(library, dir) {
  const { LibraryStore } = await import(pathToFileURL(path.join(ROOT, 'dist', 'core', 'store', 'library.js')).href);
  const store = new LibraryStore(library, { warn: () => {} });
  const byName = new Map();
  for (const agent of store.snapshot().agents) {
    for (const entity of agent.entities) {
      if (entity.visibility !== 'public') continue;
      let row = byName.get(entity.name);
      if (!row) {
        row = { type: 'entity', name: entity.name, entityType: entity.type ?? 'entity', observations: [] };
        byName.set(entity.name, row);
      }
      if (entity.summary) row.observations.push(`${agent.id}: ${entity.summary}`);
      for (const alias of entity.aliases) row.observations.push(`${agent.id} alias: ${alias}`);
    }
  }
  const rows = [...byName.values()];
  const file = path.join(dir, 'memory.jsonl');
  const text = rows.map((row) => JSON.stringify(row)).join('\n') + '\n';
  fs.writeFileSync(file, text);
  // Twenty names spread over the graph, and one that matches nothing.
  const step = Math.max(1, Math.floor(rows.length / 20));
  const names = rows
    .filter((_, i) => i % step === 0)
    .slice(0, 20)
    .map((row) => row.name);
  names.push('nothing like this name');
  return { file, entities: rows.length, bytes: Buffer.byteLength(text), names };
}

/**
 * The queries bench/search.js and bench/search-ab.js search for: whole names, a misspelt word,
 * two words of names, nothing.
 */
export function queriesFor(names) {
  const words = names.flatMap((name) => name.split(' ')).filter((word) => /^[a-z]{4,}$/.test(word));
  const typo = (word) => word.slice(0, 2) + word[3] + word[2] + word.slice(4);
  return [...names.slice(0, 8), `${words[0]} ${words[1]}`, typo(words[2] ?? 'ledger'), 'nothing like this name'];
}

export async function connect(name, command, args, env) {
  const { Client } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  const client = new Client({ name: 'bench-memory', version: '1' });
  const transport = new StdioClientTransport({ command, args, env: { ...process.env, ...env }, stderr: 'ignore' });
  await client.connect(transport);
  return { name, client, pid: transport.pid };
}

/** One timed pass: `runs` calls cycling through the names; wall samples (ms) and server CPU (ms). */
export async function pass(server, tool, argsFor, names, runs) {
  const samples = [];
  let answerBytes = 0;
  const before = cpuMs(server.pid);
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    const result = await server.client.callTool({ name: tool, arguments: argsFor(names[i % names.length]) });
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (result.isError) throw new Error(`${server.name} ${tool} failed: ${JSON.stringify(result).slice(0, 300)}`);
    answerBytes += Buffer.byteLength(JSON.stringify(result.content));
  }
  return { samples, cpu: cpuMs(server.pid) - before, answerBytes };
}

/** Calls a warm-up makes in one block before the next plan's (warmUp). */
const WARM_BLOCK = 100;

/**
 * `calls` calls of each plan (`{ tool, argsFor, list }`), in alternating blocks of WARM_BLOCK,
 * untimed: a server's code reaches V8's optimised tiers only after thousands of calls. Measured
 * on 2026-12-06 (bench/README.md, "Warm to the end"): find_entity's median fell from 1.55 to
 * 0.45 ms over its first 1,500 calls, search_memory's from 3.2 to 2.1 ms; medians taken within
 * the first few hundred calls set a server still compiling against itself.
 */
export async function warmUp(server, plans, calls) {
  for (let done = 0; done < calls; done += WARM_BLOCK)
    for (const { tool, argsFor, list } of plans)
      await pass(server, tool, argsFor, list, Math.min(WARM_BLOCK, calls - done));
}

export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const p95 = (values) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.95))];
const round = (ms) => Math.round(ms * 1000) / 1000;

/**
 * Runs the comparison on `library` (its public entities) and returns one result per server:
 * `{ server, tool, entities, memory_file_bytes, median_ms, p95_ms, cpu_ms_per_search,
 * answer_bytes_per_search, rss_mb, runs }`, plus `ratio` (memory server ÷ ours) on each figure.
 */
export async function compareWithMemoryServer({ library, home, runs = 100, rounds = 3 }) {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bourdon-bench-memory-'));
  try {
    const memory = await memoryFileFor(library, scratch);
    const ours = await connect(
      'bourdon',
      process.execPath,
      [path.join(ROOT, 'bin', 'run.js'), 'serve', '--library', library],
      {
        BOURDON_HOME: home,
        BOURDON_AUDIT_PATH: path.join(scratch, 'audit.jsonl'),
      },
    );
    const theirs = await connect('server-memory', process.execPath, [MEMORY_SERVER], { MEMORY_FILE_PATH: memory.file });
    const plans = [
      { server: ours, tool: 'find_entity', args: (name) => ({ name }) },
      { server: theirs, tool: 'search_nodes', args: (name) => ({ query: name }) },
    ];
    const totals = plans.map(() => ({ samples: [], cpu: 0, answerBytes: 0 }));
    for (const plan of plans) await pass(plan.server, plan.tool, plan.args, memory.names, 10); // warm-up
    for (let r = 0; r < rounds; r++) {
      for (const [i, plan] of plans.entries()) {
        const one = await pass(plan.server, plan.tool, plan.args, memory.names, runs);
        totals[i].samples.push(...one.samples);
        totals[i].cpu += one.cpu;
        totals[i].answerBytes += one.answerBytes;
      }
    }
    const results = plans.map((plan, i) => {
      const n = totals[i].samples.length;
      return {
        server: plan.server.name,
        tool: plan.tool,
        entities: memory.entities,
        memory_file_bytes: memory.bytes,
        median_ms: round(median(totals[i].samples)),
        p95_ms: round(p95(totals[i].samples)),
        cpu_ms_per_search: round(totals[i].cpu / n),
        answer_bytes_per_search: Math.round(totals[i].answerBytes / n),
        rss_mb: Math.round(rssMb(plan.server.pid)),
        runs: n,
      };
    });
    const [a, b] = results;
    const ratio = (key) => (a[key] > 0 ? Math.round((b[key] / a[key]) * 10) / 10 : null);
    for (const key of ['median_ms', 'p95_ms', 'cpu_ms_per_search']) b[`ratio_${key}`] = ratio(key);
    await ours.client.close();
    await theirs.client.close();
    return results;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** The comparison as lines of text. */
export function describeComparison(results) {
  const lines = results.map(
    (r) =>
      `${`${r.server} ${r.tool}`.padEnd(28)} median ${r.median_ms.toFixed(2).padStart(8)} ms  p95 ${r.p95_ms
        .toFixed(2)
        .padStart(8)} ms  CPU ${r.cpu_ms_per_search.toFixed(2).padStart(7)} ms/search  answer ${String(
        r.answer_bytes_per_search,
      ).padStart(6)} B  RSS ${r.rss_mb} MB`,
  );
  const theirs = results[1];
  lines.push(
    `memory server ÷ bourdon: median ${theirs.ratio_median_ms}×, p95 ${theirs.ratio_p95_ms}×, CPU ${theirs.ratio_cpu_ms_per_search}× ` +
      `(${results[0].entities} public entities, JSONL ${(results[0].memory_file_bytes / 1e6).toFixed(1)} MB, ${results[0].runs} searches each)`,
  );
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const flag = flagReader();
  const agents = Number(flag('--agents', '10'));
  const library = path.join(ROOT, '.bench-data', `library-${agents}`);
  if (!fs.existsSync(path.join(library, 'agents'))) generateLibrary(library, { agents });
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'bourdon-bench-memory-home-'));
  try {
    const results = await compareWithMemoryServer({
      library,
      home,
      runs: Number(flag('--runs', '100')),
      rounds: Number(flag('--rounds', '3')),
    });
    process.stdout.write(
      process.argv.includes('--json')
        ? JSON.stringify({ agents, results }, null, 2) + '\n'
        : `library: ${agents} agents\n${describeComparison(results)}\n`,
    );
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}
