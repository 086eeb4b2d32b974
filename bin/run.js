#!/usr/bin/env node
// The `bourdon` CLI. `--version` is answered here, without loading oclif (what oclif would
// print: name/version platform-arch node-version). A plain `--json` read command (agents,
// find, query, recent, …) is answered by the fast path (dist/bundle/fast.js, no oclif), which
// hands anything unusual back untouched (docs/cli.md; BOURDON_NO_FAST_PATH=1 turns it off).
// Everything else runs from the bundled build (dist/bundle/cli.js), which holds oclif and
// every command.
import fs from 'node:fs';
import os from 'node:os';

const argv = process.argv.slice(2);
if (argv[0] === '--version') {
  const pjson = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const arch = os.arch() === 'ia32' ? 'x86' : os.arch();
  process.stdout.write(`${pjson.name}/${pjson.version} ${process.platform}-${arch} node-${process.version}\n`);
} else {
  const fast = argv.includes('--json') && !process.env.BOURDON_NO_FAST_PATH;
  if (!(fast && (await (await import('../dist/bundle/fast.js')).runFastPath(argv)))) {
    const { run } = await import('../dist/bundle/cli.js');
    await run(argv, import.meta.url);
  }
}
