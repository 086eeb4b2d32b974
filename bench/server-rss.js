#!/usr/bin/env node
// The real server's memory after every tool ran once (run after a build): `bourdon serve
// --transport http` on a copy of the 50-agent benchmark library (15.8 MB of YAML), each of the 15
// tools called once (the writes on agent-000: a commit, then explain and roll back that
// version), then the server's RSS (/proc/<pid>/status) at once, after 5 s and after 20 s idle
// (the serialising worker thread stops after 15 s idle). Linux only. Flags: --json.
import fs from 'node:fs';
import { callTool, scratchLibrary, startHttpServer } from './lib.js';

const asJson = process.argv.includes('--json');
const { library, home, registry, remove } = await scratchLibrary(50, 'bourdon-bench-rss-');
const token = registry.add('bench', { tier: 'trusted' }).token;

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

const server = await startHttpServer(library, {
  PATH: process.env.PATH,
  HOME: home,
  BOURDON_HOME: home,
  NO_COLOR: '1',
});
try {
  const loaded = rssMb(server.child.pid);
  for (const [name, args] of TOOLS) {
    const payload = await callTool(server.url, token, name, args);
    if (payload && typeof payload === 'object' && 'error' in payload && payload.error)
      throw new Error(`${name}: ${payload.error}`);
  }
  const after = rssMb(server.child.pid);
  await sleep(5000);
  const after5 = rssMb(server.child.pid);
  await sleep(15000);
  const after20 = rssMb(server.child.pid);
  const result = { loaded_mb: loaded, after_tools_mb: after, after_5s_mb: after5, after_20s_mb: after20 };
  if (asJson) process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  else
    process.stdout.write(
      `server RSS, 50 agents: ${loaded.toFixed(0)} MB loaded; after all 15 tools once ${after.toFixed(0)} MB; ` +
        `5 s later ${after5.toFixed(0)} MB; 20 s later ${after20.toFixed(0)} MB (goal ≤ 120)\n`,
    );
} finally {
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
  remove();
}
