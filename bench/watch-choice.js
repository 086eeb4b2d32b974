#!/usr/bin/env node
// Which watcher library `bourdon watch` uses (issue 53): chokidar 6 and @parcel/watcher 2.6,
// each in a process of its own, following what the fourteen file participants read in the large
// home (bench/watch-home.js, through dist/watch/targets.js: run `npm run build` first). For each:
// the time to be ready, the RSS once ready (after a GC), the CPU used over --idle seconds (60)
// with nothing changing, and the delay from one write to its event (median of 20).
//   node bench/watch-choice.js --from /tmp/watch-bench [--idle 60] [--json]
// --from DIR: the folder both packages are installed in (`npm install chokidar@6
// @parcel/watcher@2.6` there, never in the project). @parcel/watcher follows folders only, each
// with everything under it, so it is given each followed folder, and a followed file's folder.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { flagReader } from './lib.js';
import { countTree, makeWatchHome } from './watch-home.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const flag = flagReader();
const FROM = flag('--from', '');
const IDLE_S = Number(flag('--idle', '60'));
const asJson = process.argv.includes('--json');

async function targets(home) {
  const { PARTICIPANTS } = await import(pathToFileURL(path.join(ROOT, 'dist/participants/registry.js')).href);
  const { exportEnvironment } = await import(pathToFileURL(path.join(ROOT, 'dist/participants/runner.js')).href);
  const { watchTarget } = await import(pathToFileURL(path.join(ROOT, 'dist/watch/targets.js')).href);
  const environment = exportEnvironment({ PATH: process.env.PATH, HOME: home });
  const found = [];
  for (const participant of PARTICIPANTS) {
    const target = await watchTarget(participant, environment);
    if (target) found.push(...target.paths);
  }
  return [...new Set(found)];
}

// The child: watch `paths` with one library, say when ready, then measure.
async function child(library, from, paths, probe) {
  const require = createRequire(path.join(from, 'package.json'));
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const started = performance.now();
  let onEvent = () => {};
  let close;
  if (library === 'chokidar') {
    const chokidar = await import(pathToFileURL(require.resolve('chokidar')).href);
    const watcher = chokidar.watch(paths, { ignoreInitial: true });
    watcher.on('all', (_event, file) => onEvent(file));
    await new Promise((resolve) => watcher.on('ready', resolve));
    close = () => watcher.close();
  } else {
    const parcel = require('@parcel/watcher');
    const folders = [
      ...new Set(paths.map((p) => (fs.existsSync(p) && fs.statSync(p).isDirectory() ? p : path.dirname(p)))),
    ];
    const existing = folders.filter((dir) => fs.existsSync(dir));
    const outer = existing.filter((dir) => !existing.some((o) => o !== dir && dir.startsWith(o + path.sep)));
    const subs = await Promise.all(
      outer.map((dir) => parcel.subscribe(dir, (error, events) => events?.forEach((event) => onEvent(event.path)))),
    );
    close = () => Promise.all(subs.map((sub) => sub.unsubscribe()));
  }
  const readyMs = performance.now() - started;
  await sleep(2000);
  globalThis.gc?.();
  await sleep(1000);
  const rssMb = process.memoryUsage().rss / 1e6;
  const before = process.cpuUsage();
  const t0 = performance.now();
  await sleep(IDLE_S * 1000);
  const used = process.cpuUsage(before);
  const idleCpu = (used.user + used.system) / 1000 / (performance.now() - t0);
  const delays = [];
  for (let i = 0; i < 20; i += 1) {
    const seen = new Promise((resolve) => (onEvent = (file) => file === probe && resolve()));
    const t = performance.now();
    fs.writeFileSync(probe, `probe ${i}\n`);
    await seen;
    delays.push(performance.now() - t);
    await sleep(100);
  }
  await close();
  delays.sort((a, b) => a - b);
  process.stdout.write(JSON.stringify({ library, readyMs, rssMb, idleCpu, eventMs: delays[10] }));
}

if (process.argv[2] === '--child') {
  const [, , , library, from, probe, list] = process.argv;
  await child(library, from, JSON.parse(fs.readFileSync(list, 'utf8')), probe);
} else {
  if (!FROM) throw new Error('--from DIR: where chokidar@6 and @parcel/watcher@2.6 are installed');
  const home = makeWatchHome();
  const paths = await targets(home);
  const list = path.join(home, '..', 'watch-targets.json');
  fs.writeFileSync(list, JSON.stringify(paths));
  const probe = path.join(home, '.cascade-bourdon', 'memory.md');
  const original = fs.readFileSync(probe);
  const results = [];
  for (const library of ['chokidar', '@parcel/watcher']) {
    const out = await new Promise((resolve, reject) => {
      const proc = spawn(
        process.execPath,
        [
          '--expose-gc',
          fileURLToPath(import.meta.url),
          '--child',
          library,
          FROM,
          probe,
          list,
          '--idle',
          String(IDLE_S),
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let text = '';
      proc.stdout.on('data', (chunk) => (text += chunk));
      proc.on('close', (code) =>
        code === 0 ? resolve(JSON.parse(text)) : reject(new Error(`${library} exited ${code}`)),
      );
    });
    results.push(out);
  }
  fs.writeFileSync(probe, original);
  const tree = countTree(home);
  if (asJson) console.log(JSON.stringify({ tree, followed: paths.length, results }, null, 2));
  else {
    console.log(`home: ${tree.files} files, ${tree.folders} folders; ${paths.length} paths followed; idle ${IDLE_S} s`);
    for (const r of results)
      console.log(
        `${r.library.padEnd(16)} ready ${Math.round(r.readyMs)} ms  RSS ${r.rssMb.toFixed(0)} MB  idle CPU ${(r.idleCpu * 100).toFixed(3)} %  event ${r.eventMs.toFixed(1)} ms`,
      );
  }
}
