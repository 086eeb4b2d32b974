/**
 * npm's `prepare` hook: builds dist/ unless it is already newer than every input of the build.
 * npm runs `prepare` on `npm install`, and again on `npx bourdon …` inside the checkout (npm exec
 * installs the project itself into its cache, a directory install, which runs `prepare`) and on
 * `npm link`: without this check the quick start built three times. `npm run build` always builds.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The build's inputs: the sources, the bundler, and the files that configure them. */
const INPUTS = ['src', 'scripts/bundle.mjs', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];
/** What the build writes (tsc's output, then the bundles): the oldest of them dates the build. */
const OUTPUTS = ['dist/index.js', 'dist/bundle/cli.js', 'dist/bundle/fast-path.cjs'];

function newestMtime(entry) {
  let stat;
  try {
    stat = fs.statSync(entry);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const name of fs.readdirSync(entry)) newest = Math.max(newest, newestMtime(path.join(entry, name)));
  return newest;
}

function builtAt() {
  try {
    return Math.min(...OUTPUTS.map((output) => fs.statSync(path.join(root, output)).mtimeMs));
  } catch {
    return 0; // an output is missing: never built, or a build stopped half-way
  }
}

const inputs = Math.max(...INPUTS.map((input) => newestMtime(path.join(root, input))));
if (builtAt() > inputs) {
  process.stdout.write('bourdon: dist/ is up to date with src/; not building again (`npm run build` forces it)\n');
} else {
  execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
}
