/**
 * This package's name and version, read from its package.json once, so the server's
 * `serverInfo`, the CLI and pinned `npx` snippets can never disagree with what is installed.
 * The file is found by walking up from this module: the compiled tree and a bundled build sit
 * at different depths below it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface PackageInfo {
  name: string;
  version: string;
}

let cached: PackageInfo | null = null;

export function packageInfo(): PackageInfo {
  if (cached) return cached;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'package.json');
    try {
      const parsed = JSON.parse(fs.readFileSync(candidate, 'utf8')) as Partial<PackageInfo>;
      if (parsed.name === 'bourdon' && typeof parsed.version === 'string') {
        cached = { name: parsed.name, version: parsed.version };
        return cached;
      }
    } catch {
      // no package.json here, or not ours: keep walking up
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('bourdon: cannot find its own package.json');
    dir = parent;
  }
}
