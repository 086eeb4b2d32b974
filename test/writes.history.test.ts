/**
 * Version history (spec §8) through a real MCP client and the real CLI: commit, commit,
 * rollback restores version 1 byte for byte as a new version; diffs name what changed; no
 * credential-like text is ever printed unredacted; external edits are captured first; a
 * corrupt index is rebuilt from the archive; retention; rollback is audited first and refused
 * without an audit record, for quarantined callers, and without --yes off a terminal.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILURES } from '../src/core/errors.js';
import {
  commitToFederation,
  explainMemoryChange,
  listMemoryVersions,
  rollbackAgentMemory,
} from './helpers/write-calls.js';
import { createContext, type OperationContext } from '../src/core/context.js';
import { INDEX_FILE, readArchivedBytes, readHistory } from '../src/core/writes/history.js';
import { LibraryStore } from '../src/core/store/library.js';
import { callerFor } from '../src/core/trust/registry.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';
import { at } from './helpers/items.js';
import { callJson, linkedClient, type LinkedClient } from './helpers/mcp.js';

/** The parts of an explain_memory_change payload these tests read. */
interface RowChanges {
  added: unknown[];
  removed: unknown[];
  changed: { name: string; fields: { field: string }[] }[];
}
interface MemoryDiff {
  against: number;
  summary: string;
  entities: RowChanges;
  sessions: RowChanges;
  notes: RowChanges;
}

const SECRET_SUMMARY = 'the api_key is sk_live_abcdefghijklmnop';
const SECRET_ACTION = 'rotated the staging password: hunter2';
/** Secret values: never shown. Prose naming a credential (`the api_key is`) is kept, as the exports keep it. */
const RAW_SECRETS = ['sk_live_abcdefghijklmnop', 'hunter2'];

const cleanup: string[] = [];
afterAll(() => {
  for (const dir of cleanup) fs.rmSync(dir, { recursive: true, force: true });
});

function freshLibrary(): { library: string; home: string; env: Record<string, string> } {
  const library = tempDir('bourdon-hist-');
  const home = tempDir('bourdon-home-');
  cleanup.push(library, home);
  fs.mkdirSync(path.join(library, 'agents'));
  return { library, home, env: { BOURDON_HOME: home, BOURDON_LOCAL_NAME: 'test-machine' } };
}

function contextFor(library: string, home: string, overrides: Partial<OperationContext> = {}): OperationContext {
  return createContext(new LibraryStore(library, { warn: () => {} }), {
    warn: () => {},
    env: { BOURDON_HOME: home },
    config: {
      home,
      registry: path.join(home, 'federation.yaml'),
      audit: path.join(home, 'audit.jsonl'),
      peers: path.join(home, 'peers.yaml'),
    },
    ...overrides,
  });
}

