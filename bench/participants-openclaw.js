#!/usr/bin/env node
// Export speed and memory of the openclaw participant (after `npm run build`): an OpenClaw
// instance served locally by the tests' fake (test/helpers/openclaw-fake.mjs) with 10,000
// sessions and 10,000 memories (about 4 MB of JSON, some with whole floats so the Python-exact
// JSON reader runs), each export the real binary (`bourdon openclaw export --out …`), cold (a
// new process each run), median of 5: wall and CPU time (bash's `time`) and peak RSS (GNU time
// when present). Budget (issue 40): ≤ 5 s and ≤ 300 MB.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serveFakeOpenclaw } from '../test/helpers/openclaw-fake.mjs';
import { measureExport } from './lib.js';

const RUNS = 5;
const BUDGET_MS = 5000;
const BUDGET_RSS_MB = 300;
const COUNT = 10_000;
const asJson = process.argv.includes('--json');

const words = (n, seed) => Array.from({ length: n }, (_, i) => `word${(i * 7 + seed) % 97}`).join(' ');
const day = (n) => `2026-04-${String((n % 28) + 1).padStart(2, '0')}T${String(n % 24).padStart(2, '0')}:00:00Z`;
const sessions = Array.from({ length: COUNT }, (_, n) => ({
  id: `s${n}`,
  title: words(12, n),
  updated_at: day(n),
  projects: [`project-${n % 40}`, `area-${n % 7}`],
}));
const memories = Array.from({ length: COUNT }, (_, n) => ({
  name: `Memory ${n}`,
  type: n % 3 ? 'note' : 'project',
  summary: words(30, n),
  tags: ['bench', `t${n % 10}`, n % 2 ? 1.0 : 2],
}));
const api = {
  require_token: 'bench-token',
  routes: {
    '/api/status': { json: { version: '2026.3.2', auth_enabled: true } },
    '/api/sessions': { json: { sessions } },
    '/api/memories': { json: memories },
  },
};
// The fake serialises with JSON.stringify, which writes 1.0 as 1: give the memories' floats their `.0`.
const served = await serveFakeOpenclaw({
  ...api,
  routes: { ...api.routes, '/api/memories': { text: JSON.stringify(memories).replace(/,1\]/g, ',1.0]') } },
});
const bytes = JSON.stringify(api.routes).length;

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'bourdon-bench-openclaw-'));

const result = {
  name: `openclaw export (${COUNT} sessions, ${COUNT} memories, ${(bytes / 1e6).toFixed(1)} MB)`,
  ...(await measureExport(['openclaw', 'export'], {
    cwd: home,
    env: {
      HOME: home,
      BOURDON_HOME: path.join(home, '.bourdon'),
      OPENCLAW_URL: served.url,
      OPENCLAW_TOKEN: 'bench-token',
    },
    runs: RUNS,
  })),
};
result.pass = result.cpu_ms <= BUDGET_MS && (result.rss_mb === null || result.rss_mb <= BUDGET_RSS_MB);
await served.close();
fs.rmSync(home, { recursive: true, force: true });
const load = os.loadavg()[0].toFixed(1);
if (asJson) process.stdout.write(JSON.stringify({ cores: os.cpus().length, load, result }, null, 2) + '\n');
else {
  process.stdout.write(`${os.cpus().length} cores, load average ${load}; budget on CPU time and peak RSS\n`);
  const rss = result.rss_mb === null ? 'rss ?' : `rss ${result.rss_mb} MB`;
  process.stdout.write(
    `${result.name}  cpu ${result.cpu_ms} ms  wall ${result.wall_ms} ms  ${rss}  ≤ ${BUDGET_MS} ms, ${BUDGET_RSS_MB} MB  ${result.pass ? 'pass' : 'FAIL'}\n`,
  );
}
if (!result.pass) process.exitCode = 1;
