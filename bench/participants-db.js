#!/usr/bin/env node
// SQLite participants at scale: a generated 50 MB Cursor `state.vscdb` (deterministic), exported
// by the built cursor participant (dist/), median of 5 runs after a warm-up, against the ≤ 5 s
// budget. Run after `npm run build`:
//   node bench/participants-db.js [--mb 50] [--json]
//   node bench/participants-db.js --compare /tmp/sqlbench
// --compare DIR also times better-sqlite3 (installed in DIR, never in the project) on the same
// file, and shows which reader blocks, or is blocked by, a writer holding the database's lock
// (python3 plays the agent). bench/README.md has the figures.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const TARGET_MB = Number(option('--mb', '50'));
const COMPARE = option('--compare', undefined);
const asJson = args.includes('--json');
const BUDGET_MS = 5_000;
const DATA = path.join(ROOT, '.bench-data', `cursor-${TARGET_MB}mb`);
const HOME = path.join(DATA, 'home');
const DB = path.join(HOME, '.config', 'Cursor', 'User', 'globalStorage', 'state.vscdb');

function prng(seed) {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
}

const WORDS = (
  'refactor billing parser schema router cache token index release migrate tests flaky deploy docs search ' +
  'ranking session history rollback renderer worker queue gateway audit ledger mobile desktop plugin layout'
).split(' ');

/** A Cursor-like database: composer records with conversations, chat panels, and unrelated UI state. */
async function generate() {
  if (fs.existsSync(DB)) return;
  const SQL = await require('sql.js')();
  const db = new SQL.Database();
  db.run('CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)');
  const rand = prng(0x5eed);
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const phrase = (n) => Array.from({ length: n }, () => pick(WORDS)).join(' ');
  const insert = db.prepare('INSERT INTO ItemTable (key, value) VALUES (?, ?)');
  db.run('BEGIN');
  let bytes = 0;
  for (let i = 0; bytes < TARGET_MB * 1024 * 1024 * 0.97; i++) {
    const project = `/home/dev/project-${i % 40}`;
    const messages = Array.from({ length: 16 }, (_, m) => ({
      role: m % 2 ? 'assistant' : 'user',
      content: phrase(120),
      filePaths: m % 4 === 0 ? [`src/${pick(WORDS)}.ts`] : [],
    }));
    const record =
      i % 5 === 4
        ? { messages, workspacePath: project, updatedAt: 1_776_000_000_000 + i * 60_000 }
        : {
            title: phrase(6),
            workspace: { path: project },
            createdAt: new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString(),
            files: [`src/${pick(WORDS)}.ts`, { path: `test/${pick(WORDS)}.test.ts` }],
            messages,
          };
    const value = JSON.stringify(record);
    insert.run([i % 5 === 4 ? `workbench.panel.aichat.${i}` : `composerData:${i}`, value]);
    const noise = JSON.stringify({ open: rand() < 0.5, width: Math.floor(rand() * 900), label: phrase(30) });
    insert.run([`workbench.view.state.${i}`, noise]);
    bytes += value.length + noise.length + 60;
  }
  db.run('COMMIT');
  insert.free();
  fs.mkdirSync(path.dirname(DB), { recursive: true });
  fs.writeFileSync(DB, db.export());
  db.close();
}

const median = (samples) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)];

async function timeIt(runs, action) {
  // The first run is the cold one (sql.js's WebAssembly compiled, the file read from disk or cache).
  const coldStarted = performance.now();
  await action();
  const cold = performance.now() - coldStarted;
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await action();
    samples.push(performance.now() - started);
  }
  return {
    cold_ms: Math.round(cold),
    median_ms: Math.round(median(samples)),
    max_ms: Math.round(Math.max(...samples)),
    runs,
  };
}

const environment = {
  home: HOME,
  env: { HOME },
  cwd: HOME,
  now: new Date('2026-05-01T12:00:00Z'),
  hostname: 'bench',
  platform: 'linux',
};

/** python3 holding the database's lock, as an agent mid-transaction does; resolves once it holds it. */
function holdLock(mode) {
  const script =
    'import sqlite3,sys\n' +
    'c=sqlite3.connect(sys.argv[1],isolation_level=None,timeout=0)\n' +
    `c.execute('BEGIN ${mode}')\n` +
    "c.execute(\"INSERT INTO ItemTable VALUES ('bench.lock','1')\")\n" +
    "print('held',flush=True)\n" +
    'sys.stdin.readline()\n' +
    "c.execute('ROLLBACK')\n";
  const child = spawn('python3', ['-c', script, DB], { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout.once('data', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`lock holder exited ${code}`)));
  });
}