describe('commit, commit, rollback through a real MCP client', () => {
  let library: string;
  let home: string;
  let linked: LinkedClient;
  const live = () => fs.readFileSync(path.join(library, 'agents', 'codex.l5.yaml'));

  beforeAll(async () => {
    ({ library, home } = freshLibrary());
    linked = await linkedClient(library, { env: { BOURDON_HOME: home } });
  });
  afterAll(async () => linked.close());

  it('restores version 1 byte for byte, as a new version', async () => {
    const first = (await callJson(linked.client, 'commit_to_federation', {
      agent_id: 'codex',
      agent_type: 'code-assistant',
      entities: [
        { name: 'Bourdon', type: 'project', summary: 'Federation memory.' },
        { name: 'Old', type: 'concept' },
      ],
      sessions: [{ date: '2026-06-01', cwd: '/b', key_actions: ['Started'] }],
    })) as Record<string, unknown>;
    expect(first.version).toBe(1);
    const v1 = live();
    const second = (await callJson(linked.client, 'commit_to_federation', {
      agent_id: 'codex',
      entities: [
        { name: 'bourdon', summary: SECRET_SUMMARY, tags: ['core'] },
        { name: 'Deploy', type: 'task' },
      ],
      sessions: [
        { date: '2026-06-01', cwd: '/b', key_actions: [SECRET_ACTION] },
        { date: '2026-06-02', cwd: '/b', key_actions: ['Shipped'] },
      ],
      notes: [{ date: '2026-06-02', text: 'Deploy is Friday', tags: ['release'] }],
    })) as Record<string, unknown>;
    expect(second).toMatchObject({
      version: 2,
      entities_added: 1,
      entities_updated: 1,
      sessions_added: 1,
      sessions_updated: 1,
      notes_added: 1,
    });
    expect(live().equals(v1)).toBe(false);

    const rolled = (await callJson(linked.client, 'rollback_agent_memory', {
      agent_id: 'codex',
      version: 1,
      reason: 'undo',
    })) as Record<string, unknown>;
    expect(rolled).toEqual({
      agent_id: 'codex',
      restored_version: 1,
      version: 3,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      reason: 'undo',
    });
    expect(live().equals(v1)).toBe(true);
    // Queries see the restored file at once (same process, same store).
    const found = (await callJson(linked.client, 'find_entity', { name: 'Deploy' })) as { matches: unknown[] };
    expect(found, JSON.stringify(found)).toMatchObject({ matches: [] });

    const versions = (await callJson(linked.client, 'list_memory_versions', { agent_id: 'codex' })) as {
      versions: Record<string, unknown>[];
    };
    expect(versions.versions.map((v) => [v.version, v.op, v.actor, v.current])).toEqual([
      [3, 'rollback', 'operator', true],
      [2, 'commit', 'operator', false],
      [1, 'commit', 'operator', false],
    ]);
    expect(at(versions.versions, 0).sha256).toBe(at(versions.versions, 2).sha256);
    expect(versions.versions[1]).toMatchObject({ entities: 3, sessions: 2, notes: 1 });
  });

  it('names the entities, sessions and notes that changed, redacted', async () => {
    const diff = (await callJson(linked.client, 'explain_memory_change', {
      agent_id: 'codex',
      version: 2,
    })) as MemoryDiff;
    expect(diff.against).toBe(1);
    expect(diff.entities.added).toEqual([
      {
        name: 'Deploy',
        fields: [
          { field: 'visibility', value: 'public' },
          { field: 'type', value: 'task' },
        ],
      },
    ]);
    expect(diff.entities.removed).toEqual([]);
    expect(diff.entities.changed.map((c) => c.name)).toEqual(['bourdon']);
    const changed = at(diff.entities.changed, 0);
    expect(changed.fields.map((f) => f.field)).toEqual(['name', 'summary', 'tags']);
    expect(changed.fields[1]).toEqual({
      field: 'summary',
      before: 'Federation memory.',
      after: 'the api_key is [redacted]',
    });
    expect(diff.sessions.added).toEqual([
      {
        date: '2026-06-02',
        cwd: '/b',
        fields: [
          { field: 'visibility', value: 'public' },
          { field: 'key_actions', value: ['Shipped'] },
        ],
      },
    ]);
    expect(diff.sessions.changed).toEqual([
      {
        date: '2026-06-01',
        cwd: '/b',
        fields: [
          { field: 'key_actions', before: ['Started'], after: ['Started', 'rotated the staging password: [redacted]'] },
        ],
      },
    ]);
    expect(diff.notes.added).toEqual([
      {
        date: '2026-06-02',
        title: null,
        text: 'Deploy is Friday',
        fields: [
          { field: 'visibility', value: 'public' },
          { field: 'tags', value: ['release'] },
        ],
      },
    ]);
    expect(diff.summary).toContain('entities +1 -0 ~1');

    const back = (await callJson(linked.client, 'explain_memory_change', {
      agent_id: 'codex',
      version: 3,
    })) as MemoryDiff;
    expect(back.against).toBe(2);
    expect(back.entities.removed).toEqual([expect.objectContaining({ name: 'Deploy' })]);
    expect(back.sessions.removed).toEqual([expect.objectContaining({ date: '2026-06-02', cwd: '/b' })]);
    expect(back.notes.removed).toHaveLength(1);

    const across = (await callJson(linked.client, 'explain_memory_change', {
      agent_id: 'codex',
      version: 3,
      against: 1,
    })) as MemoryDiff;
    expect(across.entities).toEqual({ added: [], removed: [], changed: [] });
    expect(across.sessions).toEqual({ added: [], removed: [], changed: [] });

    for (const payload of [diff, back, across])
      for (const secret of RAW_SECRETS) expect(JSON.stringify(payload)).not.toContain(secret);
  });

  it('answers unknown versions and invalid ids with error payloads', async () => {
    expect(await callJson(linked.client, 'explain_memory_change', { agent_id: 'codex', version: 9 })).toMatchObject({
      error: "unknown version 9 for agent 'codex'",
    });
    expect(
      await callJson(linked.client, 'explain_memory_change', { agent_id: 'codex', version: 2, against: 7 }),
    ).toMatchObject({
      error: "unknown version 7 for agent 'codex'",
    });
    expect(await callJson(linked.client, 'rollback_agent_memory', { agent_id: 'codex', version: 0 })).toMatchObject({
      error: "unknown version 0 for agent 'codex'",
    });
    expect(await callJson(linked.client, 'list_memory_versions', { agent_id: '../x' })).toEqual({
      error: "invalid agent_id '../x': must match ^[a-z0-9][a-z0-9_-]*$",
      agent_id: '../x',
      versions: [],
    });
    expect(await callJson(linked.client, 'rollback_agent_memory', { agent_id: '../x', version: 1 })).toMatchObject({
      error: "invalid agent_id '../x': must match ^[a-z0-9][a-z0-9_-]*$",
    });
    expect(await callJson(linked.client, 'list_memory_versions', { agent_id: 'nobody' })).toEqual({
      agent_id: 'nobody',
      versions: [],
    });
  });
});

