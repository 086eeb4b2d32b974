/**
 * Faults during writes, injected deterministically through the writer seam
 * (`OperationContext.files`, test/helpers/faults.ts): a full disk (the kernel's ENOSPC, from
 * /dev/full) or a read-only file system (EROFS) at every single step of a commit, a staged
 * write, a promotion and a rollback. Whatever step fails:
 * - before the live file is replaced: a clear error payload, the old file byte for byte, the
 *   history unchanged;
 * - after: the write has happened (success, with a warning), and the next write completes its
 *   history record;
 * - then a normal write succeeds, numbering on, with a consistent history and no leftovers.
 * The same faults from a real kernel (a tiny tmpfs, a read-only remount) are in
 * hardening.disk.test.ts. Also here: a clock that jumps, and history indexes lost or garbled.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OPERATOR, type Caller } from '../src/core/trust/caller.js';
import {
  commitToFederation,
  explainMemoryChange,
  listMemoryVersions,
  rollbackAgentMemory,
} from './helpers/write-calls.js';
import { createContext, type OperationContext } from '../src/core/context.js';
import { exportAgents } from '../src/core/operations/export.js';
import { MAX_CLOCK_STEP_BACK_MS } from '../src/core/writes/clock.js';
import { archiveFile, INDEX_FILE, PENDING_FILE, readArchivedBytes, readHistory } from '../src/core/writes/history.js';
import { sha256 } from '../src/core/writes/version-record.js';
import { LibraryStore, parseManifest } from '../src/core/store/library.js';
import { callerFor } from '../src/core/trust/registry.js';
import { promoteStaged, stageCommit } from '../src/core/writes/staging.js';
import { parseYaml } from '../src/core/store/yaml.js';
import { FaultyWriter, type Fault } from './helpers/faults.js';
import { tempDir } from './helpers/fixtures.js';
import { at } from './helpers/items.js';

const cleanup: string[] = [];
afterAll(() => {
  for (const dir of cleanup) fs.rmSync(dir, { recursive: true, force: true });
});

function freshLibrary(): string {
  const library = tempDir('bourdon-faults-');
  cleanup.push(library);
  fs.mkdirSync(path.join(library, 'agents'));
  return library;
}

interface Ctx extends OperationContext {
  warnings: string[];
}

function context(library: string, overrides: Partial<OperationContext> = {}): Ctx {
  const warnings: string[] = [];
  const home = path.join(library, '..', `${path.basename(library)}-home`);
  const ctx = createContext(new LibraryStore(library, { warn: () => {} }), {
    warn: (message) => warnings.push(message),
    env: { BOURDON_HOME: home, BOURDON_HISTORY_KEEP: '1000' },
    config: {
      home,
      registry: path.join(home, 'federation.yaml'),
      audit: path.join(home, 'audit.jsonl'),
      peers: path.join(home, 'peers.yaml'),
    },
    ...overrides,
  });
  cleanup.push(home);
  return Object.assign(ctx, { warnings });
}

const live = (library: string, agent = 'a') => fs.readFileSync(path.join(library, 'agents', `${agent}.l5.yaml`));

function entityNames(library: string, agent = 'a'): string[] {
  const file = path.join(library, 'agents', `${agent}.l5.yaml`);
  return parseManifest(fs.readFileSync(file, 'utf8'), `${agent}.l5.yaml`, file).entities.map((entity) => entity.name);
}

/** Files a writer leaves only while it is in flight (temp files, a pending record), anywhere in the library. */
function leftovers(library: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.\d+(?:\.tmp)?$/.test(entry.name) || entry.name === PENDING_FILE)
        found.push(path.relative(library, full));
    }
  };
  walk(library);
  return found;
}

/** History is whole: numbered 1…n, every archive matches its record, the live file is the newest. */
function expectConsistent(library: string, agent = 'a'): number[] {
  const state = readHistory(new LibraryStore(library).paths, agent);
  expect(state.damaged).toBe(false);
  const versions = state.records.map((record) => record.version);
  expect(versions).toEqual(Array.from({ length: versions.length }, (_, i) => i + 1));
  for (const record of state.records) expect(sha256(readArchivedBytes(state.dir, record.version))).toBe(record.sha256);
  expect(sha256(live(library, agent))).toBe(at(state.records, -1).sha256);
  expect(leftovers(library)).toEqual([]);
  return versions;
}

