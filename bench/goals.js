#!/usr/bin/env node
// The server goals' benches, one after another (run after a build; `npm run bench` runs this
// after bench/run.js): per-request cost and paging against library size, the warm one-shot CLI
// find at 10 and 1,000 agents (scaling.js), history growth, reads during a writer (overlap.js)
// and during another member's explain and rollback (version-hold.js),
// HTTP cost against the SDK's floor and the spread at 64 clients (http-floor.js), and the real
// server's memory after every tool (server-rss.js). Each bench prints its own figures; this
// prints the load average before each, since a busy machine moves wall-clock figures.
// Flags: --rounds <n> runs the whole set n times (default 1; the README's figures are 3).
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const at = process.argv.indexOf('--rounds');
const rounds = at > 0 ? Number(process.argv[at + 1]) : 1;
if (!Number.isInteger(rounds) || rounds < 1) {
  process.stderr.write('goals.js: --rounds takes a whole number of at least 1\n');
  process.exit(2);
}

const BENCHES = [
  ['scaling.js', []],
  ['history-growth.js', []],
  ['overlap.js', []],
  ['version-hold.js', []],
  ['http-floor.js', []],
  ['server-rss.js', []],
];

let failed = 0;
for (let round = 1; round <= rounds; round++) {
  for (const [script, args] of BENCHES) {
    const load = os
      .loadavg()
      .map((n) => n.toFixed(2))
      .join(' ');
    process.stdout.write(
      `\n== ${script}${rounds > 1 ? ` (round ${round} of ${rounds})` : ''}, ${new Date().toISOString()}, load ${load}\n`,
    );
    const run = spawnSync(process.execPath, [path.join(HERE, script), ...args], { stdio: 'inherit' });
    if (run.status !== 0) {
      failed++;
      process.stdout.write(`${script} exited with ${run.status ?? run.signal}\n`);
    }
  }
}
process.exit(failed ? 1 : 0);
