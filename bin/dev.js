#!/usr/bin/env node
// Development entry: same commands, oclif's development mode (full error output, no manifest cache).
// Run `npm run build` (or `npx tsc -w`) first: commands load from dist/. CommonJS, like every
// file in bin/ (bin/package.json).
'use strict';
const path = require('node:path');
const { pathToFileURL } = require('node:url');

(async () => {
  const { execute, settings } = await import('@oclif/core');
  // Commands always load from the compiled dist/, whatever NODE_ENV says (no TS loader ships).
  settings.enableAutoTranspile = false;
  await execute({ development: true, dir: pathToFileURL(path.join(__dirname, '..')).href });
})();
