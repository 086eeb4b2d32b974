#!/usr/bin/env node
// Export speed and memory of the participants (npm run bench:participants): a generated home
// with 1,000 Claude Code auto-memory notes (over 10 project folders), 100 brain projects and 100
// session logs, and a 50 MB MCP memory graph; then, each in a home of its own
// (bench/participant-homes.js), issue 40's nine file-based participants on the largest input a
// user of each realistically has. Each export runs the real binary (`bourdon <participant>
// export --out …`), cold (a new process each run), median of --runs (5): CPU time (user +
// system) and wall time from bash's `time`, peak RSS from GNU time. Budget (issue 40): ≤ 5 s
// and ≤ 300 MB each. `--only a,b` runs those participants alone; `--scale 2` gives the four
// automation participants a home 4 times larger (200 automations × 100 runs); `--json` prints JSON.
// (openclaw, the network source, has bench/participants-openclaw.js; codex and cursor theirs.)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HOMES, words } from './participant-homes.js';
import { flagReader, measureExport } from './lib.js';

const flag = flagReader();
const RUNS = Number(flag('--runs', '5'));
const ONLY = flag('--only', '') ? flag('--only', '').split(',') : null;
const SCALE = Number(flag('--scale', '1'));
const BUDGET_MS = 5000;
const BUDGET_RSS_MB = 300;
const asJson = process.argv.includes('--json');
const wanted = (id) => ONLY === null || ONLY.includes(id);

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'bourdon-bench-participants-'));
const write = (relative, text) => {
  const file = path.join(home, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};

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

/** A cold export in `dir` (its own HOME and BOURDON_HOME), measured by lib.js. */
const run = (dir, args, extraEnv = {}) =>
  measureExport(args, {
    cwd: dir,
    env: { HOME: dir, BOURDON_HOME: path.join(dir, '.bourdon'), ...extraEnv },
    runs: RUNS,
  });

const results = [];
if (wanted('claude-code'))
  results.push({
    name: 'claude-code (1,000 notes, 100 projects, 100 logs)',
    ...(await run(home, ['claude-code', 'export'])),
  });
if (wanted('mcp-memory'))
  results.push({ name: 'mcp-memory (50 MB graph)', ...(await run(home, ['mcp-memory', 'export', '--file', graph])) });
fs.rmSync(home, { recursive: true, force: true });
for (const [id, make] of Object.entries(HOMES)) {
  if (!wanted(id)) continue;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `bourdon-bench-${id}-`));
  try {
    const made = make(dir, SCALE);
    results.push({ name: `${id} (${made})`, ...(await run(dir, [id, 'export'])) });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
for (const result of results)
  result.pass = result.cpu_ms <= BUDGET_MS && (result.rss_mb === null || result.rss_mb <= BUDGET_RSS_MB);

// The machine is shared: the load average says how much of the wall time was waiting for a core.
const load = os.loadavg().map((n) => n.toFixed(1));
if (asJson)
  process.stdout.write(JSON.stringify({ cores: os.cpus().length, load, runs: RUNS, results }, null, 2) + '\n');
else {
  process.stdout.write(
    `${os.cpus().length} cores, load average ${load.join(' ')}; median of ${RUNS}; budget ≤ ${BUDGET_MS} ms CPU, ≤ ${BUDGET_RSS_MB} MB RSS\n`,
  );
  for (const r of results) {
    const rss = r.rss_mb === null ? 'rss ?' : `rss ${String(r.rss_mb).padStart(3)} MB`;
    process.stdout.write(
      `${r.name}\n    cpu ${String(r.cpu_ms).padStart(5)} ms  wall ${String(r.wall_ms).padStart(5)} ms  ${rss}  ${r.pass ? 'pass' : 'FAIL'}\n`,
    );
  }
}
if (results.some((r) => !r.pass)) process.exitCode = 1;
