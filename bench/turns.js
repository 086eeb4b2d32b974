#!/usr/bin/env node
// compile_codex_turn at scale (run after a build): a brief is compiled on every Codex turn, so it
// must stay small next to the turn. The 50-agent benchmark library (bench/generate.js: 50,000
// entities, 25,000 sessions), a Codex home whose state_5.sqlite holds 5,000 threads and 5,000
// memory jobs, and a git repository as the turn's folder. Measures, in process (the handler the
// MCP tool and the CLI call): the first brief (the library's per-level preparation and the
// database load), then warm briefs over four prompts; then the same through `bourdon serve` over
// stdio with a real MCP client. Budget: 50 ms warm (median). Flags: --runs <n> (default 200).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { generateLibrary } from './generate.js';
import { flagReader, ROOT } from './lib.js';

const flag = flagReader();
const RUNS = Number(flag('--runs', '200'));
const THREADS = 5000;
const BUDGET_MS = 50;
const DIST = path.join(ROOT, 'dist');
const require = createRequire(import.meta.url);

const LIBRARY = path.join(ROOT, '.bench-data', 'library-50');
if (!fs.existsSync(path.join(LIBRARY, 'agents'))) generateLibrary(LIBRARY, { agents: 50 });

const WORDS = (
  'sync engine chart renderer release tide watch merge cursor token cache index store vector clock ' +
  'device queue worker parser schema gateway billing search ranking report export import audit ledger'
).split(' ');

/** A Codex home with THREADS threads and as many memory Stage 1 jobs, Codex's own schema. */
async function codexHome(home) {
  const initSqlJs = require('sql.js');
  const SQL = await initSqlJs();
  const db = new SQL.Database();
  db.run(`CREATE TABLE threads (id TEXT PRIMARY KEY, rollout_path TEXT NOT NULL, created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL, source TEXT NOT NULL, model_provider TEXT NOT NULL, cwd TEXT NOT NULL,
    title TEXT NOT NULL, sandbox_policy TEXT NOT NULL, approval_mode TEXT NOT NULL, tokens_used INTEGER NOT NULL DEFAULT 0,
    has_user_event INTEGER NOT NULL DEFAULT 0, archived INTEGER NOT NULL DEFAULT 0, archived_at INTEGER, git_sha TEXT,
    git_branch TEXT, git_origin_url TEXT, cli_version TEXT NOT NULL DEFAULT '', first_user_message TEXT NOT NULL DEFAULT '',
    memory_mode TEXT NOT NULL DEFAULT 'enabled')`);
  db.run(`CREATE TABLE jobs (kind TEXT NOT NULL, job_key TEXT NOT NULL, status TEXT NOT NULL, worker_id TEXT,
    ownership_token TEXT, started_at INTEGER, finished_at INTEGER, lease_until INTEGER, retry_at INTEGER,
    retry_remaining INTEGER NOT NULL, last_error TEXT, input_watermark INTEGER, last_success_watermark INTEGER,
    PRIMARY KEY (kind, job_key))`);
  const base = Date.UTC(2026, 10, 28) / 1000;
  const thread = db.prepare(
    "INSERT INTO threads (id, rollout_path, created_at, updated_at, source, model_provider, cwd, title, sandbox_policy, approval_mode, first_user_message) VALUES (?, ?, ?, ?, 'cli', 'openai', ?, ?, 'workspace-write', 'on-request', ?)",
  );
  const job = db.prepare(
    'INSERT INTO jobs (kind, job_key, status, retry_remaining, last_error) VALUES (?, ?, ?, 0, ?)',
  );
  const statuses = ['done', 'done', 'error', 'pending'];
  for (let i = 0; i < THREADS; i++) {
    const word = (n) => WORDS[(i * 7 + n * 13) % WORDS.length];
    const updated = base - i * 1800;
    thread.run([
      `th-${i}`,
      i % 3 ? '' : `sessions/rollout-th-${i}.jsonl`,
      updated - 600,
      updated,
      `~/src/${word(1)}-${word(2)}`,
      i % 5 ? `${word(3)} ${word(4)} ${word(5)} fix` : '',
      `Please look at the ${word(6)} ${word(7)} bug in the ${word(8)} module`,
    ]);
    job.run(['memory_stage1', `th-${i}`, statuses[i % 4], i % 4 === 2 ? 'usage limit reached' : '']);
  }
  thread.free();
  job.free();
  const dir = path.join(home, '.codex');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'state_5.sqlite'), Buffer.from(db.export()));
  db.close();
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bourdon-bench-turns-'));
const home = path.join(scratch, 'home');
const repo = path.join(home, 'src', 'sync-engine');
fs.mkdirSync(path.join(repo, '.git'), { recursive: true });
fs.writeFileSync(
  path.join(repo, '.git', 'config'),
  '[core]\n\tbare = false\n[remote "origin"]\n\turl = git@github.com:acme/sync-engine.git\n',
);
await codexHome(home);

const PROMPTS = [
  'continue the sync engine cache work in this repo',
  'fix the flaky merge worker test before the release',
  'what should i do next',
  'Project sync 5 and the ledger export',
];

