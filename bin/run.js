#!/usr/bin/env node
// The `bourdon` CLI. `--version` is answered here, without loading oclif (what oclif would
// print: name/version platform-arch node-version); everything else runs from the bundled
// build (dist/bundle, made by `npm run build`), which holds oclif and every command.
import fs from 'node:fs';
import os from 'node:os';

if (process.argv[2] === '--version') {
  const pjson = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const arch = os.arch() === 'ia32' ? 'x86' : os.arch();
  process.stdout.write(`${pjson.name}/${pjson.version} ${process.platform}-${arch} node-${process.version}\n`);
} else {
  const { run } = await import('../dist/bundle/cli.js');
  await run(process.argv.slice(2), import.meta.url);
}
