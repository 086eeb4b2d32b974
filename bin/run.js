#!/usr/bin/env node
// The `bourdon` CLI. `--version` is answered here, without loading oclif (what oclif would
// print: name/version platform-arch node-version). A plain `--json` read command (agents,
// find, query, recent, …) is answered by the fast path (dist/bundle/fast-path.cjs, no oclif), which
// hands anything unusual back untouched (docs/cli.md; BOURDON_NO_FAST_PATH=1 turns it off); a
// participant's `export` likewise runs from dist/bundle/export-path.cjs, without oclif.
// Everything else runs from the bundled build (dist/bundle/cli.js), which holds oclif and
// every command.
//
// This file is CommonJS (bin/package.json): a CommonJS entry starts without Node's ES module
// loader, which is about 15 ms of every call (bench/README.md); the bundle is still an ES module.
'use strict';
const fs = require('node:fs');
const nodeModule = require('node:module');
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
  // Node 22.1 and later keep compiled code on disk for every module loaded after this.
  const compileCache = typeof nodeModule.enableCompileCache === 'function';
  if (compileCache) nodeModule.enableCompileCache();
  const fast = argv.includes('--json') && !process.env.BOURDON_NO_FAST_PATH;
  if (fast && (await loadBundle('fast-path.cjs', compileCache).runFastPath(argv))) return;
  // `bourdon <participant> export`: the export path (dist/bundle/export-path.cjs, no oclif, only
  // that participant run), which hands anything unusual back untouched.
  if (argv[1] === 'export' && !process.env.BOURDON_NO_FAST_PATH) {
    exportFlags();
    if (await loadBundle('export-path.cjs', compileCache).runExportPath(argv)) return;
  }
  const { run } = await import(pathToFileURL(path.join(ROOT, 'dist', 'bundle', 'cli.js')).href);
  await run(argv, pathToFileURL(ROOT).href);
}

/**
 * The V8 flags of the export path. The young generation stays at its first size instead of
 * growing to 16 MB semi-spaces: an export's garbage is short-lived, and this flag is read at
 * each growth, so it works set now. Peak RSS 20-50 MB lower at the same CPU (bench/README.md).
 * Set before the bundle is compiled: V8 takes a code cache only under the flags it was made with
 * (scripts/export-path-cache.mjs sets them too).
 */
function exportFlags() {
  require('node:v8').setFlagsFromString('--semi-space-growth-factor=1');
}

/**
 * A bundle of dist/bundle (fast-path.cjs, export-path.cjs). With Node's compile cache on, a plain
 * require. Before Node 22.1 a required module has no code cache, and compiling the bundle was a
 * fifth of a warm query: the build makes one (`<bundle>.cache`) after running the bundle's
 * commands (scripts/fast-path-cache.mjs, scripts/export-path-cache.mjs), so it holds the
 * functions a call runs, not only the module's top level, and the module is run from it as
 * Node's CommonJS loader runs a module. A missing or rejected cache (another Node) only costs
 * the compiles it would have saved.
 */
function loadBundle(name, compileCache) {
  const file = path.join(ROOT, 'dist', 'bundle', name);
  if (compileCache) return require(file);
  let cachedData;
  try {
    cachedData = fs.readFileSync(`${file}.cache`);
  } catch {
    cachedData = undefined;
  }
  return runBundle(bundleScript(file, cachedData), file);
}

/** Runs a bundle's script (bundleScript) as Node's CommonJS loader runs a module: its exports. */
function runBundle(script, file) {
  const loaded = { exports: {} };
  script.runInThisContext()(loaded.exports, nodeModule.createRequire(file), loaded, file, path.dirname(file));
  return loaded.exports;
}

/**
 * A bundle as a script whose value is the function Node's CommonJS loader wraps a module in. V8
 * accepts a code cache only for the source it was made from: the build makes the cache from this
 * same script.
 */
function bundleScript(file, cachedData) {
  const source = `(function (exports, require, module, __filename, __dirname) {${fs.readFileSync(file, 'utf8')}\n})`;
  return new vm.Script(source, { filename: file, cachedData });
}

module.exports = { bundleScript, exportFlags, runBundle };

if (require.main === module)
  main(process.argv.slice(2)).catch((error) => {
    // Commands report their own errors; this is a failure to load the CLI itself.
    process.stderr.write(`bourdon: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