const median = (samples) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)];
const p95 = (samples) =>
  [...samples].sort((a, b) => a - b)[Math.min(samples.length - 1, Math.floor(samples.length * 0.95))];
const ms = (value) => `${value.toFixed(2)} ms`;

const { LibraryStore } = await import(path.join(DIST, 'core', 'store', 'library.js'));
const { createContext } = await import(path.join(DIST, 'core', 'context.js'));
const { compileCodexTurn } = await import(path.join(DIST, 'core', 'operations', 'codex-turn', 'compile.js'));
const store = new LibraryStore(LIBRARY, { warn: () => {} });
store.snapshot();
const ctx = createContext(store, {
  warn: () => {},
  env: { HOME: home },
  now: () => new Date(Date.UTC(2026, 10, 29, 12)),
});
const input = (prompt) => ({ prompt, cwd: repo, access_level: 'team', max_items: 6, max_chars: 1800 });

let started = process.hrtime.bigint();
const first = await compileCodexTurn(ctx, input(PROMPTS[0]));
const firstMs = Number(process.hrtime.bigint() - started) / 1e6;
const cpuBefore = process.cpuUsage();
const warm = [];
const byPrompt = new Map(PROMPTS.map((prompt) => [prompt, []]));
for (let i = 0; i < 8; i++) await compileCodexTurn(ctx, input(PROMPTS[i % PROMPTS.length]));
for (let i = 0; i < RUNS; i++) {
  const prompt = PROMPTS[i % PROMPTS.length];
  started = process.hrtime.bigint();
  await compileCodexTurn(ctx, input(prompt));
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  warm.push(elapsed);
  byPrompt.get(prompt).push(elapsed);
}

const cpu = process.cpuUsage(cpuBefore);
// A reference measured in the same conditions: prepare_recognition_context (bench/run.js; its
// README figure was taken on a quiet machine), so a loaded machine's figures can be read.
const { prepareRecognitionContext } = await import(path.join(DIST, 'core', 'operations', 'prompt-reads.js'));
const reference = [];
for (let i = 0; i < 200; i++) {
  started = process.hrtime.bigint();
  await prepareRecognitionContext(ctx, {
    prompt: 'can we get back to project sync 5 and the merge worker before the release?',
  });
  reference.push(Number(process.hrtime.bigint() - started) / 1e6);
}
process.stdout.write(
  `load average ${os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')} on ${os.cpus().length} CPUs\n`,
);
process.stdout.write(
  `compile_codex_turn, 50 agents, ${THREADS.toLocaleString('en')} Codex threads (${first.diagnostics.candidate_count} candidates kept for the first prompt)\n`,
);
process.stdout.write(`  first brief (prepares the library at the level, loads the database): ${ms(firstMs)}\n`);
process.stdout.write(
  `  warm, in process: median ${ms(median(warm))}, p95 ${ms(p95(warm))} over ${RUNS} (budget ${BUDGET_MS} ms: ${median(warm) <= BUDGET_MS ? 'pass' : 'FAIL'})\n`,
);
process.stdout.write(`    CPU time per brief: ${ms((cpu.user + cpu.system) / 1000 / RUNS)}\n`);
process.stdout.write(
  `  reference, same process: prepare_recognition_context median ${ms(median(reference))} (bench/README.md, quiet machine: 0.49 ms)\n`,
);
for (const [prompt, samples] of byPrompt)
  process.stdout.write(`    ${JSON.stringify(prompt)}: median ${ms(median(samples))}\n`);

// The same through the real server: stdio, a real MCP client, JSON in and out.
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [path.join(ROOT, 'bin', 'run.js'), 'serve', '--library', LIBRARY],
  env: {
    PATH: process.env.PATH ?? '',
    HOME: home,
    BOURDON_HOME: path.join(scratch, 'config'),
    SOURCE_DATE_EPOCH: String(Date.UTC(2026, 10, 29, 12) / 1000),
  },
  cwd: repo,
  stderr: 'ignore',
});
const client = new Client({ name: 'bench-turns', version: '1.0.0' });
await client.connect(transport);
started = process.hrtime.bigint();
await client.callTool({ name: 'compile_codex_turn', arguments: { prompt: PROMPTS[0] } });
const serverFirst = Number(process.hrtime.bigint() - started) / 1e6;
const served = [];
for (let i = 0; i < 8; i++)
  await client.callTool({ name: 'compile_codex_turn', arguments: { prompt: PROMPTS[i % 4] } });
for (let i = 0; i < Math.min(RUNS, 100); i++) {
  started = process.hrtime.bigint();
  await client.callTool({ name: 'compile_codex_turn', arguments: { prompt: PROMPTS[i % PROMPTS.length] } });
  served.push(Number(process.hrtime.bigint() - started) / 1e6);
}
await client.close();
process.stdout.write(
  `  through bourdon serve (stdio, MCP client): first ${ms(serverFirst)}; warm median ${ms(median(served))}, p95 ${ms(p95(served))}\n`,
);
fs.rmSync(scratch, { recursive: true, force: true });
if (median(warm) > BUDGET_MS) process.exitCode = 1;
