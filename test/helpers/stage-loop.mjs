// A quarantined member staging writes in a tight loop until it is killed, printing `<i>` once
// write i is staged (or `promoted` after one promotion, in promote mode).
// Usage: node stage-loop.mjs <repoRoot> <library> <member> <tag>
//        node stage-loop.mjs <repoRoot> <library> <member> --promote
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [repoRoot, library, member, tag] = process.argv.slice(2);
const load = (file) => import(pathToFileURL(path.join(repoRoot, 'dist', 'core', file)).href);
const { LibraryStore } = await load('store/library.js');
const { createContext } = await load('context.js');
const { callerFor } = await load('trust/registry.js');
const { stageCommit, promoteStaged } = await load('writes/staging.js');

const store = new LibraryStore(library, { warn: () => {} });
if (tag === '--promote') {
  process.stdout.write('start\n');
  await promoteStaged(createContext(store, { warn: () => {} }), member);
  process.stdout.write('promoted\n');
} else {
  const ctx = createContext(store, { warn: () => {}, caller: callerFor(member, { tier: 'quarantined', grants: [] }) });
  for (let i = 0; ; i++) {
    const payload = await stageCommit(ctx, {
      agent_id: member,
      agent_type: 'other',
      entities: [{ name: `${tag}-${i}` }],
    });
    if (!payload.staged) {
      process.stderr.write(`${JSON.stringify(payload)}\n`);
      process.exit(2);
    }
    process.stdout.write(`${i}\n`);
  }
}
