// `bourdon watch` with its library on a full disk, for watch.disk.test.ts. Runs inside
// `unshare -rm` with a small tmpfs mounted on <dir> (as disk-fault.mjs does), so ENOSPC comes
// from the kernel through the real write path. Fills the tmpfs, starts the watch (its start-up
// export of cascade fails), changes the source while the disk is full (not said again), frees
// the space, changes it again (exported). The disk fills once the watch is running (its lock taken). Prints one JSON object.
// Usage: node watch-disk.mjs <repoRoot> <dir> <home>
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';

const [repoRoot, dir, home] = process.argv.slice(2);
const library = path.join(dir, 'library');
const filler = path.join(dir, 'filler');
const cascade = path.join(home, '.cascade-bourdon', 'memory.md');
const memory = (names) =>
  [
    '---',
    'entities:',
    ...names.flatMap((n) => [`  - name: "${n}"`, '    type: project', `    summary: "about ${n} ${'x'.repeat(2000)}"`]),
    '---',
    '',
  ].join('\n');
fs.mkdirSync(path.join(library, 'agents'), { recursive: true });
fs.mkdirSync(path.dirname(cascade), { recursive: true });
const child = spawn(
  process.execPath,
  [path.join(repoRoot, 'bin', 'run.js'), 'watch', '--json', '--debounce', '100', '--library', library],
  {
    env: { PATH: process.env.PATH, HOME: home, BOURDON_HOME: path.join(home, '.bourdon'), NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  },
);
let stderr = '';
child.stderr.on('data', (chunk) => (stderr += chunk));
const events = [];
const waiters = [];
readline.createInterface({ input: child.stdout }).on('line', (line) => {
  try {
    events.push(JSON.parse(line));
  } catch {
    stderr += `${line}\n`;
  }
  for (const waiter of [...waiters]) waiter();
});
const waitFor = (test, from = 0) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out; events ${JSON.stringify(events)} ${stderr}`)), 60_000);
    const look = () => {
      const found = events.slice(from).find(test);
      if (!found) return;
      clearTimeout(timer);
      waiters.splice(waiters.indexOf(look), 1);
      resolve(found);
    };
    waiters.push(look);
    look();
  });
const result = {};
try {
  await waitFor((e) => e.event === 'watching');
  // Full: a filler up to the last byte.
  const stat = fs.statfsSync(dir);
  try {
    fs.writeFileSync(filler, Buffer.alloc(Number(stat.bavail * stat.bsize), 0x46));
  } catch {
    // full already: what we want
  }
  fs.writeFileSync(cascade, memory(['Alpha']));
  result.failed = await waitFor((e) => e.event === 'failed' && e.agent === 'cascade');
  // Changed again on the full disk: tried, not said again (the marker is the status file's next write… none: wait a while).
  fs.writeFileSync(cascade, memory(['Alpha', 'Beta']));
  await new Promise((resolve) => setTimeout(resolve, 3000));
  result.failedCount = events.filter((e) => e.event === 'failed').length;
  result.agentsLeft = fs.readdirSync(path.join(library, 'agents'));
  fs.rmSync(filler, { force: true });
  const from = events.length;
  fs.writeFileSync(cascade, memory(['Alpha', 'Beta', 'Gamma']));
  result.exported = await waitFor((e) => e.event === 'exported' && e.agent === 'cascade', from);
  result.live = fs.readFileSync(path.join(library, 'agents', 'cascade.l5.yaml'), 'utf8').includes('Gamma');
} catch (error) {
  result.error = String(error);
}
child.kill('SIGTERM');
result.code = await new Promise((resolve) => child.on('close', resolve));
result.lockLeft = fs.existsSync(path.join(library, '.bourdon-watch.lock'));
process.stdout.write(JSON.stringify(result));