/** A library with agent `a` at version 2. */
async function twoVersions(): Promise<string> {
  const library = freshLibrary();
  const ctx = context(library);
  await commitToFederation(ctx, { agent_id: 'a', agent_type: 'other', entities: [{ name: 'one' }] });
  await commitToFederation(ctx, { agent_id: 'a', entities: [{ name: 'two' }] });
  return library;
}

describe('a full disk or a read-only file system at every step of a commit', () => {
  it('writes in the documented order: pending record, archive, live file, index line', async () => {
    const library = await twoVersions();
    const writer = new FaultyWriter();
    await commitToFederation(context(library, { files: writer }), { agent_id: 'a', entities: [{ name: 'three' }] });
    expect(writer.calls.map((call) => [call.kind, path.basename(call.target)])).toEqual([
      ['replace', PENDING_FILE],
      ['replace', 'v000003.l5.yaml.gz'],
      ['replace', 'a.l5.yaml'],
      ['append', INDEX_FILE],
    ]);
  });

  for (const fault of ['ENOSPC', 'EROFS'] as Fault[]) {
    it(`${fault}: the old file survives with a clear error, or the write completes; the next write is clean`, async () => {
      const steps = 4;
      const liveStep = 2;
      for (let failAt = 0; failAt < steps; failAt++) {
        const library = await twoVersions();
        const before = live(library);
        const writer = new FaultyWriter(failAt, fault);
        const ctx = context(library, { files: writer });
        const payload = await commitToFederation(ctx, { agent_id: 'a', entities: [{ name: 'three' }] });
        const label = `${fault} at step ${failAt} (${writer.failed?.kind} ${path.basename(writer.failed?.target ?? '')})`;
        expect(writer.failed, label).not.toBeNull();
        if (failAt <= liveStep) {
          expect(payload, label).toEqual({
            error: expect.stringMatching(
              new RegExp(
                `^cannot write .*a\\.l5\\.yaml: [^;]*\\(${fault}\\); nothing was written, the manifest is unchanged$`,
              ),
            ),
            agent_id: 'a',
            mode: 'merge',
          });
          expect(live(library).equals(before), label).toBe(true);
          expect(
            readHistory(ctx.store.paths, 'a').records.map((r) => r.version),
            label,
          ).toEqual([1, 2]);
          expect(fs.existsSync(path.join(library, 'history', 'a', PENDING_FILE)), label).toBe(false);
          expect(fs.existsSync(archiveFile(path.join(library, 'history', 'a'), 3)), label).toBe(false);
        } else {
          // The live file was replaced: the commit happened; its index line is completed later.
          expect(payload.version, label).toBe(3);
          expect(entityNames(library), label).toContain('three');
          expect(ctx.warnings.join('\n'), label).toMatch(
            /version 3 of a was written, but its history record could not be completed/,
          );
        }
        const next = await commitToFederation(context(library), { agent_id: 'a', entities: [{ name: 'four' }] });
        expect(next.error, label).toBeUndefined();
        expect(next.version, label).toBe(failAt <= liveStep ? 3 : 4);
        expect(entityNames(library), label).toEqual(
          failAt <= liveStep ? ['one', 'two', 'four'] : ['one', 'two', 'three', 'four'],
        );
        expectConsistent(library);
      }
    });
  }

  it('a fault while capturing an external edit loses neither the edit nor the old versions', async () => {
    const library = await twoVersions();
    fs.appendFileSync(path.join(library, 'agents', 'a.l5.yaml'), '# edited by hand\n');
    const edited = live(library);
    for (let failAt = 0; failAt < 3; failAt++) {
      const payload = await commitToFederation(context(library, { files: new FaultyWriter(failAt) }), {
        agent_id: 'a',
        entities: [{ name: 'x' }],
      });
      expect(payload.error).toMatch(/ENOSPC/);
      expect(live(library).equals(edited)).toBe(true);
    }
    const next = await commitToFederation(context(library), { agent_id: 'a', entities: [{ name: 'x' }] });
    expect(next.version).toBe(4);
    const state = readHistory(new LibraryStore(library).paths, 'a');
    expect(state.records.map((r) => r.op)).toEqual(['commit', 'commit', 'external', 'commit']);
    expect(readArchivedBytes(state.dir, 3).equals(edited)).toBe(true);
    expectConsistent(library);
  });

  it('a staged write, a promotion and a rollback fail the same clear way, and leave nothing half done', async () => {
    const library = await twoVersions();
    const member: Caller = callerFor('m', { tier: 'quarantined', grants: [] });
    const staged = path.join(library, 'staging', 'm', 'm.l5.yaml');
    expect(
      (
        await stageCommit(context(library, { caller: member }), {
          agent_id: 'm',
          agent_type: 'other',
          entities: [{ name: 'first' }],
        })
      ).staged,
    ).toBe(true);
    const stagedBefore = fs.readFileSync(staged);

    const refused = await stageCommit(context(library, { caller: member, files: new FaultyWriter(0) }), {
      agent_id: 'm',
      entities: [{ name: 'second' }],
    });
    expect(refused.error).toMatch(
      /^cannot write .*m\.l5\.yaml: no space left on the device \(ENOSPC\); nothing was staged, the staged file is unchanged$/,
    );
    expect(fs.readFileSync(staged).equals(stagedBefore)).toBe(true);
    expect(
      (await stageCommit(context(library, { caller: member }), { agent_id: 'm', entities: [{ name: 'second' }] }))
        .staged,
    ).toBe(true);
    expect(fs.readdirSync(path.dirname(staged))).toEqual(['m.l5.yaml']); // the half-written temp file was swept

    for (let failAt = 0; failAt < 3; failAt++) {
      await expect(
        promoteStaged(context(library, { caller: OPERATOR, files: new FaultyWriter(failAt, 'EROFS') }), 'm'),
      ).rejects.toThrow(
        /^cannot promote .*m\.l5\.yaml: cannot write .*: read-only file system \(EROFS\).*nothing was written/,
      );
      expect(fs.existsSync(staged)).toBe(true);
      expect(fs.existsSync(path.join(library, 'agents', 'm.l5.yaml'))).toBe(false);
    }
    const promoted = await promoteStaged(context(library), 'm');
    expect(promoted.promoted).toHaveLength(1);
    expect(entityNames(library, 'm')).toEqual(['first', 'second']);
    expect(fs.existsSync(staged)).toBe(false);
    expectConsistent(library, 'm');

    const before = live(library);
    for (let failAt = 0; failAt < 3; failAt++) {
      const rolled = await rollbackAgentMemory(context(library, { files: new FaultyWriter(failAt) }), {
        agent_id: 'a',
        version: 1,
      });
      expect(rolled.error).toMatch(
        /^cannot write .*a\.l5\.yaml: no space left on the device \(ENOSPC\).*nothing was written/,
      );
      expect(live(library).equals(before)).toBe(true);
    }
    expect(await rollbackAgentMemory(context(library), { agent_id: 'a', version: 1 })).toMatchObject({
      version: 3,
      restored_version: 1,
    });
    expect(expectConsistent(library)).toEqual([1, 2, 3]);
  });
});

