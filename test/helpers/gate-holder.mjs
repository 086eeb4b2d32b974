// Takes the library write gate, reports it, then either holds it for <ms> and exits, or (with
// "die") kills itself with SIGKILL while holding it. Usage: node gate-holder.mjs <repoRoot> <library> <ms|die>
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [repoRoot, library, mode] = process.argv.slice(2);
const load = (file) => import(pathToFileURL(path.join(repoRoot, 'dist', 'core', file)).href);
const { libraryPaths } = await load('store/library.js');
const { withLibraryGate } = await load('fs/gate.js');

await withLibraryGate(libraryPaths(library), async () => {
  process.stdout.write('held\n');
  if (mode === 'die') process.kill(process.pid, 'SIGKILL');
  await new Promise((resolve) => setTimeout(resolve, Number(mode)));
});
process.stdout.write('released\n');
