#!/usr/bin/env node
// The `bourdon` CLI. `--version` is answered here, without loading oclif (what oclif would
// print: name/version platform-arch node-version). A plain `--json` read command (agents,
// find, query, recent, …) is answered by the fast path (dist/bundle/fast-path.js, no oclif), which
// hands anything unusual back untouched (docs/cli.md; BOURDON_NO_FAST_PATH=1 turns it off).
// Everything else runs from the bundled build (dist/bundle/cli.js), which holds oclif and
// every command.
//
// This file is CommonJS (bin/package.json): a CommonJS entry starts without Node's ES module
// loader, which is about 15 ms of every call (bench/README.md); the bundle is still an ES module.
'use strict';
const fs = require('node:fs');
const { createRequire } = require('node:module');
const os = require('node:os');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const vm = require('node:vm');

/** The package root, where oclif finds package.json and its manifest. */
const ROOT = path.join(__dirname, '..');

async function main(argv) {
  if (argv[0] === '--version') {
    const pjson = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    const arch = os.arch() === 'ia32' ? 'x86' : os.arch();
    process.stdout.write(`${pjson.name}/${pjson.version} ${process.platform}-${arch} node-${process.version}\n`);
    return;
  }
  const fast = argv.includes('--json') && !process.env.BOURDON_NO_FAST_PATH;
  if (fast && (await runFastPath(argv))) return;
  const { run } = await import(pathToFileURL(path.join(ROOT, 'dist', 'bundle', 'cli.js')).href);
  await run(argv, pathToFileURL(ROOT).href);
}

/**
 * Runs the fast path: dist/bundle/fast-path.js is a function expression (a CommonJS body,
 * scripts/bundle.mjs), compiled here with the V8 code cache the build made for it, which Node 20
 * cannot use for an ES module. A missing or rejected cache (another Node version) only costs
 * the compile it would have saved.
 */
async function runFastPath(argv) {
  const file = path.join(ROOT, 'dist', 'bundle', 'fast-path.js');
  let cachedData;
  try {
    cachedData = fs.readFileSync(`${file}.cache`);
  } catch {
    cachedData = undefined;
  }
  const script = new vm.Script(fs.readFileSync(file, 'utf8'), { filename: file, cachedData });
  const loaded = { exports: {} };
  script.runInThisContext()(loaded.exports, createRequire(file), loaded, file, path.dirname(file));
  return loaded.exports.runFastPath(argv);
}

main(process.argv.slice(2)).catch((error) => {
  // Commands report their own errors; this is a failure to load the CLI itself.
  process.stderr.write(`bourdon: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
