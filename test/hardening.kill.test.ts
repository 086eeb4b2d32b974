/**
 * SIGKILL of a writer, beyond commits (covered in writes.concurrency.test.ts): the member
 * registry, staged writes, and a promotion. Each round starts a real process that writes in a
 * loop, kills it at a random moment (most land while it holds its lock, mid-write), then checks:
 * - the file is whole (parses) and holds every write the killed process acknowledged;
 * - the next writer gets the lock at once (the dead holder is recognised, not waited out), and
 *   leaves no temp file behind;
 * - a promotion killed at any point loses no row: each is live, or still staged for the next one
 *   (which merges it again: rows already live are updated in place, never doubled).
 * Needs the built dist/ (`npx tsc -p tsconfig.build.json`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OPERATOR } from '../src/core/trust/caller.js';
import { commitToFederation } from './helpers/write-calls.js';
import { createContext } from '../src/core/context.js';
import { readArchivedBytes, readHistory } from '../src/core/writes/history.js';
import { sha256 } from '../src/core/writes/version-record.js';
import { LibraryStore, parseManifest } from '../src/core/store/library.js';
import { callerFor, FederationRegistry, lockConfigFile, parseRegistry } from '../src/core/trust/registry.js';
import { withoutLockWait } from './helpers/foreign-lock.js';
import { promoteStaged, stageCommit } from '../src/core/writes/staging.js';
import { parseYaml } from '../src/core/store/yaml.js';
import { REPO_ROOT, tempDir } from './helpers/fixtures.js';
import { spawnHelperScript, type Spawned } from './helpers/spawn.js';
import { at } from './helpers/items.js';

const cleanup: string[] = [];
afterAll(() => {
  for (const dir of cleanup) fs.rmSync(dir, { recursive: true, force: true });
});

/** The kill-test helpers take the repository root as their first argument. */
function spawnHelper(script: string, args: string[]): Spawned {
  return spawnHelperScript(script, [REPO_ROOT, ...args]);
}

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Kills the writer at a random moment after its first acknowledged write; returns what it acknowledged. */
async function killMidWrite(writer: Spawned, maxDelayMs: number): Promise<number[]> {
  await until(() => /\d+\n/.test(writer.stdout()), 15_000, `the first write (${writer.stderr()})`);
  await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * maxDelayMs)));
  writer.child.kill('SIGKILL');
  await writer.exited;
  return [...writer.stdout().matchAll(/^(\d+)$/gm)].map((match) => Number(match[1]));
}

const tempFiles = (dir: string) => fs.readdirSync(dir).filter((name) => /\.\d+(?:\.tmp)?$/.test(name));

describe('the member registry, its writer killed mid-write', () => {
  it('stays whole, keeps every acknowledged member, and the next admin gets the lock at once', async () => {
    const home = tempDir('bourdon-kill-registry-');
    cleanup.push(home);
    const file = path.join(home, 'federation.yaml');
    // A registry of some size, so each rewrite takes a while and kills land inside it.
    const seed = new FederationRegistry(file, { warn: () => {} });
    for (let i = 0; i < 150; i++) seed.add(`seed-${i}`, { grants: ['a', 'b'] });
    let lockLeftBehind = 0;
    for (let round = 0; round < 4; round++) {
      const acknowledged = await killMidWrite(spawnHelper('registry-loop.mjs', [file, `r${round}`]), 150);
      if (fs.existsSync(`${file}.lock`)) lockLeftBehind += 1;
      const rows = parseRegistry(fs.readFileSync(file, 'utf8')); // throws on a torn file
      for (const i of acknowledged) {
        expect(rows.get(`r${round}-${i}`), `member r${round}-${i}`).toMatchObject({ grants: [`ns-${i % 7}`] });
      }
      // The next admin gets the lock at once: with no wait at all (0 tries once), not by staleness.
      lockConfigFile(file, 0)();
      const registry = new FederationRegistry(file, { warn: () => {} });
      registry.add(`after-${round}`);
      expect(registry.get(`after-${round}`)).toMatchObject({ tier: 'quarantined' });
      expect(fs.existsSync(`${file}.lock`)).toBe(false);
      expect(tempFiles(home)).toEqual([]);
    }
    expect(parseRegistry(fs.readFileSync(file, 'utf8')).size).toBeGreaterThanOrEqual(154);
    expect(lockLeftBehind).toBeGreaterThan(0); // at least one kill landed while it held the lock
  }, 40_000);
});

