#!/usr/bin/env node
// Codex participant benchmark: a generated Codex home of 2,000 rollouts (~100 MB) exported in
// process through dist/ (run `npm run build` first). Two layouts: the session index (every
// rollout read for its metadata, prompts, concepts and patches) and a state database naming every
// thread (rollout paths from the database). Reports the median of 5 runs after one warm-up.
//   --quick   200 rollouts (a smoke run, not for the README)
//   --json    print the results as JSON
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist');
const quick = process.argv.includes('--quick');
const asJson = process.argv.includes('--json');
const ROLLOUTS = quick ? 200 : 2000;
const ROLLOUT_BYTES = 50_000;
// v2: the state layout's rollouts lie in its own Codex home (v1 named the index home's, which the
// confinement to the Codex home refuses: that layout read no rollout, 2,000 warnings).
const DATA = path.join(ROOT, '.bench-data', `codex-${ROLLOUTS}-v2`);
const RUNS = 5;
const BUDGET_MS = 5000;

/** A seeded PRNG (mulberry32) so every generated home is the same. */
function prng(seed) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PROJECTS = ['harbour', 'lantern', 'orchard', 'quarry', 'bourdon', 'atlas', 'meadow', 'signal'];
const WORDS = 'fix add refactor test build deploy review migrate document tune the lights report pipeline cache'.split(
  ' ',
);

function rolloutText(random, id, timestamp, cwd) {
  const lines = [
    JSON.stringify({ timestamp, type: 'session_meta', payload: { id, timestamp, cwd, originator: 'codex_cli_rs' } }),
  ];
  const say = (text) =>
    JSON.stringify({
      timestamp,
      type: 'response_item',
      payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
    });
  const words = (n) => Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');
  lines.push(
    say(`Please ${words(8)} in ${path.basename(cwd)}${random() < 0.1 ? ' for Bourdon runtime recognition' : ''}`),
  );
  let size = lines.reduce((sum, line) => sum + line.length + 1, 0);
  let turn = 0;
  while (size < ROLLOUT_BYTES) {
    const line =
      turn % 5 === 0
        ? JSON.stringify({
            type: 'response_item',
            payload: {
              type: 'function_call',
              name: 'apply_patch',
              arguments: `*** Begin Patch\n*** Update File: src/${words(1)}.ts\n@@\n-a\n+b\n*** End Patch`,
            },
          })
        : turn % 5 === 1
          ? say(words(20))
          : JSON.stringify({
              type: 'response_item',
              payload: { type: 'function_call_output', output: words(200 + Math.floor(random() * 400)) },
            });
    lines.push(line);
    size += line.length + 1;
    turn++;
  }
  return lines.join('\n');
}

async function generate(dir) {
  const random = prng(42);
  const codex = path.join(dir, 'index-home', '.codex');
  const index = [];
  const threads = [];
  for (let i = 0; i < ROLLOUTS; i++) {
    const when = new Date(Date.UTC(2026, 0, 1) + i * 3_600_000 * 2);
    const timestamp = when.toISOString();
    const id = `0199a1b2-0000-7000-8000-${String(i).padStart(12, '0')}`;
    const day = timestamp.slice(0, 10).split('-');
    const name = `rollout-${timestamp.slice(0, 19).replaceAll(':', '-')}-${id}.jsonl`;
    const relative = path.join('sessions', ...day, name);
    const cwd = `/home/dev/src/${PROJECTS[i % PROJECTS.length]}`;
    fs.mkdirSync(path.join(codex, 'sessions', ...day), { recursive: true });
    fs.writeFileSync(path.join(codex, relative), rolloutText(random, id, timestamp, cwd));
    index.push(
      JSON.stringify({ id, thread_name: `Work on ${PROJECTS[i % PROJECTS.length]} ${i}`, updated_at: timestamp }),
    );
    threads.push({ id, title: `Work on ${PROJECTS[i % PROJECTS.length]} ${i}`, cwd, relative, ms: when.getTime() });
  }
  fs.writeFileSync(path.join(codex, 'session_index.jsonl'), index.join('\n'));
  // The same rollouts (hard links: the same files, inside this Codex home), named by a state
  // database instead of the index.
  const stateCodex = path.join(dir, 'state-home', '.codex');
  fs.mkdirSync(stateCodex, { recursive: true });
  for (const t of threads) {
    fs.mkdirSync(path.dirname(path.join(stateCodex, t.relative)), { recursive: true });
    fs.linkSync(path.join(codex, t.relative), path.join(stateCodex, t.relative));
  }
  const SQL = await createRequire(import.meta.url)('sql.js')();
  const db = new SQL.Database();
  db.run(
    'CREATE TABLE threads (id TEXT PRIMARY KEY, title TEXT, first_user_message TEXT, cwd TEXT, rollout_path TEXT, updated_at_ms INTEGER)',
  );
  for (const t of threads) {
    db.run('INSERT INTO threads VALUES (?, ?, ?, ?, ?, ?)', [
      t.id,
      t.title,
      null,
      t.cwd,
      path.join(stateCodex, t.relative),
      t.ms,
    ]);
  }
  fs.writeFileSync(path.join(stateCodex, 'state_5.sqlite'), db.export());
  db.close();
  fs.writeFileSync(path.join(dir, 'done'), '');
}

