#!/usr/bin/env node
// The `bourdon` CLI. `--version` is answered here, without loading oclif (what oclif would
// print: name/version platform-arch node-version). A plain `--json` read command (agents,
// find, query, recent, …) is answered by the fast path (dist/bundle/fast-path.js, no oclif), which
// hands anything unusual back untouched (docs/cli.md; BOURDON_NO_FAST_PATH=1 turns it off).
// Everything else runs from the bundled build (dist/bundle/cli.js), which holds oclif and
// every command.
import { createRequire } from 'node:module';

// Built-ins through require, not import: an ES import of a built-in builds a facade of all its
// exports, and node:fs's includes fs.promises, which loads readline and streams (about 4 ms of
// every call, bench/README.md).
const require = createRequire(import.meta.url);
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { fileURLToPath } = require('node:url');
const vm = require('node:vm');

const argv = process.argv.slice(2);
if (argv[0] === '--version') {
  const pjson = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const arch = os.arch() === 'ia32' ? 'x86' : os.arch();
  process.stdout.write(`${pjson.name}/${pjson.version} ${process.platform}-${arch} node-${process.version}\n`);
} else {
  const fast = argv.includes('--json') && !process.env.BOURDON_NO_FAST_PATH;
  if (!(fast && (await runFastPath(argv)))) {
    const { run } = await import('../dist/bundle/cli.js');
    await run(argv, import.meta.url);
  }
}

/**
 * Runs the fast path: dist/bundle/fast-path.js is a function expression (a CommonJS body,
 * scripts/bundle.mjs), compiled here with the V8 code cache the build made for it, which Node 20
 * cannot use for an ES module. A missing or rejected cache (another Node version) only costs
 * the compile it would have saved.
 */
async function runFastPath(argv) {
  const file = fileURLToPath(new URL('../dist/bundle/fast-path.js', import.meta.url));
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
