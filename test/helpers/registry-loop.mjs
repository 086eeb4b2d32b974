// A registry admin in a tight loop until it is killed: adds member <tag>-<i>, grants it a
// namespace, prints `<i>` once both are on disk. Usage: node registry-loop.mjs <repoRoot> <registry> <tag>
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [repoRoot, file, tag] = process.argv.slice(2);
const { FederationRegistry } = await import(
  pathToFileURL(path.join(repoRoot, 'dist', 'core', 'trust', 'registry.js')).href
);
const registry = new FederationRegistry(file, { warn: () => {} });
for (let i = 0; ; i++) {
  registry.add(`${tag}-${i}`, { tier: 'quarantined' });
  registry.grant(`${tag}-${i}`, `ns-${i % 7}`);
  process.stdout.write(`${i}\n`);
}
