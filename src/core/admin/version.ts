/**
 * This package's name and version, read from its package.json once, so the server's
 * `serverInfo`, the CLI and pinned `npx` snippets can never disagree with what is installed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { packageRoot } from './package-root.js';

interface PackageInfo {
  name: string;
  version: string;
}

let cached: PackageInfo | null = null;

export function packageInfo(): PackageInfo {
  cached ??= JSON.parse(fs.readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as PackageInfo;
  return cached;
}