describe('history and diff on the CLI', () => {
  let library: string;
  let home: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    ({ library, home, env } = freshLibrary());
    const ctx = contextFor(library, home);
    await commitToFederation(ctx, {
      agent_id: 'codex',
      agent_type: 'code-assistant',
      entities: [{ name: 'Bourdon', summary: 'plain' }],
    });
    await commitToFederation(ctx, {
      agent_id: 'codex',
      entities: [{ name: 'Bourdon', summary: SECRET_SUMMARY }],
      sessions: [{ date: '2026-06-01', cwd: '/x', key_actions: [SECRET_ACTION] }],
      notes: [{ date: '2026-06-01', title: 'password: hunter2', text: SECRET_ACTION }],
    });
  });

  it('never prints a credential-like string unredacted', async () => {
    for (const args of [
      ['history', 'codex'],
      ['history', 'codex', '--json'],
      ['diff', 'codex', '2'],
      ['diff', 'codex', '2', '--json'],
      ['diff', 'codex', '1', '--against', '2'],
    ]) {
      const result = await runCli([...args, '--library', library], { env });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      for (const secret of RAW_SECRETS) expect(result.stdout + result.stderr, args.join(' ')).not.toContain(secret);
    }
  });

  it('--json prints exactly the tool payloads', async () => {
    const history = await runCli(['history', 'codex', '--json', '--library', library], { env });
    const payload = JSON.parse(history.stdout) as {
      agent_id: string;
      versions: { version: number; current: boolean }[];
    };
    expect(payload.agent_id).toBe('codex');
    expect(payload.versions.map((v) => [v.version, v.current])).toEqual([
      [2, true],
      [1, false],
    ]);
    const diff = await runCli(['diff', 'codex', '2', '--json', '--library', library], { env });
    const direct = await explainMemoryChange(contextFor(library, home), { agent_id: 'codex', version: 2 });
    expect(JSON.parse(diff.stdout)).toEqual(direct);
    expect(diff.stdout).toContain('"changed"');
  });

  it('rollback refuses without --yes off a terminal, and writes nothing', async () => {
    const before = fs.readFileSync(path.join(library, 'agents', 'codex.l5.yaml'));
    const result = await runCli(['rollback', 'codex', '1', '--library', library], { env });
    expect(result.code).toBe(FAILURES.usage.exit);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('--yes');
    expect(fs.readFileSync(path.join(library, 'agents', 'codex.l5.yaml')).equals(before)).toBe(true);
    expect(readHistory(new LibraryStore(library).paths, 'codex').records).toHaveLength(2);
  });

  it('rollback --yes restores, audits as the operator, and history shows it', async () => {
    const result = await runCli(
      ['rollback', 'codex', '1', '--yes', '--reason', 'bad import', '--json', '--library', library],
      { env },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      agent_id: 'codex',
      restored_version: 1,
      version: 3,
      reason: 'bad import',
    });
    const state = readHistory(new LibraryStore(library).paths, 'codex');
    expect(fs.readFileSync(path.join(library, 'agents', 'codex.l5.yaml')).equals(readArchivedBytes(state.dir, 1))).toBe(
      true,
    );
    const audit = fs
      .readFileSync(path.join(home, 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(audit[audit.length - 1]).toMatchObject({
      agent: 'operator',
      op: 'rollback_agent_memory',
      namespace: 'codex',
      decision: 'allow',
      detail: 'restore version 1 (bad import)',
    });
  });
});