function treeBytes(dir) {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += fs.statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return total;
}

if (!fs.existsSync(path.join(DIST, 'participants', 'codex', 'index.js'))) {
  process.stderr.write('bench: run `npm run build` first\n');
  process.exit(1);
}
if (!fs.existsSync(path.join(DATA, 'done'))) {
  process.stderr.write(`bench: generating ${ROLLOUTS} rollouts in ${DATA} …\n`);
  fs.rmSync(DATA, { recursive: true, force: true });
  await generate(DATA);
}
const { codexParticipant } = await import(path.join(DIST, 'participants', 'codex', 'index.js'));

async function measure(label, home, env = {}) {
  const environment = {
    home,
    env: { HOME: home, ...env },
    cwd: home,
    now: new Date('2026-05-01T12:00:00Z'),
    hostname: 'bench',
    platform: 'linux',
  };
  const first = await codexParticipant.export(environment);
  const samples = [];
  const cpu = [];
  for (let i = 0; i < RUNS; i++) {
    const start = process.hrtime.bigint();
    const cpuStart = process.cpuUsage();
    await codexParticipant.export(environment);
    const used = process.cpuUsage(cpuStart);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
    cpu.push((used.user + used.system) / 1000);
  }
  samples.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return {
    label,
    median_ms: Math.round(samples[Math.floor(samples.length / 2)]),
    max_ms: Math.round(samples[samples.length - 1]),
    cpu_median_ms: Math.round(cpu[Math.floor(cpu.length / 2)]),
    sessions: first.manifest?.recent_sessions?.length ?? 0,
    entities: first.manifest?.known_entities?.length ?? 0,
    warnings: first.warnings.length,
    budget_ms: BUDGET_MS,
  };
}

const indexHome = path.join(DATA, 'index-home');
const results = [
  await measure('session index + rollouts', indexHome),
  // The state home's database names the rollouts in it; CODEX_HOME there and HOME above both.
  await measure('state database + rollouts', path.join(DATA), { CODEX_HOME: path.join(DATA, 'state-home', '.codex') }),
];
const megabytes = (treeBytes(path.join(indexHome, '.codex', 'sessions')) / 1e6).toFixed(1);
if (asJson) {
  process.stdout.write(`${JSON.stringify({ rollouts: ROLLOUTS, megabytes, results }, null, 2)}\n`);
} else {
  process.stdout.write(
    `codex home: ${ROLLOUTS} rollouts, ${megabytes} MB; node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}\n`,
  );
  for (const r of results) {
    const verdict = r.median_ms <= r.budget_ms ? 'pass' : 'FAIL';
    process.stdout.write(
      `${r.label.padEnd(30)} median ${String(r.median_ms).padStart(6)} ms  max ${String(r.max_ms).padStart(6)} ms  ` +
        `CPU ${String(r.cpu_median_ms).padStart(6)} ms  ` +
        `≤ ${r.budget_ms} ms ${verdict}  (${r.sessions} sessions, ${r.entities} entities, ${r.warnings} warnings)\n`,
    );
  }
}