describe('a clock that jumps', () => {
  const T0 = Date.parse('2026-06-10T12:00:00.000Z');
  const HOUR = 3600_000;

  it('backwards: versions number on, history stays in order, last_updated never goes back', async () => {
    const library = freshLibrary();
    let clock = T0;
    const ctx = context(library, { now: () => new Date(clock) });
    const commit = async (name: string) =>
      commitToFederation(ctx, { agent_id: 'a', agent_type: 'other', entities: [{ name }] });

    expect(await commit('at-t0')).toMatchObject({ version: 1, last_updated: '2026-06-10T12:00:00+00:00' });
    clock = T0 - HOUR; // NTP steps the clock back an hour
    expect(await commit('an-hour-back')).toMatchObject({
      version: 2,
      last_updated: '2026-06-10T12:00:00.001000+00:00',
    });
    clock = T0 - 5 * HOUR; // and further back
    expect(await commit('five-hours-back')).toMatchObject({
      version: 3,
      last_updated: '2026-06-10T12:00:00.002000+00:00',
    });
    clock = T0 + HOUR; // then forward again: the clock is taken as it is
    expect(await commit('an-hour-on')).toMatchObject({ version: 4, last_updated: '2026-06-10T13:00:00+00:00' });
    clock = T0 - 2 * HOUR;
    const rolled = await rollbackAgentMemory(ctx, { agent_id: 'a', version: 1 });
    expect(rolled).toMatchObject({ version: 5, restored_version: 1 });

    const listed = (await listMemoryVersions(ctx, { agent_id: 'a' })) as {
      versions: { version: number; ts: string; op: string; current: boolean }[];
    };
    expect(listed.versions.map((v) => [v.version, v.ts, v.current])).toEqual([
      [5, '2026-06-10T13:00:00.001Z', true],
      [4, '2026-06-10T13:00:00.000Z', false],
      [3, '2026-06-10T12:00:00.002Z', false],
      [2, '2026-06-10T12:00:00.001Z', false],
      [1, '2026-06-10T12:00:00.000Z', false],
    ]);
    // The default comparison is with the version before, by number.
    expect(
      ((await explainMemoryChange(ctx, { agent_id: 'a', version: 3 })).entities ?? { added: [] }).added.map(
        (row) => row.name,
      ),
    ).toEqual(['five-hours-back']);
    // The rollback restored version 1's bytes exactly, last_updated included.
    expect((parseYaml(live(library).toString('utf8')) as { last_updated: string }).last_updated).toBe(
      '2026-06-10T12:00:00+00:00',
    );
    expectConsistent(library);
  });

  it('a stamp more than a day ahead is taken to be the wrong one: the clock wins, numbering still goes on', async () => {
    const library = freshLibrary();
    let clock = T0;
    const ctx = context(library, { now: () => new Date(clock) });
    await commitToFederation(ctx, { agent_id: 'a', agent_type: 'other', entities: [{ name: 'x' }] });
    clock = T0 - MAX_CLOCK_STEP_BACK_MS - HOUR; // a clock that was a day and more ahead, now corrected
    expect(await commitToFederation(ctx, { agent_id: 'a', entities: [{ name: 'y' }] })).toMatchObject({
      version: 2,
      last_updated: new Date(clock).toISOString().replace('.000Z', '+00:00'),
    });
    expect(readHistory(ctx.store.paths, 'a').records.map((r) => r.version)).toEqual([1, 2]);
  });

  it("a manifest stamped ahead by another writer's clock keeps the agent's time moving forward", async () => {
    const library = freshLibrary();
    const ahead = '2026-06-10T12:30:00.250000+00:00';
    fs.writeFileSync(
      path.join(library, 'agents', 'b.l5.yaml'),
      `spec_version: '0.1'\nagent: {id: b, type: other}\nlast_updated: '${ahead}'\nknown_entities: []\n`,
    );
    fs.writeFileSync(
      path.join(library, 'agents', 'c.l5.yaml'),
      `spec_version: '0.1'\nagent: {id: c, type: other}\nlast_updated: '2099-01-01T00:00:00Z'\nknown_entities: []\n`,
    );
    const ctx = context(library, { now: () => new Date(T0) });
    expect(await commitToFederation(ctx, { agent_id: 'b', entities: [{ name: 'x' }] })).toMatchObject({
      last_updated: '2026-06-10T12:30:00.251000+00:00',
    });
    expect(await commitToFederation(ctx, { agent_id: 'c', entities: [{ name: 'x' }] })).toMatchObject({
      last_updated: '2026-06-10T12:00:00+00:00',
    });
    // Newest write first in the export, as its last_updated says.
    const exported = (await exportAgents(ctx)).agents as { id: string }[];
    expect(exported.map((agent) => agent.id)).toEqual(['b', 'c']);
  });

  it('a staged write is never stamped earlier than the one before it', async () => {
    const library = freshLibrary();
    let clock = T0;
    const member = context(library, {
      caller: callerFor('m', { tier: 'quarantined', grants: [] }),
      now: () => new Date(clock),
    });
    await stageCommit(member, { agent_id: 'm', agent_type: 'other', entities: [{ name: 'x' }] });
    clock = T0 - HOUR;
    await stageCommit(member, { agent_id: 'm', entities: [{ name: 'y' }] });
    const doc = parseYaml(fs.readFileSync(path.join(library, 'staging', 'm', 'm.l5.yaml'), 'utf8')) as {
      last_updated: string;
    };
    expect(doc.last_updated).toBe('2026-06-10T12:00:00Z'); // second precision: 1 ms later still reads as the same second
  });
});

