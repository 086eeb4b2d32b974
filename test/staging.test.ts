/**
 * The staging functions (spec §2, §4): a quarantined member's commit lands in
 * staging/<caller>/<agent>.l5.yaml, merged with its earlier staged writes, never read by
 * queries; promotion merges it into the live store as a version (op promote); rejection
 * deletes it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { invoke } from '../src/core/operations/invoke.js';
import { findEntityOperation } from '../src/core/operations/read-operations.js';
import { OPERATOR, type Caller } from '../src/core/trust/caller.js';
import { commitToFederation } from './helpers/write-calls.js';
import { createContext, type OperationContext } from '../src/core/context.js';
import { readHistory } from '../src/core/writes/history.js';
import { LibraryStore } from '../src/core/store/library.js';
import { callerFor } from '../src/core/trust/registry.js';
import { listStaged, promoteStaged, rejectStaged, stageCommit, stagingNote } from '../src/core/writes/staging.js';
import { parseYaml } from '../src/core/store/yaml.js';
import { copyFixtureLibrary } from './helpers/fixtures.js';

const MEMBER = callerFor('openclaw', { tier: 'quarantined', grants: ['cursor'] });
const cleanup: string[] = [];
afterEach(() => {
  for (const dir of cleanup.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function setup(): { library: string; store: LibraryStore; as: (caller: Caller) => OperationContext } {
  const library = copyFixtureLibrary();
  cleanup.push(library);
  const store = new LibraryStore(library, { warn: () => {} });
  return { library, store, as: (caller) => createContext(store, { caller, warn: () => {}, env: {} }) };
}

const stagedFile = (library: string, caller = 'openclaw', agent = 'openclaw') =>
  path.join(library, 'staging', caller, `${agent}.l5.yaml`);

describe('stageCommit', () => {
  it('stages a quarantined commit, merged with earlier ones, invisible to queries', async () => {
    const { library, as } = setup();
    const member = as(MEMBER);
    const first = await commitToFederation(member, {
      agent_id: 'openclaw',
      agent_type: 'other',
      entities: [{ name: 'Staged Thing', summary: 'from quarantine', tags: ['first'] }],
      sessions: [{ date: '2026-06-04', key_actions: ['staged work'] }],
    });
    expect(first).toEqual({
      staged: true,
      agent_id: 'openclaw',
      path: stagedFile(library),
      note: stagingNote('openclaw'),
    });
    await stageCommit(member, {
      agent_id: 'openclaw',
      entities: [{ name: 'staged thing', tags: ['second'], summary: null }],
      sessions: [{ date: '2026-06-04', key_actions: ['more work'] }],
      notes: [{ date: '2026-06-04', text: 'a staged note' }],
    });
    const doc = parseYaml(fs.readFileSync(stagedFile(library), 'utf8')) as Record<string, unknown>;
    expect({ ...doc, last_updated: '<volatile>' }).toEqual({
      spec_version: '0.1',
      agent: { id: 'openclaw', type: 'other' },
      last_updated: '<volatile>',
      // Lists union and nulls never overwrite, so no staged row loses what an earlier write said.
      known_entities: [{ name: 'staged thing', summary: 'from quarantine', tags: ['first', 'second'] }],
      recent_sessions: [{ date: '2026-06-04', key_actions: ['staged work', 'more work'] }],
      notes: [{ date: '2026-06-04', text: 'a staged note' }],
    });
    expect(fs.existsSync(path.join(library, 'agents', 'openclaw.l5.yaml'))).toBe(false);
    expect(fs.existsSync(path.join(library, 'history'))).toBe(false);
    expect((await invoke(findEntityOperation, as(OPERATOR), { name: 'staged thing' })).matches).toEqual([]);
  });

  it('refuses other namespaces, replace mode and rows the engine refuses', async () => {
    const { library, as } = setup();
    const member = as(MEMBER);
    expect(await stageCommit(member, { agent_id: 'cursor', entities: [{ name: 'Evil' }] })).toEqual({
      error: 'access denied',
      op: 'commit_to_federation',
      agent: 'openclaw',
      tier: 'quarantined',
      detail: "quarantined members may only write their own namespace ('openclaw')",
    });
    const refusals: [Record<string, unknown>, string][] = [
      [{ entities: [{ summary: 'no name' }] }, "each entity needs a non-empty 'name'"],
      [{ sessions: [{ cwd: '/x' }] }, "each session needs a non-empty ISO-8601 'date'"],
      [
        { notes: [{ date: 'someday', text: 'x' }] },
        "each note needs a non-empty 'text' and a 'date' (YYYY-MM-DD or an ISO datetime)",
      ],
      [{ mode: 'upsert' }, "invalid mode 'upsert': must be 'merge' or 'replace'"],
      [
        { mode: 'replace' },
        "mode 'replace' is not available to quarantined members: staged writes are merged when an operator promotes them",
      ],
      [{ agent_type: 'robot' }, "agent_type 'robot' is not in the L5 schema enum:"],
    ];
    for (const [args, message] of refusals) {
      const payload = await stageCommit(member, { agent_id: 'openclaw', ...args });
      expect(payload.error as string).toContain(message);
      expect(payload).toMatchObject({ agent_id: 'openclaw', mode: (args.mode as string) ?? 'merge' });
    }
    expect(fs.existsSync(path.join(library, 'staging'))).toBe(false);
  });

  it('refuses to overwrite a staged file it cannot read', async () => {
    const { library, as } = setup();
    fs.mkdirSync(path.dirname(stagedFile(library)), { recursive: true });
    fs.writeFileSync(stagedFile(library), 'known_entities: [\n');
    const payload = await stageCommit(as(MEMBER), { agent_id: 'openclaw', entities: [{ name: 'X' }] });
    expect(payload.error as string).toMatch(/unreadable .*an operator must reject it/);
    expect(fs.readFileSync(stagedFile(library), 'utf8')).toBe('known_entities: [\n');
  });
});

describe('listStaged, promoteStaged, rejectStaged', () => {
  it('lists staged writes with counts and age', async () => {
    const { library, store, as } = setup();
    expect(listStaged(store)).toEqual([]);
    await stageCommit(as(MEMBER), {
      agent_id: 'openclaw',
      agent_type: 'other',
      entities: [{ name: 'A' }, { name: 'B' }],
      sessions: [{ date: '2026-06-04' }],
    });
    const mtime = fs.statSync(stagedFile(library)).mtime;
    const listed = listStaged(store, new Date(mtime.getTime() + 36 * 3600 * 1000));
    expect(listed).toEqual([
      {
        caller: 'openclaw',
        agent_id: 'openclaw',
        path: stagedFile(library),
        staged_at: mtime.toISOString().replace(/\.\d{3}Z$/, 'Z'),
        age_days: 1.5,
        entities: 2,
        sessions: 1,
        notes: 0,
        error: null,
      },
    ]);
  });

  it('promotes through the commit path as a version, then removes the staged file', async () => {
    const { library, store, as } = setup();
    await stageCommit(as(MEMBER), {
      agent_id: 'openclaw',
      agent_type: 'other',
      entities: [{ name: 'Staged Thing', summary: 'hello' }],
    });
    // A second staged file for the same agent, from another caller (placed by hand).
    const other = stagedFile(library, 'helper', 'openclaw');
    fs.mkdirSync(path.dirname(other), { recursive: true });
    fs.writeFileSync(
      other,
      "agent: {id: openclaw, type: other}\nrecent_sessions:\n  - {date: '2026-06-05', key_actions: [helped]}\n",
    );

    const result = await promoteStaged(as(OPERATOR), 'openclaw');
    expect(result.agent_id).toBe('openclaw');
    expect(
      result.promoted.map((item) => [
        item.caller,
        item.result.version,
        item.result.entities_added,
        item.result.sessions_added,
      ]),
    ).toEqual([
      ['helper', 1, 0, 1],
      ['openclaw', 2, 1, 0],
    ]);
    expect((await invoke(findEntityOperation, as(OPERATOR), { name: 'staged thing' })).matches).toEqual([
      { name: 'Staged Thing', agents: ['openclaw'], types: [], summaries: { openclaw: 'hello' }, tags: [] },
    ]);
    expect(readHistory(store.paths, 'openclaw').records.map((r) => [r.version, r.op, r.actor])).toEqual([
      [1, 'promote', 'helper'],
      [2, 'promote', 'openclaw'],
    ]);
    expect(listStaged(store)).toEqual([]);
    expect(fs.existsSync(path.join(library, 'staging', 'openclaw'))).toBe(false);
    expect(fs.existsSync(path.join(library, 'staging', 'helper'))).toBe(false);
  });

  it('keeps a staged file that cannot be promoted, and says why', async () => {
    const { library, store, as } = setup();
    await stageCommit(as(MEMBER), { agent_id: 'openclaw', entities: [{ name: 'No Type' }] });
    await expect(promoteStaged(as(OPERATOR), 'openclaw')).rejects.toThrow(
      /cannot promote .*agent_type is required for a new manifest \(agent_id='openclaw', mode='merge'\)/,
    );
    expect(fs.existsSync(stagedFile(library))).toBe(true);
    expect(listStaged(store)).toHaveLength(1);
  });

  it('promotion is for trusted callers; unknown and invalid ids are refused', async () => {
    const { as } = setup();
    await stageCommit(as(MEMBER), { agent_id: 'openclaw', agent_type: 'other', entities: [{ name: 'X' }] });
    await expect(promoteStaged(as(MEMBER), 'openclaw')).rejects.toThrow(/only trusted callers/);
    await expect(promoteStaged(as(OPERATOR), 'nobody')).rejects.toThrow("no staged writes for agent 'nobody'");
    await expect(promoteStaged(as(OPERATOR), '../x')).rejects.toThrow("invalid agent_id '../x'");
  });

  it('rejects: deletes the staged files unread', async () => {
    const { library, store, as } = setup();
    await stageCommit(as(MEMBER), { agent_id: 'openclaw', entities: [{ name: 'X' }] });
    const result = await rejectStaged(store, 'openclaw');
    expect(result).toEqual({ agent_id: 'openclaw', rejected: 1, paths: [stagedFile(library)] });
    expect(listStaged(store)).toEqual([]);
    expect(fs.existsSync(path.join(library, 'agents', 'openclaw.l5.yaml'))).toBe(false);
    await expect(rejectStaged(store, 'openclaw')).rejects.toThrow("no staged writes for agent 'openclaw'");
    await expect(rejectStaged(store, 'Bad Id')).rejects.toThrow("invalid agent_id 'Bad Id'");
  });
});
