// A fault planted in a real `bourdon` process, for the failure-code table (failure-codes.test.ts):
// loaded with NODE_OPTIONS=--import, it patches node:fs before any of Bourdon's modules run, so
// the binary, the page and the MCP server meet a fault no input can cause. BOURDON_PLANT says which:
//
// - `bug:<text>`: reading a folder whose path ends with <text> throws a TypeError, as a
//   programming error would (no errno): the adapters must answer `internal`, not crash or lie.
//   With BOURDON_PLANT_ARMED=<file>, only while that file exists (a server can start first).
// - `steal-lock:<library>`: right after a write has recorded its pending version, another
//   "process" breaks the library lock and takes it (a foreign owner record, fresh): the writer
//   must notice before the live file is touched and answer `conflict`. Once only.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';

const plant = process.env.BOURDON_PLANT ?? '';
const colon = plant.indexOf(':');
const kind = plant.slice(0, colon);
const argument = plant.slice(colon + 1);

if (kind === 'bug') {
  const readdirSync = fs.readdirSync;
  const armed = process.env.BOURDON_PLANT_ARMED;
  fs.readdirSync = function plantedReaddir(dir, ...rest) {
    if (String(dir).endsWith(argument) && (!armed || fs.existsSync(armed)))
      throw new TypeError(`planted bug: cannot read properties of undefined`);
    return readdirSync.call(this, dir, ...rest);
  };
} else if (kind === 'steal-lock') {
  const renameSync = fs.renameSync;
  let stolen = false;
  fs.renameSync = function plantedRename(from, to) {
    renameSync.call(this, from, to);
    if (stolen || path.basename(String(to)) !== 'pending.json') return;
    stolen = true;
    const lock = path.join(argument, '.bourdon.lock');
    fs.rmSync(lock, { recursive: true, force: true });
    fs.mkdirSync(lock);
    const owner = { pid: 1, host: 'another-host', boot: null, token: 'stolen', acquired: new Date().toISOString() };
    fs.writeFileSync(path.join(lock, 'owner.json'), JSON.stringify(owner));
  };
} else if (plant !== '') {
  throw new Error(`unknown BOURDON_PLANT ${plant}`);
}
syncBuiltinESMExports();