describe('a history index that is lost or garbled', () => {
  async function threeVersions(): Promise<{ library: string; index: string; ctx: Ctx }> {
    const library = freshLibrary();
    const ctx = context(library);
    for (const name of ['A', 'B', 'C'])
      await commitToFederation(ctx, { agent_id: 'x', agent_type: 'other', entities: [{ name }] });
    return { library, index: path.join(library, 'history', 'x', INDEX_FILE), ctx };
  }

  const garbles: Record<string, (index: string) => void> = {
    deleted: (index) => fs.unlinkSync(index),
    'binary garbage': (index) =>
      fs.writeFileSync(index, Buffer.from(Array.from({ length: 600 }, (_, i) => (i * 7919) % 256))),
    'truncated to nothing': (index) => fs.truncateSync(index, 0),
    'records with wrong shapes': (index) =>
      fs.writeFileSync(
        index,
        '{"version":"1"}\n[1,2,3]\nnull\n{"version":2,"ts":5,"op":"commit","actor":null,"sha256":"nothex","bytes":1}\n',
      ),
    'a garbage pending record too': (index) => {
      fs.unlinkSync(index);
      fs.writeFileSync(path.join(path.dirname(index), PENDING_FILE), '{"version": 9, "sha');
    },
  };

  for (const [name, garble] of Object.entries(garbles)) {
    it(`${name}: versions are recovered from the archived files, and the next write numbers on`, async () => {
      const { library, index, ctx } = await threeVersions();
      garble(index);
      const listed = (await listMemoryVersions(ctx, { agent_id: 'x' })) as {
        versions: { version: number; op: string; entities: number; current: boolean }[];
      };
      expect(listed.versions.map((v) => [v.version, v.op, v.entities, v.current])).toEqual([
        [3, 'recovered', 3, true],
        [2, 'recovered', 2, false],
        [1, 'recovered', 1, false],
      ]);
      expect(await rollbackAgentMemory(ctx, { agent_id: 'x', version: 2 })).toMatchObject({
        version: 4,
        restored_version: 2,
      });
      expect(entityNames(library, 'x')).toEqual(['A', 'B']);
      expect(await commitToFederation(ctx, { agent_id: 'x', entities: [{ name: 'D' }] })).toMatchObject({ version: 5 });
      expectConsistent(library, 'x');
    });
  }

  it('lost archives are skipped, and their numbers are never reused', async () => {
    const { library, ctx } = await threeVersions();
    fs.unlinkSync(archiveFile(path.join(library, 'history', 'x'), 3));
    const listed = (await listMemoryVersions(ctx, { agent_id: 'x' })) as {
      versions: { version: number; current: boolean }[];
    };
    expect(listed.versions.map((v) => [v.version, v.current])).toEqual([
      [2, false],
      [1, false],
    ]);
    // The live file (version 3's bytes) is no longer any recorded version: it is captured first.
    const next = await commitToFederation(ctx, { agent_id: 'x', entities: [{ name: 'D' }] });
    expect(next.version).toBe(5);
    expect(readHistory(ctx.store.paths, 'x').records.map((r) => [r.version, r.op])).toEqual([
      [1, 'commit'],
      [2, 'commit'],
      [4, 'external'],
      [5, 'commit'],
    ]);
  });
});
