#!/usr/bin/env node
// What reading manifests through the L5 model (src/core/store/model.ts) costs (issue 42): the
// rows of a generated library built into records from their parsed documents (the part the
// model does when a manifest is parsed), the full cold load (YAML parse included), and spawned:
// the CLI's `--version`, a warm `agents` (ids only) and a warm `summary --json` (every record
// built, from the parsed cache's rows); and in process, a warm full read: a new store over the
// parsed cache, every record built, as a whole-record CLI call makes it.
// Usage: npm run build && node bench/manifest-model.js [agents=50] [rounds=30]
// BOURDON_BENCH_ROOT=<another checkout> measures its build instead (a before/after on one machine).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateLibrary } from './generate.js';
import { ROOT as OWN_ROOT } from './lib.js';

const ROOT = process.env.BOURDON_BENCH_ROOT ?? OWN_ROOT;

const agents = Number(process.argv[2] ?? 50);
const rounds = Number(process.argv[3] ?? 30);
const { parseDocument, recordFromDoc } = await import(path.join(ROOT, 'dist', 'core', 'store', 'manifest-file.js'));
const { LibraryStore } = await import(path.join(ROOT, 'dist', 'core', 'store', 'library.js'));

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bourdon-model-bench-'));
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'bourdon-model-home-'));
try {
  const library = generateLibrary(scratch, { agents });
  const agentsDir = path.join(scratch, 'agents');
  const files = fs.readdirSync(agentsDir).sort();
  const texts = files.map((file) => fs.readFileSync(path.join(agentsDir, file)));
  const docs = texts.map((bytes) => parseDocument(bytes));

  const median = (samples) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)];
  const time = (work) => {
    const samples = [];
    for (let round = 0; round < rounds; round++) {
      const start = process.hrtime.bigint();
      work();
      samples.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    return median(samples);
  };
  const records = () => docs.forEach((doc, i) => recordFromDoc(doc, files[i], path.join(agentsDir, files[i])));
  const cold = () => texts.forEach((bytes, i) => recordFromDoc(parseDocument(bytes), files[i], files[i]));
  records(); // warm the schemas and the JIT
  const rows = docs.reduce(
    (sum, doc) => sum + doc.known_entities.length + doc.recent_sessions.length + (doc.notes?.length ?? 0),
    0,
  );
  const recordsMs = time(records);
  const coldMs = time(cold);
  const cachePath = path.join(home, 'parsed');
  const warmRead = () => new LibraryStore(scratch, { warn: () => {}, cachePath }).snapshot();
  warmRead(); // writes the parsed cache
  const warmReadMs = time(warmRead);

  const env = { ...process.env, HOME: home, BOURDON_LIBRARY: scratch, NO_COLOR: '1' };
  const cli = (args) => {
    const samples = [];
    for (let round = 0; round < Math.min(rounds, 15); round++) {
      const start = process.hrtime.bigint();
      const run = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'run.js'), ...args], { env });
      samples.push(Number(process.hrtime.bigint() - start) / 1e6);
      if (run.status !== 0) throw new Error(`bourdon ${args.join(' ')} failed: ${run.stderr}`);
    }
    return median(samples);
  };
  const versionMs = cli(['--version']);
  cli(['agents']); // writes the parsed cache
  const agentsMs = cli(['agents']);
  // A read that builds every agent's full record: a project the generated sessions name.
  const project = docs[0].recent_sessions[0].project_focus[0];
  const summary = ['summary', project, '--json'];
  cli(summary); // writes the parsed cache's full rows, where the build has them
  const summaryMs = cli(summary);

  const round = (ms) => Math.round(ms * 10) / 10;
  const result = {
    agents,
    rows,
    bytes: library.bytes,
    records_ms: round(recordsMs),
    per_row_us: round((recordsMs * 1000) / rows),
    cold_load_ms: round(coldMs),
    warm_full_read_ms: round(warmReadMs),
    version_ms: round(versionMs),
    warm_agents_ms: round(agentsMs),
    warm_summary_ms: round(summaryMs),
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
}
