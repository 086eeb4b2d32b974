#!/usr/bin/env node
// Export speed of the participants this file knows (npm run bench:participants): a generated
// home with 1,000 Claude Code auto-memory notes (over 10 project folders), 100 brain projects and
// 100 session logs, and a 50 MB MCP memory graph; each export runs the real binary
// (`bourdon <participant> export --out …`), cold (a new process each run), median of 5.
// Budget (issue: ≤ 5 s each on the project's 2-core machine).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'run.js');
const RUNS = 5;
const BUDGET_MS = 5000;
const asJson = process.argv.includes('--json');

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'bourdon-bench-participants-'));
const write = (relative, text) => {
  const file = path.join(home, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};
const words = (n, seed) => Array.from({ length: n }, (_, i) => `word${(i * 7 + seed) % 97}`).join(' ');

for (let project = 0; project < 10; project += 1) {
  const dir = `.claude/projects/-work-p${project}/memory`;
  write(`${dir}/MEMORY.md`, '# index\n');
  for (let note = 0; note < 100; note += 1) {
    const n = project * 100 + note;
    write(
      `${dir}/note_${n}.md`,
      `---\nname: "Topic ${n}"\ntype: ${n % 3 ? 'project' : 'feedback'}\ndescription: "${words(30, n)}"\ntags: [t${n % 10}, bench]\n---\n\n${words(200, n)}\n`,
    );
  }
}
for (let n = 0; n < 100; n += 1) {
  write(`claude-brain/PROJECTS/P${n}/OVERVIEW.md`, `# Project ${n}\n\n${words(80, n)}\n\n## Status\n\nActive.\n`);
  write(`claude-brain/LOG/2026-04-${String((n % 28) + 1).padStart(2, '0')}-m${n}.md`, `${words(40, n)}\n`);
}
// A graph of about 50 MB: 24 observations per entity, of which the summary keeps two, so the
// manifest stays under the library's 8 MiB per-manifest limit.
const graph = path.join(home, 'graph.jsonl');
const lines = [];
let bytes = 0;
for (let n = 0; bytes < 50 * 1024 * 1024; n += 1) {
  const line = JSON.stringify({
    type: 'entity',
    name: `Entity ${n}`,
    entityType: 'thing',
    observations: Array.from({ length: 24 }, (_, i) => words(i ? 30 : 12, n + i)),
  });
  lines.push(line);
  bytes += line.length + 1;
  if (lines.length === 10_000) {
    fs.appendFileSync(graph, lines.join('\n') + '\n');
    lines.length = 0;
  }
}
if (lines.length) fs.appendFileSync(graph, lines.join('\n') + '\n');

/**
 * Median wall and CPU time (user + system, from bash's `time`) of a cold export. On a shared,
 * loaded machine the wall time mostly measures the queue for a core; the CPU time is what the
 * export costs, and what it takes on an idle core.
 */
function run(args, extraEnv = {}) {
  const wall = [];
  const cpu = [];
  const out = path.join(home, 'out.yaml');
  const command = [process.execPath, BIN, ...args, '--out', out].map((word) => `'${word}'`).join(' ');
  for (let i = 0; i < RUNS; i += 1) {
    const start = process.hrtime.bigint();
    const result = spawnSync('bash', ['-c', `TIMEFORMAT='%3U %3S'; time (${command} >/dev/null)`], {
      cwd: home,
      env: { PATH: process.env.PATH, HOME: home, BOURDON_HOME: path.join(home, '.bourdon'), ...extraEnv },
      encoding: 'utf8',
    });
    wall.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (result.status !== 0) throw new Error(`${args.join(' ')} failed: ${result.stderr}`);
    const [user, system] = result.stderr.trim().split('\n').pop().split(' ').map(Number);
    cpu.push((user + system) * 1000);
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  return { wall_ms: Math.round(median(wall)), cpu_ms: Math.round(median(cpu)) };
}

const results = [
  { name: 'claude-code export (1,000 notes, 100 projects, 100 logs)', ...run(['claude-code', 'export']) },
  { name: 'mcp-memory export (50 MB graph)', ...run(['mcp-memory', 'export', '--file', graph]) },
].map((result) => ({ ...result, budget_ms: BUDGET_MS, pass: result.cpu_ms <= BUDGET_MS }));

fs.rmSync(home, { recursive: true, force: true });
// The machine is shared: the load average says how much of the wall time was waiting for a core.
const load = os.loadavg()[0].toFixed(1);
if (asJson) process.stdout.write(JSON.stringify({ cores: os.cpus().length, load, results }, null, 2) + '\n');
else {
  process.stdout.write(`${os.cpus().length} cores, load average ${load}; budget on CPU time\n`);
  for (const r of results) {
    const line = `${r.name.padEnd(58)} cpu ${String(r.cpu_ms).padStart(5)} ms  wall ${String(r.wall_ms).padStart(5)} ms`;
    process.stdout.write(`${line}  ≤ ${r.budget_ms} ms  ${r.pass ? 'pass' : 'FAIL'}\n`);
  }
}
if (results.some((r) => !r.pass)) process.exitCode = 1;
