#!/usr/bin/env node
// The real server's memory, as ratios taken in one run (run after a build; Linux only):
//  - `bourdon serve --transport http` on a copy of the 50-agent benchmark library (15.8 MB of
//    YAML) and on the 2-agent one, each of the 15 tools called once (the writes on agent-000: a
//    commit, then explain and roll back that version);
//  - the SDK's echo floor (bench/echo-server.js: same SDK, same transport, 15 echo tools), each
//    echo tool called once.
// RSS from /proc/<pid>/status once loaded, right after the calls, and 5 s and 20 s later (the
// write thread stops when idle). Goals (issue 34): 50 agents ≤ 1.25× 2 agents, and 2 agents ≤
// 1.5× the echo floor, both right after the calls. Flags: --json, --rounds <n> (default 1; each
// round measures the three servers again, one after the other).
import fs from 'node:fs';
import {
  callTool,
  flagReader,
  mcpCallBody,
  mcpCallHeaders,
  scratchLibrary,
  startEchoServer,
  startHttpServer,
} from './lib.js';

const asJson = process.argv.includes('--json');
const rounds = Number(flagReader()('--rounds', '1'));
const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const TOOLS = [
  ['find_entity', { name: 'Project sync 0', access_level: 'team' }],
  ['query_agent_memory', { agent: 'agent-001', topic: 'Project sync 0', access_level: 'team' }],
  ['list_recent_work', { since: '2026-01-01', limit: 20 }],
  ['get_cross_agent_summary', { project: 'Project sync 0' }],
  ['prepare_recognition_context', { prompt: 'what about the sync engine and the release train?' }],
  ['compile_codex_turn', { prompt: 'hello' }],
  ['get_deeper_context', { prompt: 'hello' }],
  ['list_agents', {}],
  ['export_agents', {}],
  ['list_notes', { since: '2026-01-01', limit: 10 }],
  ['list_workstreams', { limit: 10 }],
  ['commit_to_federation', { agent_id: 'agent-000', entities: [{ name: 'RSS probe', type: 'concept' }] }],
  ['list_memory_versions', { agent_id: 'agent-000' }],
  ['explain_memory_change', { agent_id: 'agent-000', version: 2 }],
  ['rollback_agent_memory', { agent_id: 'agent-000', version: 1, reason: 'bench' }],
];

/** RSS of a started server `{ child }` once loaded, after `calls()`, and 5 s and 20 s later. */
async function follow(server, calls) {
  try {
    const loaded = rssMb(server.child.pid);
    await calls();
    const after = rssMb(server.child.pid);
    await sleep(5000);
    const after5 = rssMb(server.child.pid);
    await sleep(15000);
    const after20 = rssMb(server.child.pid);
    return { loaded_mb: loaded, after_calls_mb: after, after_5s_mb: after5, after_20s_mb: after20 };
  } finally {
    const exited = new Promise((resolve) => server.child.once('exit', resolve));
    server.child.kill('SIGTERM');
    await exited;
  }
}

async function bourdon(agents) {
  const { library, home, registry, remove } = await scratchLibrary(agents, `bourdon-bench-rss-${agents}-`);
  const token = registry.add('bench', { tier: 'trusted' }).token;
  try {
    const server = await startHttpServer(library, {
      PATH: process.env.PATH,
      HOME: home,
      BOURDON_HOME: home,
      NO_COLOR: '1',
    });
    return await follow(server, async () => {
      for (const [name, args] of TOOLS) {
        const payload = await callTool(server.url, token, name, args);
        if (payload && typeof payload === 'object' && 'error' in payload && payload.error)
          throw new Error(`${name}: ${payload.error}`);
      }
    });
  } finally {
    remove();
  }
}

async function echo() {
  const server = await startEchoServer({ PATH: process.env.PATH });
  return follow(server, async () => {
    for (let i = 0; i < 15; i++) {
      const response = await fetch(server.url, {
        method: 'POST',
        headers: mcpCallHeaders(`echo_${i}`),
        body: mcpCallBody(`echo_${i}`, { text: 'hello' }),
      });
      if (!response.ok) throw new Error(`echo_${i}: ${response.status} ${await response.text()}`);
      await response.text();
    }
  });
}

const runs = [];
for (let round = 0; round < rounds; round++) {
  const full = await bourdon(50);
  const small = await bourdon(2);
  const floor = await echo();
  const run = {
    agents_50: full,
    agents_2: small,
    echo_floor: floor,
    ratio_50_to_2: full.after_calls_mb / small.after_calls_mb,
    ratio_2_to_echo: small.after_calls_mb / floor.after_calls_mb,
  };
  runs.push(run);
  if (!asJson) {
    const line = (label, m) =>
      `  ${label.padEnd(22)} ${m.loaded_mb.toFixed(0).padStart(4)} MB loaded, ${m.after_calls_mb.toFixed(0).padStart(4)} MB after the calls, ` +
      `${m.after_5s_mb.toFixed(0).padStart(4)} MB 5 s later, ${m.after_20s_mb.toFixed(0).padStart(4)} MB 20 s later\n`;
    const verdict = (ok) => (ok ? 'met' : 'NOT met');
    process.stdout.write(
      `server RSS${rounds > 1 ? `, round ${round + 1} of ${rounds}` : ''}:\n` +
        line('bourdon, 50 agents', full) +
        line('bourdon, 2 agents', small) +
        line('SDK echo floor', floor) +
        `  50 agents ÷ 2 agents ${run.ratio_50_to_2.toFixed(2)}× (goal ≤ 1.25×: ${verdict(run.ratio_50_to_2 <= 1.25)}); ` +
        `2 agents ÷ echo ${run.ratio_2_to_echo.toFixed(2)}× (goal ≤ 1.5×: ${verdict(run.ratio_2_to_echo <= 1.5)})\n`,
    );
  }
}
if (asJson) process.stdout.write(JSON.stringify(rounds === 1 ? runs[0] : runs, null, 2) + '\n');
