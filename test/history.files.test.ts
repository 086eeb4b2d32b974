/**
 * History files as an attacker or a failing disk meets them (issue 14): archives are as
 * private as the live manifest, history never follows a symbolic link out of the library, and
 * a history that cannot be read fails the operation instead of being taken for "absent".
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createContext, type OperationContext } from '../src/core/context.js';
import { LibraryStore } from '../src/core/store/library.js';
import { commitToFederation, listMemoryVersions } from './helpers/write-calls.js';
import { archiveFile, INDEX_FILE, readHistory } from '../src/core/writes/history.js';
import { FaultyWriter, type ReadFault } from './helpers/faults.js';
import { tempDir } from './helpers/fixtures.js';

const cleanup: string[] = [];
afterAll(() => {
  for (const dir of cleanup) fs.rmSync(dir, { recursive: true, force: true });
});

function freshLibrary(): string {
  const library = tempDir('bourdon-history-files-');
  cleanup.push(library);
  fs.mkdirSync(path.join(library, 'agents'));
  return library;
}

function context(library: string, overrides: Partial<OperationContext> = {}): OperationContext {
  return createContext(new LibraryStore(library, { warn: () => {} }), { warn: () => {}, env: {}, ...overrides });
}

const mode = (file: string) => fs.statSync(file).mode & 0o777;
const livePath = (library: string, agent: string) => path.join(library, 'agents', `${agent}.l5.yaml`);

describe('history archives are as private as the live file', () => {
  it('a 0600 manifest gets 0600 archives (its commits and an external edit), and history/ is 0700', async () => {
    const library = freshLibrary();
    const ctx = context(library);
    const first = await commitToFederation(ctx, { agent_id: 'vault', agent_type: 'other', entities: [{ name: 'x' }] });
    expect(first.error).toBeUndefined();
    fs.chmodSync(livePath(library, 'vault'), 0o600);
    const second = await commitToFederation(ctx, {
      agent_id: 'vault',
      entities: [{ name: 'salary', summary: 'private detail', visibility: 'private' }],
    });
    expect(second.version).toBe(2);
    // Another tool edits the file in place (its mode stays 0600): captured as `external`.
    fs.appendFileSync(livePath(library, 'vault'), '# edited by hand\n');
    const third = await commitToFederation(ctx, { agent_id: 'vault', entities: [{ name: 'y' }] });
    expect(third.version).toBe(4);
    const dir = path.join(library, 'history', 'vault');
    expect(readHistory(ctx.store.paths, 'vault').records.map((r) => r.op)).toEqual([
      'commit',
      'commit',
      'external',
      'commit',
    ]);
    for (const version of [2, 3, 4]) expect(mode(archiveFile(dir, version)), `v${version}`).toBe(0o600);
    expect(mode(livePath(library, 'vault'))).toBe(0o600);
    expect(mode(path.join(library, 'history'))).toBe(0o700);
  });

  it('an existing history/ left open by an earlier version is tightened to 0700 on the next write', async () => {
    const library = freshLibrary();
    fs.mkdirSync(path.join(library, 'history'), { mode: 0o755 });
    fs.chmodSync(path.join(library, 'history'), 0o755);
    const payload = await commitToFederation(context(library), { agent_id: 'a', agent_type: 'other' });
    expect(payload.error).toBeUndefined();
    expect(mode(path.join(library, 'history'))).toBe(0o700);
  });
});

describe('history never follows a symbolic link', () => {
  for (const linked of ['history/vault', 'history']) {
    it(`a symbolic link at ${linked} is refused, nothing is written outside the library`, async () => {
      const library = freshLibrary();
      const ctx = context(library);
      expect((await commitToFederation(ctx, { agent_id: 'vault', agent_type: 'other' })).version).toBe(1);
      const before = fs.readFileSync(livePath(library, 'vault'));
      const outside = tempDir('bourdon-outside-');
      cleanup.push(outside);
      if (linked === 'history/vault') fs.cpSync(path.join(library, 'history', 'vault'), outside, { recursive: true });
      else fs.cpSync(path.join(library, 'history'), outside, { recursive: true });
      const outsideBefore = fs.readdirSync(outside, { recursive: true }).sort();
      fs.rmSync(path.join(library, linked), { recursive: true });
      fs.symlinkSync(outside, path.join(library, linked));
      const payload = await commitToFederation(ctx, { agent_id: 'vault', entities: [{ name: 'secret' }] });
      expect(payload.error).toBe(`refusing to write through the symbolic link ${path.join(library, linked)}`);
      expect(fs.readdirSync(outside, { recursive: true }).sort()).toEqual(outsideBefore);
      expect(fs.readFileSync(livePath(library, 'vault'))).toEqual(before);
      const listed = await listMemoryVersions(ctx, { agent_id: 'vault' });
      expect(listed).toMatchObject({ error: expect.stringContaining('symbolic link'), versions: [] });
    });
  }
});

describe('a history that cannot be read fails the operation and changes nothing', () => {
  const cases: { what: string; match: (file: string) => boolean }[] = [
    { what: 'index.jsonl', match: (file) => path.basename(file) === INDEX_FILE },
    { what: 'the folder listing', match: (file) => path.basename(file) === 'a' && file.includes('history') },
  ];
  for (const { what, match } of cases) {
    for (const code of ['EIO', 'EMFILE', 'EACCES'] as ReadFault[]) {
      it(`${code} on ${what}: the commit fails, ops and actors are kept, no version is added`, async () => {
        const library = freshLibrary();
        const ctx = context(library);
        await commitToFederation(ctx, { agent_id: 'a', agent_type: 'other', entities: [{ name: 'one' }] });
        await commitToFederation(context(library, { caller: { ...ctx.caller, agent_id: 'alice' } }), {
          agent_id: 'a',
          entities: [{ name: 'two' }],
        });
        const dir = path.join(library, 'history', 'a');
        const snapshot = () =>
          Object.fromEntries(
            fs.readdirSync(dir).map((name) => [name, fs.readFileSync(path.join(dir, name)).toString('base64')]),
          );
        const before = snapshot();
        const liveBefore = fs.readFileSync(livePath(library, 'a'));
        const files = new FaultyWriter();
        files.failReads = { match, code };
        const faulty = context(library, { files });
        const payload = await commitToFederation(faulty, { agent_id: 'a', entities: [{ name: 'three' }] });
        expect(payload.error).toMatch(
          // In words; the faults of a machine keep their code ("too many open files (EMFILE)").
          new RegExp(
            `^cannot read the history of agent 'a' \\((permission denied|.*\\(${code}\\))\\); nothing was changed$`,
          ),
        );
        expect(files.calls).toEqual([]); // not one write was attempted
        const listed = await listMemoryVersions(faulty, { agent_id: 'a' });
        expect(listed).toMatchObject({
          error: expect.stringMatching(code === 'EACCES' ? /permission denied/ : new RegExp(`\\(${code}\\)`)),
          versions: [],
        });
        expect(snapshot()).toEqual(before);
        expect(fs.readFileSync(livePath(library, 'a'))).toEqual(liveBefore);
        // The disk recovers: the next write numbers on, every version keeps its op and actor.
        expect((await commitToFederation(ctx, { agent_id: 'a', entities: [{ name: 'four' }] })).version).toBe(3);
        const state = readHistory(ctx.store.paths, 'a');
        expect(state.damaged).toBe(false);
        expect(state.records.map((r) => [r.version, r.op, r.actor])).toEqual([
          [1, 'commit', 'operator'],
          [2, 'commit', 'alice'],
          [3, 'commit', 'operator'],
        ]);
      });
    }
  }
});
