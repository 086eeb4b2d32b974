#!/usr/bin/env node
// How long a live commit holds a server's event loop (run after a build): commits to agent-000
// of the 10-agent library at the schema maxima (~315 KB a manifest), in process, the way
// `bourdon serve` runs them — on the write thread, or with --on-loop on the event loop — with a
// read (find_entity) every --read-every ms meanwhile unless --no-reads. A 1 ms heartbeat reads
// the main thread's own CPU time (/proc/thread-self/schedstat, Linux), so each loop turn's CPU
// is measured whatever else the machine runs: the longest turns are what a read can wait
// behind. Reports the main thread's and the whole process's CPU per commit (a pass without the
// heartbeat), the longest turns and how many exceed 20 ms for commits alone, reads alone and
// both. schedstat is updated at scheduler ticks, so one turn's figure is ± a few ms.
// Flags: --commits <n> (default 10), --on-loop, --no-reads, --read-every <ms> (default 5), --json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { flagReader, ROOT, scratchLibrary } from './lib.js';

const args = process.argv.slice(2);
const flag = flagReader(args);
const commits = Number(flag('--commits', 10));
const readEvery = Number(flag('--read-every', 5));
const onLoop = args.includes('--on-loop');
const withReads = !args.includes('--no-reads');
const asJson = args.includes('--json');
const SCHEDSTAT = '/proc/thread-self/schedstat';
if (!fs.existsSync(SCHEDSTAT)) {
  process.stderr.write(`commit-loop: needs ${SCHEDSTAT} (Linux) to measure the main thread's CPU\n`);
  process.exit(2);
}
const dist = (file) => import(path.join(ROOT, 'dist', 'core', file));
const { LibraryStore } = await dist('store/library.js');
const { createContext } = await dist('context.js');
const { commitToFederation } = await dist('writes/commit.js');
const { findEntity } = await dist('operations/reads.js');
const { writeOffThread } = await dist('writes/write-thread.js');

const { library, home, remove } = await scratchLibrary(10, 'bourdon-bench-commit-loop-');
const env = { ...process.env, BOURDON_HOME: home };
delete env.BOURDON_HISTORY_KEEP;

writeOffThread(!onLoop);
const store = new LibraryStore(library, { warn: () => {}, freshness: { watch: true } });
const ctx = createContext(store, { warn: () => {}, env });
const read = () => findEntity(ctx, { name: 'Project sync 0', access_level: 'team' });
let serial = 0;
async function commit() {
  const answer = await commitToFederation(ctx, {
    agent_id: 'agent-000',
    entities: [{ name: `Loop ${process.pid} ${serial++}`, type: 'concept', summary: 'a row written under load' }],
  });
  if (answer.error) throw new Error(answer.error);
}

const threadCpuMs = () => Number(fs.readFileSync(SCHEDSTAT, 'utf8').split(' ')[0]) / 1e6;

/** The longest loop turns (main-thread CPU between two 1 ms heartbeats) while `body` runs. */
async function longestTurns(body) {
  const turns = [];
  let last = threadCpuMs();
  const heartbeat = setInterval(() => {
    const now = threadCpuMs();
    turns.push(now - last);
    last = now;
  }, 1);
  await body();
  clearInterval(heartbeat);
  return turns.sort((a, b) => b - a);
}

/** Reads every --read-every ms while `body` runs; how many were made. */
async function withReaders(body) {
  let reads = 0;
  const reader = setInterval(() => {
    reads += 1;
    void read();
  }, readEvery);
  await body();
  clearInterval(reader);
  return reads;
}

const commitAll = async () => {
  for (let index = 0; index < commits; index++) await commit();
};
const round = (value) => +value.toFixed(1);
const summary = (turns) => ({
  longest_ms: turns.slice(0, 5).map(round),
  over_20_ms: turns.filter((t) => t > 20).length,
});

try {
  // Warm: the first load of the library, the thread's start and its first parse.
  await read();
  await commit();
  await commit();
  // 1. Commits alone, no heartbeat: the main thread's CPU and the process's (both threads).
  const startMain = threadCpuMs();
  const startProcess = process.cpuUsage();
  const started = performance.now();
  await commitAll();
  const wall = performance.now() - started;
  const processCpu = process.cpuUsage(startProcess);
  const mainCpu = threadCpuMs() - startMain;
  // 2. Commits alone under the heartbeat. With --on-loop a commit never yields: the heartbeat
  // cannot run during it, and its whole main-thread CPU is one turn.
  const commitTurns = onLoop ? Array(commits).fill(mainCpu / commits) : await longestTurns(commitAll);
  // 3. Reads alone for as long, then reads and commits: a turn may hold several reads that queued.
  let readTurns = null;
  let mixedTurns = null;
  let reads = 0;
  if (withReads) {
    readTurns = await longestTurns(() => withReaders(() => new Promise((resolve) => setTimeout(resolve, wall))));
    mixedTurns = await longestTurns(async () => {
      reads = await withReaders(commitAll);
    });
  }
  const result = {
    commits_on: onLoop ? 'event loop' : 'write thread',
    commits,
    wall_ms_per_commit: Math.round(wall / commits),
    main_thread_cpu_ms_per_commit: round(mainCpu / commits),
    process_cpu_ms_per_commit: Math.round((processCpu.user + processCpu.system) / 1000 / commits),
    commit_turns: summary(commitTurns),
    read_turns: readTurns && summary(readTurns),
    read_and_commit_turns: mixedTurns && { ...summary(mixedTurns), reads },
    load_average: round(os.loadavg()[0]),
  };
  if (asJson) process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  else {
    const turns = (label, entry) =>
      entry ? `; ${label} longest turns ${entry.longest_ms.join('/')} ms (${entry.over_20_ms} over 20 ms)` : '';
    process.stdout.write(
      `commit-loop (commits on the ${result.commits_on}), ${commits} commits: main thread ${result.main_thread_cpu_ms_per_commit} ms CPU a commit, ` +
        `process ${result.process_cpu_ms_per_commit} ms, wall ${result.wall_ms_per_commit} ms` +
        turns('commits alone', result.commit_turns) +
        turns('reads alone', result.read_turns) +
        turns(`reads (${reads}) and commits`, result.read_and_commit_turns) +
        `; load ${result.load_average}\n`,
    );
  }
} finally {
  store.close();
  writeOffThread(false);
  remove();
}
