// Takes the library write gate, reports it, then either holds it for <ms> and exits, or (with
// "die") kills itself with SIGKILL while holding it. With <marker>, it writes that file as the last
// thing it does while it still holds the gate. Usage: node gate-holder.mjs <repoRoot> <library> <ms|die> [marker]
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [repoRoot, library, mode, marker] = process.argv.slice(2);
const load = (file) => import(pathToFileURL(path.join(repoRoot, 'dist', 'core', file)).href);
const { libraryPaths } = await load('store/library.js');
const { withLibraryGate } = await load('fs/gate.js');

await withLibraryGate(libraryPaths(library), async () => {
  process.stdout.write('held\n');
  if (mode === 'die') process.kill(process.pid, 'SIGKILL');
  await new Promise((resolve) => setTimeout(resolve, Number(mode)));
  if (marker) fs.writeFileSync(marker, 'done\n');
});
process.stdout.write('released\n');
