// Real file-system faults, for hardening.disk.test.ts. Runs inside `unshare -rm` (a user and
// mount namespace, no privileges needed) with a small tmpfs mounted on <dir>, so ENOSPC and
// EROFS come from the kernel through the real write path — no seam, no mocks.
//
// 1. Full disk: for each amount of free space from 0 pages to a little more than a commit
//    needs, fill the tmpfs with a filler file leaving exactly that much, commit a row, record
//    what happened (error or version; whether the live file is byte for byte the old one, or
//    parses with the row), free the space, commit again (must succeed), and check the history
//    is whole. The manifest spans several pages, so writes also fail part-way through a file.
// 2. Read-only: remount the tmpfs read-only, commit (must fail, file unchanged), remount
//    read-write, commit (must succeed).
// 3. The member registry on a full disk: an error, the file unchanged, until there is room.
// 4. The CLI on a full and on a read-only disk: exit 1, one line on stderr, file unchanged.
// Prints one JSON object. Usage: node disk-fault.mjs <repoRoot> <dir>
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [repoRoot, dir] = process.argv.slice(2);
const load = (file) => import(pathToFileURL(path.join(repoRoot, 'dist', 'core', file)).href);
const { LibraryStore, parseManifest } = await load('store/library.js');
const { createContext } = await load('context.js');
const { commitToFederation } = await load('writes/commit.js');
const { readHistory, readArchivedBytes } = await load('writes/history.js');
const { sha256 } = await load('writes/version-record.js');

const library = path.join(dir, 'library');
const filler = path.join(dir, 'filler');
const livePath = path.join(library, 'agents', 'disk.l5.yaml');
fs.mkdirSync(path.join(library, 'agents'), { recursive: true });
const warnings = [];
// A short history keeps the tmpfs from filling with archives, and adds pruning to every write.
const ctx = createContext(new LibraryStore(library, { warn: () => {} }), {
  warn: (m) => warnings.push(m),
  env: { BOURDON_HISTORY_KEEP: '3' },
});

function freeBytes() {
  const stat = fs.statfsSync(dir);
  return stat.bavail * stat.bsize;
}

/** Leaves exactly `bytes` free (tmpfs counts whole pages). */
function fillLeaving(bytes) {
  fs.rmSync(filler, { force: true });
  const size = freeBytes() - bytes;
  if (size > 0) {
    const fd = fs.openSync(filler, 'w');
    try {
      const chunk = Buffer.alloc(64 * 1024, 0x46);
      for (let done = 0; done < size;) {
        const n = Math.min(chunk.length, size - done);
        done += fs.writeSync(fd, chunk, 0, n);
      }
    } finally {
      fs.closeSync(fd);
    }
  }
  return freeBytes();
}

/** The entity names of the live manifest, or null when it does not parse (torn). */
function names() {
  try {
    return parseManifest(fs.readFileSync(livePath, 'utf8'), 'disk.l5.yaml', livePath).entities.map((e) => e.name);
  } catch {
    return null;
  }
}

function historyCheck() {
  const state = readHistory(new LibraryStore(library).paths, 'disk');
  const versions = state.records.map((r) => r.version);
  const contiguous = versions.every((v, i) => i === 0 || v === versions[i - 1] + 1);
  const archivesMatch = state.records.every((r) => sha256(readArchivedBytes(state.dir, r.version)) === r.sha256);
  const liveIsLatest = sha256(fs.readFileSync(livePath)) === state.records[state.records.length - 1]?.sha256;
  const stray = [];
  for (const sub of [path.join(library, 'agents'), state.dir, library]) {
    for (const name of fs.readdirSync(sub))
      if (/\.\d+(?:\.tmp)?$/.test(name) || name === 'pending.json' || name.startsWith('.bourdon.lock'))
        stray.push(name);
  }
  return {
    damaged: state.damaged,
    contiguous,
    archivesMatch,
    liveIsLatest,
    stray,
    latest: versions[versions.length - 1] ?? null,
  };
}

