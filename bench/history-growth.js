#!/usr/bin/env node
// History storage (run after a build): 100 small commits (one new entity each) to the 315 KB
// benchmark manifest, then how much the library grew, against the manifest's size. Also checks
// that every version reads back with its recorded hash. Flags: --commits <n> (default 100), --json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { manifestText } from './generate.js';
import { flagReader, ROOT } from './lib.js';

const flag = flagReader();
const COMMITS = Number(flag('--commits', '100'));
const asJson = process.argv.includes('--json');
const DIST = path.join(ROOT, 'dist');
const { LibraryStore } = await import(path.join(DIST, 'core', 'store', 'library.js'));
const { createContext } = await import(path.join(DIST, 'core', 'context.js'));
const { commitLive } = await import(path.join(DIST, 'core', 'writes', 'writes.js'));
const { readHistory, readArchive } = await import(path.join(DIST, 'core', 'writes', 'history.js'));
const { sha256 } = await import(path.join(DIST, 'core', 'writes', 'version-record.js'));

const library = fs.mkdtempSync(path.join(os.tmpdir(), 'bourdon-history-growth-'));
const size = (dir) =>
  fs.readdirSync(dir, { withFileTypes: true }).reduce((sum, entry) => {
    const full = path.join(dir, entry.name);
    return sum + (entry.isDirectory() ? size(full) : fs.statSync(full).size);
  }, 0);
try {
  fs.mkdirSync(path.join(library, 'agents'));
  const { id, text } = manifestText(0, { entities: 1000, sessions: 500, notes: 50 });
  fs.writeFileSync(path.join(library, 'agents', `${id}.l5.yaml`), text);
  const ctx = createContext(new LibraryStore(library, { warn: () => {} }), { warn: () => {}, env: {} });
  const manifest = fs.statSync(path.join(library, 'agents', `${id}.l5.yaml`)).size;
  const before = size(library);
  // The first commit also records the hand-written file as version 1 (op external): its base
  // copy is counted in the growth.
  const cpu = process.cpuUsage();
  for (let i = 0; i < COMMITS; i++) {
    const result = await commitLive(
      ctx,
      { agent_id: id, entities: [{ name: `Small commit ${i}`, type: 'concept', summary: `row ${i}` }] },
      { op: 'commit', actor: null },
    );
    if (result.error) throw new Error(result.error);
  }
  const used = process.cpuUsage(cpu);
  const grown = size(library) - before;
  const state = readHistory(ctx.store.paths, id);
  let checked = 0;
  for (const record of state.records) {
    if (sha256(readArchive(state, record.version)) !== record.sha256)
      throw new Error(`version ${record.version} differs`);
    checked += 1;
  }
  const result = {
    manifest_bytes: manifest,
    commits: COMMITS,
    grown_bytes: grown,
    ratio: grown / manifest,
    whole_copies_ratio: COMMITS,
    cpu_ms_per_commit: (used.user + used.system) / 1000 / COMMITS,
    versions_checked: checked,
  };
  if (asJson) process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  else
    process.stdout.write(
      `history: ${COMMITS} commits of one entity to a ${(manifest / 1024).toFixed(0)} KB manifest grew the library by ` +
        `${(grown / 1024).toFixed(0)} KB = ${result.ratio.toFixed(2)}× the manifest (whole copies: ${COMMITS}×); ` +
        `${result.cpu_ms_per_commit.toFixed(0)} ms CPU per commit; ${checked} versions read back with their hashes\n`,
    );
} finally {
  fs.rmSync(library, { recursive: true, force: true });
}
