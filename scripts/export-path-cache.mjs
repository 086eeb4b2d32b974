#!/usr/bin/env node
// Run by scripts/bundle.mjs, in a process of its own: makes the export path's V8 code cache
// (dist/bundle/export-path.cjs.cache) the way bin/run.js loads the bundle, after an export of every
// participant on its recorded case's home (test/fixtures/conformance/participants, each case named
// `*_full` or else the first; openclaw against the fake instance those cases use). A cache made
// right after compiling holds only the module's top level; one made after these exports also holds
// what an export runs (its participant, the redaction, the manifest's write and check, the YAML
// packages), which a one-shot export would otherwise compile every time (bench/README.md).
// Without the fixtures (a copy of the package without its tests) each export runs on an empty home.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const EXPORT_FILE = path.join(ROOT, 'dist', 'bundle', 'export-path.cjs');
const CASES = path.join(ROOT, 'test', 'fixtures', 'conformance', 'participants');
const require = createRequire(import.meta.url);
const { bundleScript, exportFlags, runBundle } = require(path.join(ROOT, 'bin', 'run.js'));

/** The recorded case an export of `folder` runs on: its case.json and home, or null. */
function caseOf(folder) {
  const dir = path.join(CASES, folder);
  if (!fs.existsSync(dir)) return null;
  const names = fs.readdirSync(dir).filter((name) => fs.existsSync(path.join(dir, name, 'case.json')));
  const name = names.find((n) => n.endsWith('_full')) ?? names.sort()[0];
  if (name === undefined) return null;
  return { dir: path.join(dir, name), spec: JSON.parse(fs.readFileSync(path.join(dir, name, 'case.json'), 'utf8')) };
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bourdon-build-export-cache-'));
const baseEnv = { ...process.env };
try {
  exportFlags();
  const script = bundleScript(EXPORT_FILE);
  const { runExportPath, PARTICIPANT_LOADERS } = runBundle(script, EXPORT_FILE);
  for (const topic of Object.keys(PARTICIPANT_LOADERS)) {
    const recorded = caseOf(topic.replace(/-/g, '_'));
    const home = recorded && fs.existsSync(path.join(recorded.dir, 'home')) ? path.join(recorded.dir, 'home') : scratch;
    let served = null;
    const env = { HOME: home };
    if (recorded?.spec.fake_api) {
      const { readFakeApi, serveFakeOpenclaw } = await import(
        pathToFileURL(path.join(ROOT, 'test', 'helpers', 'openclaw-fake.mjs')).href
      );
      served = await serveFakeOpenclaw(readFakeApi(path.join(recorded.dir, recorded.spec.fake_api)));
      env.OPENCLAW_URL = served.url;
    }
    for (const [name, value] of Object.entries(recorded?.spec.env ?? {}))
      if (typeof value === 'string')
        env[name] = value.replace('${HOME}', home).replace('${OPENCLAW_URL}', env.OPENCLAW_URL ?? '');
    process.env = { ...baseEnv, ...env, BOURDON_HOME: path.join(scratch, 'bourdon-home') };
    process.chdir(home);
    try {
      // The export's own failures (a refused case) still compile what they ran: only a throw stops the build.
      await runExportPath([topic, 'export', '--out', path.join(scratch, `${topic}.l5.yaml`)]);
    } finally {
      await served?.close();
    }
  }
  process.exitCode = 0;
  // V8 takes a code cache only under the flags it was made with, and bin/run.js compiles the
  // bundle under the export path's flags alone: an export may set others for itself (the SQLite
  // reader's --liftoff-only, core/native/sqlite.ts, and the two it turns off), put back here
  // before the cache is made; a new Node process then checks that it takes the cache.
  setFlagsFromString('--no-liftoff-only --wasm-tier-up --wasm-dynamic-tiering');
  exportFlags();
  fs.writeFileSync(`${EXPORT_FILE}.cache`, script.createCachedData());
  const check = spawnSync(
    process.execPath,
    [
      '-e',
      `const run = require(${JSON.stringify(path.join(ROOT, 'bin', 'run.js'))}); run.exportFlags();` +
        `const file = ${JSON.stringify(EXPORT_FILE)};` +
        "process.exit(run.bundleScript(file, require('node:fs').readFileSync(file + '.cache')).cachedDataRejected ? 1 : 0);",
    ],
    { stdio: 'ignore' },
  );
  if (check.status !== 0)
    throw new Error('V8 rejects the code cache made (an export set a V8 flag of its own: put it back above)');
} finally {
  process.chdir(ROOT);
  fs.rmSync(scratch, { recursive: true, force: true });
}