describe('history bookkeeping', () => {
  it('captures an external edit as its own version before writing', async () => {
    const { library, home } = freshLibrary();
    const ctx = contextFor(library, home);
    await commitToFederation(ctx, { agent_id: 'cursor', agent_type: 'code-assistant', entities: [{ name: 'A' }] });
    const file = path.join(library, 'agents', 'cursor.l5.yaml');
    fs.appendFileSync(file, '# edited by hand\n');
    const edited = fs.readFileSync(file);
    const payload = await commitToFederation(ctx, { agent_id: 'cursor', entities: [{ name: 'B' }] });
    expect(payload.version).toBe(3);
    const state = readHistory(ctx.store.paths, 'cursor');
    expect(state.records.map((r) => [r.version, r.op, r.actor])).toEqual([
      [1, 'commit', 'operator'],
      [2, 'external', null],
      [3, 'commit', 'operator'],
    ]);
    expect(readArchivedBytes(state.dir, 2).equals(edited)).toBe(true);
  });

  it('archives a manifest that existed before the first write', async () => {
    const { library, home } = freshLibrary();
    const original = "spec_version: '0.1'\nagent:\n  id: bare\n  type: other\nknown_entities: []\n";
    fs.writeFileSync(path.join(library, 'agents', 'bare.l5.yaml'), original);
    const ctx = contextFor(library, home);
    await commitToFederation(ctx, { agent_id: 'bare', entities: [{ name: 'X' }] });
    const state = readHistory(ctx.store.paths, 'bare');
    expect(state.records.map((r) => r.op)).toEqual(['external', 'commit']);
    expect(readArchivedBytes(state.dir, 1).toString('utf8')).toBe(original);
    await rollbackAgentMemory(ctx, { agent_id: 'bare', version: 1 });
    expect(fs.readFileSync(path.join(library, 'agents', 'bare.l5.yaml'), 'utf8')).toBe(original);
  });

  it('rebuilds a corrupt index from the archived files', async () => {
    const { library, home } = freshLibrary();
    const ctx = contextFor(library, home);
    for (const name of ['A', 'B', 'C'])
      await commitToFederation(ctx, { agent_id: 'x', agent_type: 'other', entities: [{ name }] });
    const index = path.join(library, 'history', 'x', INDEX_FILE);
    const lines = fs.readFileSync(index, 'utf8').split('\n');
    fs.writeFileSync(index, `${lines[0]}\n{"version": 2, "ts": "tor`); // line 2 torn, line 3 lost
    const listed = (await listMemoryVersions(ctx, { agent_id: 'x' })) as { versions: Record<string, unknown>[] };
    expect(listed.versions.map((v) => [v.version, v.op, v.entities, v.current])).toEqual([
      [3, 'recovered', 3, true],
      [2, 'recovered', 2, false],
      [1, 'commit', 1, false],
    ]);
    // The next write repairs the index and carries on numbering.
    const payload = await commitToFederation(ctx, { agent_id: 'x', entities: [{ name: 'D' }] });
    expect(payload.version).toBe(4);
    const state = readHistory(ctx.store.paths, 'x');
    expect(state.damaged).toBe(false);
    expect(state.records.map((r) => r.version)).toEqual([1, 2, 3, 4]);
    const rolled = await rollbackAgentMemory(ctx, { agent_id: 'x', version: 2 });
    expect(rolled.version).toBe(5);
  });

  it('keeps the newest BOURDON_HISTORY_KEEP versions, numbering on', async () => {
    const { library, home } = freshLibrary();
    const ctx = contextFor(library, home, { env: { BOURDON_HOME: home, BOURDON_HISTORY_KEEP: '3' } });
    for (let i = 0; i < 6; i++)
      await commitToFederation(ctx, { agent_id: 'k', agent_type: 'other', entities: [{ name: `e${i}` }] });
    const state = readHistory(ctx.store.paths, 'k');
    expect(state.records.map((r) => r.version)).toEqual([4, 5, 6]);
    expect(fs.readdirSync(state.dir).filter((name) => /^v\d+\.l5\.yaml(\.gz)?$/.test(name))).toHaveLength(3);
    expect(await rollbackAgentMemory(ctx, { agent_id: 'k', version: 2 })).toMatchObject({
      error: "unknown version 2 for agent 'k'",
    });
    expect(await rollbackAgentMemory(ctx, { agent_id: 'k', version: 4 })).toMatchObject({ version: 7 });
    expect(readHistory(ctx.store.paths, 'k').records.map((r) => r.version)).toEqual([5, 6, 7]);
  });
});

