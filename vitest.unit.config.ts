/**
 * `npm run test:unit`: the in-process suite, the test files that start no process (no CLI, no
 * server, no browser, no worker script), so they need no build and run in a fraction of the
 * time. Which files those are is read from what they import, so a new test file lands in the
 * right suite without a list to keep.
 */
import fs from 'node:fs';
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/** What a test file mentions when it starts a process or needs dist/. */
const SPAWNS = /helpers\/(cli|spawn|ui|pty)\.js|child_process|bin\/run|'dist'|playwright|\bBIN\b|\.mjs'/;

const inProcess = fs
  .readdirSync('test')
  .filter((name) => name.endsWith('.test.ts'))
  .filter((name) => !SPAWNS.test(fs.readFileSync(path.join('test', name), 'utf8')))
  .map((name) => `test/${name}`);

// Not mergeConfig: it would append to the lists this replaces. In-process tests do not run dist/,
// so the freshness check is left out.
export default defineConfig({
  test: {
    ...base.test,
    include: inProcess,
    globalSetup: ['./test/helpers/private-tmp.ts', './test/helpers/private-home.ts'],
  },
});
