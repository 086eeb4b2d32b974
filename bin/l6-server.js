#!/usr/bin/env node
// `bourdon-l6-server`: the MCP server under the Python engine's flag names (`bourdon serve`).
// CommonJS, like every file in bin/ (bin/package.json); the build it loads is ES modules.
'use strict';
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const ROOT = path.join(__dirname, '..');
const dist = (file) => pathToFileURL(path.join(ROOT, 'dist', file)).href;

(async () => {
  const { translateServerArgs } = await import(dist('mcp/server-args.js'));
  const { run } = await import(dist('bundle/cli.js'));
  await run(['serve', ...translateServerArgs(process.argv.slice(2))], pathToFileURL(ROOT).href);
})().catch((error) => {
  process.stderr.write(`bourdon-l6-server: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