describe('rollback safety', () => {
  it('is refused, and nothing written, when the audit record cannot be written', async () => {
    const { library, home } = freshLibrary();
    const ctx = contextFor(library, home);
    await commitToFederation(ctx, { agent_id: 'a', agent_type: 'other', entities: [{ name: 'one' }] });
    await commitToFederation(ctx, { agent_id: 'a', entities: [{ name: 'two' }] });
    const file = path.join(library, 'agents', 'a.l5.yaml');
    const before = fs.readFileSync(file);
    const blocked = path.join(home, 'not-a-dir');
    fs.writeFileSync(blocked, 'a file where the audit folder should be');
    const noAudit = contextFor(library, home, {
      config: {
        home,
        registry: path.join(home, 'federation.yaml'),
        audit: path.join(blocked, 'audit.jsonl'),
        peers: path.join(home, 'peers.yaml'),
      },
    });
    const payload = await rollbackAgentMemory(noAudit, { agent_id: 'a', version: 1 });
    expect(payload.error).toMatch(/^rollback refused: the audit record could not be written/);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    expect(readHistory(ctx.store.paths, 'a').records).toHaveLength(2);
  });

  it("over MCP, audits where the server's trail goes, and is refused when it cannot", async () => {
    const { library, home } = freshLibrary();
    const ctx = contextFor(library, home);
    await commitToFederation(ctx, { agent_id: 'm', agent_type: 'other', entities: [{ name: 'one' }] });
    await commitToFederation(ctx, { agent_id: 'm', entities: [{ name: 'two' }] });
    const trail = path.join(home, 'server-trail.jsonl');
    const linked = await linkedClient(library, { env: { BOURDON_HOME: home }, auditPath: trail });
    try {
      expect(
        await callJson(linked.client, 'rollback_agent_memory', { agent_id: 'm', version: 1, reason: 'oops' }),
      ).toMatchObject({ version: 3 });
    } finally {
      await linked.close();
    }
    const lines = fs
      .readFileSync(trail, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    // One line per call: the rollback's own, written before it restored anything.
    expect(lines.filter((line) => line.op === 'rollback_agent_memory').map((line) => line.detail ?? null)).toEqual([
      'restore version 1 (oops)',
    ]);

    const blocked = path.join(home, 'blocked');
    fs.writeFileSync(blocked, '');
    const refusing = await linkedClient(library, {
      env: { BOURDON_HOME: home },
      auditPath: path.join(blocked, 'audit.jsonl'),
    });
    try {
      const payload = (await callJson(refusing.client, 'rollback_agent_memory', {
        agent_id: 'm',
        version: 2,
      })) as Record<string, unknown>;
      expect(payload.error).toMatch(/^rollback refused: the audit record could not be written/);
    } finally {
      await refusing.close();
    }
    expect(readHistory(ctx.store.paths, 'm').records).toHaveLength(3);
  });

  it('is denied to quarantined callers (and so are the other version tools)', async () => {
    const { library, home } = freshLibrary();
    await commitToFederation(contextFor(library, home), {
      agent_id: 'openclaw',
      agent_type: 'other',
      entities: [{ name: 'one' }],
    });
    const member = callerFor('openclaw', { tier: 'quarantined', grants: ['openclaw'] });
    const linked = await linkedClient(library, { env: { BOURDON_HOME: home }, fallbackCaller: member });
    try {
      for (const [tool, args] of [
        ['rollback_agent_memory', { agent_id: 'openclaw', version: 1 }],
        ['list_memory_versions', { agent_id: 'openclaw' }],
        ['explain_memory_change', { agent_id: 'openclaw', version: 1 }],
      ] as const) {
        expect(await callJson(linked.client, tool, args)).toMatchObject({
          error: 'access denied',
          op: tool,
          tier: 'quarantined',
        });
      }
    } finally {
      await linked.close();
    }
    expect(readHistory(new LibraryStore(library).paths, 'openclaw').records).toHaveLength(1);
    // The core operation refuses too, whoever calls it.
    const direct = contextFor(library, home, { caller: member });
    expect(await rollbackAgentMemory(direct, { agent_id: 'openclaw', version: 1 })).toMatchObject({
      error: 'access denied',
    });
  });

  it('hides rows above the caller ceiling in diffs', async () => {
    const { library, home } = freshLibrary();
    const ctx = contextFor(library, home);
    await commitToFederation(ctx, { agent_id: 'p', agent_type: 'other', entities: [{ name: 'Public' }] });
    await commitToFederation(ctx, {
      agent_id: 'p',
      entities: [
        { name: 'Secret Plan', visibility: 'private' },
        { name: 'Team Thing', visibility: 'team' },
      ],
    });
    const remote = contextFor(library, home, {
      caller: { agent_id: 'peer', tier: 'trusted', grants: [], ceiling: 'team' },
    });
    const names = async (context: typeof ctx) => {
      const answer = await explainMemoryChange(context, { agent_id: 'p', version: 2 });
      return (answer.entities ?? { added: [] }).added.map((row) => row.name);
    };
    expect(await names(remote)).toEqual(['Team Thing']);
    expect(await names(ctx)).toEqual(['Secret Plan', 'Team Thing']);
  });
});
