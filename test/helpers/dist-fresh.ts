/**
 * vitest globalSetup: the end-to-end tests spawn the built CLI (`bin/run.js` loads dist/), so a
 * run whose dist/ is older than src/ would test yesterday's code and pass or fail for the wrong
 * reason. Refuses to start, saying what to run. `npm test` builds first; `npm run test:unit`
 * (in-process only) does not need dist/ and skips this check.
 */
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './fixtures.js';

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    newest = Math.max(newest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

export default function setup(): void {
  if (process.env.BOURDON_SKIP_DIST_CHECK) return;
  const built = path.join(REPO_ROOT, 'dist', 'bundle', 'cli.js');
  const builtAt = fs.existsSync(built) ? fs.statSync(built).mtimeMs : 0;
  const changedAt = newestMtime(path.join(REPO_ROOT, 'src'));
  if (builtAt < changedAt)
    throw new Error(
      builtAt === 0
        ? 'dist/ is not built, and the end-to-end tests run it: run `npm run build` first'
        : 'dist/ is older than src/, and the end-to-end tests run dist/: run `npm run build` first (or `npm run test:unit` for the in-process tests only)',
    );
}
