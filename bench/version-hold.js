#!/usr/bin/env node
// How long a reader waits while another member explains a version or rolls one back (run after
// a build): `bourdon serve --transport http` on a copy of the 50-agent library, one commit to
// agent-000, then explain_memory_change, rollback_agent_memory and explain again, each while a
// second member calls find_entity back to back. Prints each call's time and the reader's median
// and worst wait. --on-loop runs the server with BOURDON_WRITE_ON_LOOP=1 (no write thread), to
// compare. The two callers are different members: one member's calls queue behind each other.
import { callTool, scratchLibrary, startHttpServer } from './lib.js';

const onLoop = process.argv.includes('--on-loop');
const { library, home, registry, remove } = await scratchLibrary(50, 'bourdon-bench-hold-');
const writer = registry.add('writer', { tier: 'trusted' }).token;
const reader = registry.add('reader', { tier: 'trusted' }).token;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const env = { PATH: process.env.PATH, HOME: home, BOURDON_HOME: home, NO_COLOR: '1' };
if (onLoop) env.BOURDON_WRITE_ON_LOOP = '1';
const server = await startHttpServer(library, env);
try {
  const read = () => callTool(server.url, reader, 'find_entity', { name: 'Project sync 0' });
  for (let i = 0; i < 20; i++) await read(); // the indexes are built
  await callTool(server.url, writer, 'commit_to_federation', {
    agent_id: 'agent-000',
    entities: [{ name: 'Hold probe', type: 'concept' }],
  });
  await sleep(300);
  const steps = [
    ['explain_memory_change', { agent_id: 'agent-000', version: 2 }],
    ['rollback_agent_memory', { agent_id: 'agent-000', version: 1, reason: 'bench' }],
    ['explain_memory_change', { agent_id: 'agent-000', version: 3 }],
  ];
  for (const [name, args] of steps) {
    let done = false;
    const waits = [];
    const reading = (async () => {
      while (!done) {
        const started = performance.now();
        await read();
        waits.push(performance.now() - started);
      }
    })();
    await sleep(100);
    const started = performance.now();
    await callTool(server.url, writer, name, args);
    const took = performance.now() - started;
    await sleep(150);
    done = true;
    await reading;
    waits.sort((a, b) => a - b);
    process.stdout.write(
      `${onLoop ? 'on the loop' : 'on the write thread'}: ${name} took ${took.toFixed(0)} ms; the reader's ` +
        `${waits.length} reads meanwhile: median ${waits[waits.length >> 1].toFixed(1)} ms, worst ${waits[waits.length - 1].toFixed(1)} ms\n`,
    );
  }
} finally {
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
  remove();
}
