#!/usr/bin/env node
// Run by scripts/bundle.mjs, in a process of its own: makes the fast path's V8 code cache
// (dist/bundle/fast-path.cjs.cache) the way bin/run.js loads the bundle, after running every read
// command twice on a demo library in a temp folder. V8 compiles a function when it is first
// called, and a cache made right after compiling holds only the module's top level: one made
// after these calls also holds what a query runs (the store, the operations, zod's parsing), which
// a one-shot call would otherwise compile every time (bench/README.md).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FAST_FILE = path.join(ROOT, 'dist', 'bundle', 'fast-path.cjs');
const require = createRequire(import.meta.url);
const { bundleScript, runBundle } = require(path.join(ROOT, 'bin', 'run.js'));
const { installDemoLibrary } = await import(path.join(ROOT, 'dist', 'core', 'admin', 'demo-library.js'));

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bourdon-build-cache-'));
try {
  // The parsed cache and any config the commands look for stay in the scratch folder.
  process.env.BOURDON_HOME = path.join(scratch, 'home');
  const library = installDemoLibrary(path.join(scratch, 'library'));
  const script = bundleScript(FAST_FILE);
  const { runFastPath } = runBundle(script, FAST_FILE);
  const calls = [
    ['agents'],
    ['agents', '--export'],
    ['find', 'Sync Engine', '--access-level', 'team'],
    ['query', 'codex', 'sync engine'],
    ['recent', '--since', '2000-01-01'],
    ['recent'],
    ['summary', 'Release 2.4'],
    ['list-notes', '--tag', 'decision'],
    ['note', 'show', 'claude-code:1'],
    ['workstreams', '--status', 'active'],
    ['recognize', 'keep going on the sync engine bug'],
    ['deeper-context', 'sync engine'],
    ['history', 'codex'],
  ];
  // Twice: the second call of each finds the parsed cache the first one wrote, as most calls do.
  for (let round = 0; round < 2; round++)
    for (const call of calls) await runFastPath([...call, '--json', '--library', library]);
  fs.writeFileSync(`${FAST_FILE}.cache`, script.createCachedData());
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
