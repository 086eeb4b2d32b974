/**
 * The installed package's root folder (where package.json, bin/ and demo/ are). Found by
 * walking up from this module rather than by a fixed number of `..`: the same code runs from
 * dist/ (tsc) and from dist/bundle/ or its chunks (the bundled CLI), at different depths.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let found: string | null = null;

export function packageRoot(): string {
  if (found) return found;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (fs.existsSync(path.join(dir, 'bin', 'run.js')) && fs.existsSync(path.join(dir, 'package.json'))) {
      found = dir;
      return dir;
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('cannot find the bourdon package root (bin/run.js)');
    dir = parent;
  }
}