describe('staged writes, their writer killed mid-write', () => {
  it('stay whole, keep every acknowledged write, and the next write gets the gate at once', async () => {
    const library = tempDir('bourdon-kill-staging-');
    cleanup.push(library);
    fs.mkdirSync(path.join(library, 'agents'));
    const store = new LibraryStore(library, { warn: () => {} });
    const member = createContext(store, {
      warn: () => {},
      caller: callerFor('m', { tier: 'quarantined', grants: [] }),
    });
    const base = Array.from({ length: 1200 }, (_, i) => ({ name: `base-${i}`, summary: `staged row ${i} `.repeat(6) }));
    expect((await stageCommit(member, { agent_id: 'm', agent_type: 'other', entities: base })).staged).toBe(true);
    const staged = path.join(library, 'staging', 'm', 'm.l5.yaml');
    let lockLeftBehind = 0;
    for (let round = 0; round < 4; round++) {
      const acknowledged = await killMidWrite(spawnHelper('stage-loop.mjs', [library, 'm', `r${round}`]), 200);
      if (fs.existsSync(path.join(library, '.bourdon.lock'))) lockLeftBehind += 1;
      const doc = parseYaml(fs.readFileSync(staged, 'utf8')) as { known_entities: { name: string }[] };
      const names = new Set(doc.known_entities.map((entity) => entity.name));
      expect(names.size).toBe(doc.known_entities.length);
      for (let i = 0; i < 1200; i++) expect(names.has(`base-${i}`)).toBe(true);
      for (const i of acknowledged) expect(names.has(`r${round}-${i}`), `r${round}-${i}`).toBe(true);
      // At once: with no lock wait, only a recovery of the killed writer's lock lets it through.
      await withoutLockWait(async () => {
        expect((await stageCommit(member, { agent_id: 'm', entities: [{ name: `after-${round}` }] })).staged).toBe(
          true,
        );
      });
      expect(fs.readdirSync(path.dirname(staged))).toEqual(['m.l5.yaml']); // temp files of the killed writer swept
    }
    expect(lockLeftBehind).toBeGreaterThan(0);
  }, 40_000);

  it('a promotion killed half-way loses no row: each is live or still staged, and the next promotion finishes', async () => {
    const library = tempDir('bourdon-kill-promote-');
    cleanup.push(library);
    fs.mkdirSync(path.join(library, 'agents'));
    const store = new LibraryStore(library, { warn: () => {} });
    const operator = createContext(store, { warn: () => {}, caller: OPERATOR, env: { BOURDON_HISTORY_KEEP: '1000' } });
    await commitToFederation(operator, { agent_id: 'm', agent_type: 'other', entities: [{ name: 'live-before' }] });
    const expected = new Set(['live-before']);
    const livePath = path.join(library, 'agents', 'm.l5.yaml');
    const liveNames = () =>
      new Set(
        parseManifest(fs.readFileSync(livePath, 'utf8'), 'm.l5.yaml', livePath).entities.map((entity) => entity.name),
      );
    for (let round = 0; round < 3; round++) {
      const member = createContext(store, {
        warn: () => {},
        caller: callerFor('m', { tier: 'quarantined', grants: [] }),
      });
      const rows = Array.from({ length: 1500 }, (_, i) => ({ name: `r${round}-${i}`, summary: `row ${i} `.repeat(8) }));
      expect((await stageCommit(member, { agent_id: 'm', agent_type: 'other', entities: rows })).staged).toBe(true);
      for (const row of rows) expected.add(row.name);
      const promoter = spawnHelper('stage-loop.mjs', [library, 'm', '--promote']);
      await until(() => promoter.stdout().includes('start'), 15_000, 'the promotion to start');
      await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 250)));
      promoter.child.kill('SIGKILL');
      await promoter.exited;
      // Nothing lost: every row is live or still staged.
      const live = liveNames();
      const stagedNames = new Set<string>();
      const stagedFile = path.join(library, 'staging', 'm', 'm.l5.yaml');
      if (fs.existsSync(stagedFile)) {
        for (const entity of (parseYaml(fs.readFileSync(stagedFile, 'utf8')) as { known_entities: { name: string }[] })
          .known_entities)
          stagedNames.add(entity.name);
      }
      for (const name of expected) expect(live.has(name) || stagedNames.has(name), name).toBe(true);
      // The next promotion (if anything is left) finishes it, at once.
      if (stagedNames.size > 0) {
        await withoutLockWait(() => promoteStaged(operator, 'm').then(() => undefined));
      }
      const after = liveNames();
      for (const name of expected) expect(after.has(name), name).toBe(true);
      expect(fs.existsSync(path.join(library, 'staging', 'm'))).toBe(false);
    }
    const state = readHistory(store.paths, 'm');
    expect(state.damaged).toBe(false);
    for (const record of state.records)
      expect(sha256(readArchivedBytes(state.dir, record.version))).toBe(record.sha256);
    expect(sha256(fs.readFileSync(livePath))).toBe(at(state.records, -1).sha256);
    expect(state.records.every((record) => ['commit', 'promote'].includes(record.op))).toBe(true);
    expect(tempFiles(path.join(library, 'agents'))).toEqual([]);
  }, 60_000);
});