/** Whether a writer (python3, no busy timeout) can commit while `read` holds the database open mid-scan. */
function writerCommitsDuring() {
  const script =
    'import sqlite3,sys\n' +
    'c=sqlite3.connect(sys.argv[1],isolation_level=None,timeout=0)\n' +
    'try:\n' +
    "  c.execute('BEGIN IMMEDIATE'); c.execute(\"INSERT INTO ItemTable VALUES ('bench.w','1')\"); c.execute('COMMIT'); print('committed')\n" +
    'except sqlite3.Error as e:\n' +
    "  print('blocked: '+str(e))\n";
  return spawn('python3', ['-c', script, DB], { stdio: ['ignore', 'pipe', 'inherit'] });
}

async function compare(results) {
  const Database = createRequire(path.join(path.resolve(COMPARE), 'index.js'))('better-sqlite3');
  const { openReadOnly } = await import(pathToFileURL(path.join(ROOT, 'dist', 'participants', 'sqlite.js')).href);
  results.sqljs_open_scan = await timeIt(5, async () => {
    const db = await openReadOnly(DB);
    db.all('SELECT key, value FROM ItemTable');
    db.close();
  });
  results.better_sqlite3_open_scan = await timeIt(5, async () => {
    const db = new Database(DB, { readonly: true, fileMustExist: true });
    db.prepare('SELECT key, value FROM ItemTable').all();
    db.close();
  });
  // An agent mid-write (rollback journal, EXCLUSIVE lock held): who still reads?
  const holder = await holdLock('EXCLUSIVE');
  try {
    results.during_exclusive_lock = {};
    try {
      const db = await openReadOnly(DB);
      results.during_exclusive_lock.sqljs = `read ${db.all('SELECT count(*) AS n FROM ItemTable')[0].n} rows`;
      db.close();
    } catch (error) {
      results.during_exclusive_lock.sqljs = `failed: ${error.message}`;
    }
    try {
      const db = new Database(DB, { readonly: true, fileMustExist: true, timeout: 0 });
      results.during_exclusive_lock.better_sqlite3 = `read ${db.prepare('SELECT count(*) AS n FROM ItemTable').get().n} rows`;
      db.close();
    } catch (error) {
      results.during_exclusive_lock.better_sqlite3 = `failed: ${error.message}`;
    }
  } finally {
    holder.stdin.end();
    await new Promise((resolve) => holder.once('exit', resolve));
  }
  // The other way round: does the reader hold the agent up? A statement mid-scan keeps a SHARED lock.
  const db = new Database(DB, { readonly: true, fileMustExist: true });
  const rows = db.prepare('SELECT key, value FROM ItemTable').iterate();
  rows.next();
  const writer = writerCommitsDuring();
  results.writer_during_better_sqlite3_scan = await new Promise((resolve) =>
    writer.stdout.once('data', (data) => resolve(String(data).trim())),
  );
  rows.return();
  db.close();
}

async function main() {
  const generatedAt = performance.now();
  await generate();
  const results = {
    database_mb: Math.round(fs.statSync(DB).size / 1024 / 1024),
    generate_ms: Math.round(performance.now() - generatedAt),
  };
  const { cursorParticipant } = await import(
    pathToFileURL(path.join(ROOT, 'dist', 'participants', 'cursor', 'index.js')).href
  );
  let sessions = 0;
  results.cursor_export = await timeIt(5, async () => {
    const result = await cursorParticipant.export(environment);
    sessions = result.manifest.recent_sessions.length;
  });
  results.cursor_export.sessions = sessions;
  results.cursor_export.budget_ms = BUDGET_MS;
  results.cursor_export.pass = results.cursor_export.median_ms <= BUDGET_MS;
  results.rss_mb = Math.round(process.memoryUsage().rss / 1024 / 1024);
  if (COMPARE) await compare(results);
  results.machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`;
  if (asJson) console.log(JSON.stringify(results, null, 2));
  else for (const [name, value] of Object.entries(results)) console.log(`${name}: ${JSON.stringify(value)}`);
  if (!results.cursor_export.pass) process.exitCode = 1;
}

await main();
