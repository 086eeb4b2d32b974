// A writer that commits to one agent in a tight loop until it is killed, printing the version
// of each write. Usage: node write-loop.mjs <repoRoot> <library> <agent> <tag>
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [repoRoot, library, agent, tag] = process.argv.slice(2);
const load = (file) => import(pathToFileURL(path.join(repoRoot, 'dist', 'core', file)).href);
const { LibraryStore } = await load('store/library.js');
const { createContext } = await load('context.js');
const { commitToFederation } = await load('writes/commit.js');

const ctx = createContext(new LibraryStore(library, { warn: () => {} }), { warn: () => {} });
for (let i = 0; ; i++) {
  const payload = await commitToFederation(ctx, {
    agent_id: agent,
    entities: [{ name: `${tag}-${i}`, summary: `written by ${tag}, commit ${i}` }],
  });
  if (payload.error) {
    process.stderr.write(`${payload.error}\n`);
    process.exit(2);
  }
  process.stdout.write(`v${payload.version}\n`);
}