function cli(args) {
  const result = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'run.js'), ...args], {
    env: {
      PATH: process.env.PATH,
      HOME: dir,
      BOURDON_HOME: path.join(dir, 'home'),
      BOURDON_NO_CACHE: '1',
      NO_COLOR: '1',
    },
    encoding: 'utf8',
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

// A manifest of ~6 pages: a write needs a page for the pending record, then the archive and
// the live temp file, so the sweep crosses every step, and most steps fail part-way through.
const base = await commitToFederation(ctx, {
  agent_id: 'disk',
  agent_type: 'other',
  entities: Array.from({ length: 220 }, (_, i) => ({ name: `base-${i}`, summary: `row ${i} of the base manifest` })),
});
if (base.error) throw new Error(base.error);

const page = fs.statfsSync(dir).bsize;
const manifestPages = Math.ceil(fs.statSync(livePath).size / page);
const full = [];
for (let pages = 0; pages <= 2 * manifestPages + 4; pages++) {
  const before = fs.readFileSync(livePath);
  const free = fillLeaving(pages * page);
  warnings.length = 0;
  const payload = await commitToFederation(ctx, { agent_id: 'disk', entities: [{ name: `row-${pages}` }] });
  const after = fs.readFileSync(livePath);
  const now = names();
  const parses = now !== null;
  const hasRow = parses && now.includes(`row-${pages}`);
  fs.rmSync(filler, { force: true });
  const next = await commitToFederation(ctx, { agent_id: 'disk', entities: [{ name: `after-${pages}` }] });
  full.push({
    pages,
    free,
    error: payload.error ?? null,
    version: payload.version ?? null,
    unchanged: after.equals(before),
    parses,
    hasRow,
    warnings: [...warnings],
    nextError: next.error ?? null,
    nextHasRow: names()?.includes(`after-${pages}`) ?? false,
    history: historyCheck(),
  });
}

// Read-only file system.
const mountArgs = (mode) => ['-o', `remount,${mode}`, dir];
const beforeRo = fs.readFileSync(livePath);
execFileSync('mount', mountArgs('ro'));
const roPayload = await commitToFederation(ctx, { agent_id: 'disk', entities: [{ name: 'read-only' }] });
const roUnchanged = fs.readFileSync(livePath).equals(beforeRo);
const rows = path.join('/tmp', `bourdon-disk-rows-${process.pid}.json`);
fs.writeFileSync(rows, JSON.stringify({ entities: [{ name: 'from-cli' }] }));
const roCli = cli(['commit', 'disk', '--file', rows, '--library', library]);
const roCliUnchanged = fs.readFileSync(livePath).equals(beforeRo);
execFileSync('mount', mountArgs('rw'));
const rwPayload = await commitToFederation(ctx, { agent_id: 'disk', entities: [{ name: 'read-write-again' }] });

// The member registry on a full disk (its file spans several pages).
const { FederationRegistry } = await load('trust/registry.js');
const registryFile = path.join(dir, 'home', 'federation.yaml');
const members = new FederationRegistry(registryFile, { warn: () => {} });
for (let i = 0; i < 40; i++) members.add(`member-${i}`, { grants: ['disk'] });
const registryBefore = fs.readFileSync(registryFile);
const registryResults = [];
for (let pages = 0; pages <= Math.ceil(registryBefore.length / page) + 4; pages++) {
  fillLeaving(pages * page);
  let error = null;
  try {
    members.add(`full-${pages}`);
  } catch (problem) {
    error = problem.message;
  }
  const now = fs.readFileSync(registryFile);
  registryResults.push({
    pages,
    error,
    unchanged: now.equals(registryBefore),
    size: now.length,
    stray: fs.readdirSync(path.dirname(registryFile)).filter((n) => n !== 'federation.yaml'),
  });
  fs.rmSync(filler, { force: true });
  if (!error) break;
}
const registryAfter = new FederationRegistry(registryFile, { warn: () => {} }).list().length;

// The CLI on a full disk.
const beforeFull = fs.readFileSync(livePath);
fillLeaving(0);
const fullCli = cli(['commit', 'disk', '--file', rows, '--library', library]);
const fullCliJson = cli(['commit', 'disk', '--file', rows, '--library', library, '--json']);
const fullCliUnchanged = fs.readFileSync(livePath).equals(beforeFull);
fs.rmSync(filler, { force: true });
const afterCli = cli(['commit', 'disk', '--file', rows, '--library', library, '--json']);
fs.rmSync(rows, { force: true });

process.stdout.write(
  JSON.stringify({
    page,
    manifestPages,
    full,
    readOnly: {
      error: roPayload.error ?? null,
      unchanged: roUnchanged,
      cli: roCli,
      cliUnchanged: roCliUnchanged,
      recovered: rwPayload.error ?? rwPayload.version,
    },
    fullCli: { human: fullCli, json: fullCliJson, unchanged: fullCliUnchanged, after: afterCli },
    registry: { attempts: registryResults, membersAfter: registryAfter },
    finalHistory: historyCheck(),
    names: names(),
  }),
);
