#!/usr/bin/env node
// Sync benchmark: a push and a pull that change one manifest of a 50-agent library (the main
// bench's library: 50 × 1,000 entities × 500 sessions × 50 notes, 15.8 MB), against a local bare
// remote, through the real binary (a spawned `bourdon`, node start included) and the real git.
// Budget: ≤ 2,000 ms each (issue: "a push or pull that changes one manifest ... ≤ 2 s").
// Usage: npm run build && node bench/sync.js [--runs 7] [--agents 50]
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateLibrary } from './generate.js';
import { flagReader, ROOT } from './lib.js';

const flag = flagReader();
const RUNS = Number(flag('--runs', '7'));
const AGENTS = Number(flag('--agents', '50'));
const BUDGET_MS = 2_000;
const BIN = path.join(ROOT, 'bin', 'run.js');

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bourdon-bench-sync-'));
const TIME = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
const cpuFile = path.join(work, 'cpu.txt');
try {
  const remote = path.join(work, 'team.git');
  execFileSync('git', ['init', '-q', '--bare', remote]);
  execFileSync('git', ['symbolic-ref', 'HEAD', 'refs/heads/main'], { cwd: remote });
  const machine = (name) => {
    const library = path.join(work, `lib-${name}`);
    fs.mkdirSync(path.join(library, 'agents'), { recursive: true });
    const env = {
      ...process.env,
      BOURDON_HOME: path.join(work, `home-${name}`),
      BOURDON_LOCAL_NAME: name,
      NO_COLOR: '1',
    };
    const run = (...args) => {
      const started = process.hrtime.bigint();
      const command = [process.execPath, BIN, ...args, '--library', library, '--json'];
      // CPU time of the process tree (node and every git it runs), when /usr/bin/time is there:
      // on a shared machine the wall time mostly measures the others' load.
      const result = TIME
        ? spawnSync(TIME, ['-f', '%U %S', '-o', cpuFile, ...command], { env, encoding: 'utf8' })
        : spawnSync(command[0], command.slice(1), { env, encoding: 'utf8' });
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (result.status !== 0) throw new Error(`${args.join(' ')}: ${result.stdout}${result.stderr}`);
      const cpu = TIME ? fs.readFileSync(cpuFile, 'utf8').trim().split('\n').pop().split(' ').map(Number) : [NaN, NaN];
      return { ms, cpuMs: (cpu[0] + cpu[1]) * 1000, payload: JSON.parse(result.stdout) };
    };
    return { library, run };
  };
  const laptop = machine('laptop');
  const desk = machine('desk');
  const generated = generateLibrary(laptop.library, { agents: AGENTS });
  process.stdout.write(`library: ${generated.agents} agents, ${(generated.bytes / 1e6).toFixed(1)} MB\n`);
  laptop.run('sync', 'init', remote);
  desk.run('sync', 'init', remote);
  const firstPush = laptop.run('sync', 'push', '--access-level', 'team');
  const firstPull = desk.run('sync', 'pull');
  process.stdout.write(
    `first push (every manifest): ${firstPush.ms.toFixed(0)} ms; first pull: ${firstPull.ms.toFixed(0)} ms\n`,
  );

  const target = path.join(laptop.library, 'agents', 'agent-000.l5.yaml');
  const original = fs.readFileSync(target, 'utf8');
  const pushes = [];
  const pulls = [];
  for (let run = 1; run <= RUNS; run++) {
    // One manifest changes: its first entity summary gets a new prefix.
    fs.writeFileSync(target, original.replace("summary: '", `summary: 'revision ${run} `));
    const push = laptop.run('sync', 'push', '--access-level', 'team');
    if (push.payload.changes.length !== 1)
      throw new Error(`expected one change, got ${JSON.stringify(push.payload.changes)}`);
    const pull = desk.run('sync', 'pull');
    if (pull.payload.machines[0].updated.length !== 1) throw new Error('expected one updated agent');
    pushes.push(push);
    pulls.push(pull);
  }
  const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
  const max = (list) => Math.max(...list);
  const row = (name, runs) => {
    const wall = runs.map((run) => run.ms);
    const cpu = runs.map((run) => run.cpuMs);
    const verdict = median(wall) <= BUDGET_MS ? 'pass' : 'FAIL';
    return `| ${name} | ${median(wall).toFixed(0)} ms | ${max(wall).toFixed(0)} ms | ${median(cpu).toFixed(0)} ms | ≤ ${BUDGET_MS} ms | ${verdict} |`;
  };
  process.stdout.write(
    [
      '',
      `${RUNS} runs, ${new Date().toISOString()}, Node ${process.version}, ${execFileSync('git', ['--version'], { encoding: 'utf8' }).trim()}, load average ${os
        .loadavg()
        .map((load) => load.toFixed(1))
        .join(' ')}`,
      '| measure | median (wall) | max (wall) | median CPU (node + git) | budget | verdict |',
      '|---|---:|---:|---:|---:|---|',
      row('`bourdon sync push`, one manifest changed', pushes),
      row('`bourdon sync pull`, one manifest changed', pulls),
      '',
    ].join('\n'),
  );
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
