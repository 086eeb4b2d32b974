/**
 * Staging end to end: a quarantined member's commit (through a real MCP client, identity from
 * a registered token) lands in staging, is invisible to every read by anyone, and becomes
 * live only when an operator runs `bourdon staging promote` (the real binary), as a new
 * version; `bourdon staging reject` deletes it unread. Needs a build (dist/).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILURES } from '../src/core/errors.js';
import { readAudit } from '../src/core/trust/audit.js';
import { runWithCaller } from '../src/core/trust/caller.js';
import { FederationRegistry } from '../src/core/trust/registry.js';
import { runCli } from './helpers/cli.js';
import { copyFixtureLibrary, tempDir } from './helpers/fixtures.js';
import { callJson, linkedClient, readJsonResource, type LinkedClient } from './helpers/mcp.js';
import { at } from './helpers/items.js';

/** Texts only the staged rows carry (the entity's name is echoed by the queries that ask for it). */
const STAGED_TEXTS = ['STAGED-SECRET', 'STAGED-SESSION', 'STAGED-NOTE', 'REJECTED-SECRET'];

let library: string;
let home: string;
let auditPath: string;
let registry: FederationRegistry;
let token: string;
let linked: LinkedClient;

const env = () => ({ BOURDON_HOME: home, BOURDON_LIBRARY: library, BOURDON_LOCAL_NAME: 'fixture-machine' });
const member = <T>(fn: () => Promise<T>): Promise<T> => runWithCaller(registry.authenticate(token)!, fn);
const operatorCall = (name: string, args: Record<string, unknown> = {}) => callJson(linked.client, name, args);

/** Every read an operator (or the member) could use to find staged rows. */
async function everyRead(
  call: (name: string, args?: Record<string, unknown>) => Promise<unknown>,
  resources: boolean,
): Promise<string> {
  const answers: unknown[] = [
    await call('find_entity', { name: 'Staged Secret Thing', include_private: true }),
    await call('list_agents'),
    await call('list_recent_work', { since: '2000-01-01', include_private: true, limit: 100 }),
    await call('list_notes', { since: '2000-01-01', include_private: true, limit: 100 }),
    await call('list_workstreams', { since: '2000-01-01', include_private: true }),
    await call('export_agents'),
    await call('query_agent_memory', { agent: 'openclaw', topic: 'Staged Secret Thing' }),
  ];
  if (resources) {
    answers.push(
      await call('get_cross_agent_summary', { project: 'Staged Secret Thing', include_private: true }),
      await call('prepare_recognition_context', { prompt: 'Staged Secret Thing', include_private: true }),
      await readJsonResource(linked.client, 'agent-library://agents'),
      await readJsonResource(linked.client, 'agent-library://agents/openclaw/memory'),
      await readJsonResource(linked.client, 'agent-library://entities/Staged%20Secret%20Thing'),
    );
  }
  return JSON.stringify(answers);
}

beforeAll(async () => {
  library = copyFixtureLibrary();
  home = tempDir('bourdon-home-');
  auditPath = path.join(home, 'audit.jsonl');
  registry = new FederationRegistry(path.join(home, 'federation.yaml'), { warn: () => {} });
  token = registry.add('openclaw', { grants: ['cursor'] }).token;
  linked = await linkedClient(library, {
    env: { BOURDON_LOCAL_NAME: 'fixture-machine', BOURDON_HOME: home },
    auditPath,
  });
});
afterAll(async () => {
  await linked.close();
  fs.rmSync(library, { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
});

describe('a quarantined write, from staging to live', () => {
  const stagedFile = () => path.join(library, 'staging', 'openclaw', 'openclaw.l5.yaml');

  it('is staged (twice, merged), audited as an allowed staged write, and the live library is untouched', async () => {
    const liveBefore = fs.readdirSync(path.join(library, 'agents')).sort();
    const first = await member(() =>
      callJson(linked.client, 'commit_to_federation', {
        agent_id: 'openclaw',
        agent_type: 'other',
        entities: [{ name: 'Staged Secret Thing', summary: 'STAGED-SECRET' }],
        sessions: [{ date: '2026-06-04', key_actions: ['STAGED-SESSION'] }],
        notes: [{ date: '2026-06-04', text: 'STAGED-NOTE' }],
      }),
    );
    expect(first).toMatchObject({ staged: true, agent_id: 'openclaw', path: stagedFile() });
    const second = await member(() =>
      callJson(linked.client, 'commit_to_federation', {
        agent_id: 'openclaw',
        entities: [{ name: 'staged secret thing', tags: ['second'] }],
      }),
    );
    expect(second).toMatchObject({ staged: true });
    expect(fs.existsSync(stagedFile())).toBe(true);
    expect(fs.readdirSync(path.join(library, 'agents')).sort()).toEqual(liveBefore);
    expect(fs.existsSync(path.join(library, 'history', 'openclaw'))).toBe(false);
    const commits = readAudit(auditPath).filter((r) => r.op === 'commit_to_federation');
    expect(commits.map(({ ts: _ts, ...rest }) => rest)).toEqual([
      { agent: 'openclaw', op: 'commit_to_federation', namespace: 'openclaw', decision: 'allow', detail: 'staged' },
      { agent: 'openclaw', op: 'commit_to_federation', namespace: 'openclaw', decision: 'allow', detail: 'staged' },
    ]);
  });

  it('is invisible to every read, for the operator and for the member', async () => {
    const asOperator = await everyRead(operatorCall, true);
    const asMember = await member(() => everyRead((name, args) => callJson(linked.client, name, args ?? {}), false));
    for (const text of STAGED_TEXTS) {
      expect(asOperator, text).not.toContain(text);
      expect(asMember, text).not.toContain(text);
    }
    expect(asOperator).toContain('agent not found: openclaw');
    expect(
      ((await operatorCall('find_entity', { name: 'Staged Secret Thing' })) as { matches: unknown[] }).matches,
    ).toEqual([]);
  });

  it('bourdon staging list shows it: who staged it, for which agent, how many rows', async () => {
    const human = await runCli(['staging', 'list'], { env: env() });
    expect(human.code).toBe(0);
    const lines = human.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^AGENT\s+STAGED BY\s+ENTITIES\s+SESSIONS\s+NOTES\s+WHEN/);
    expect(lines[1]).toMatch(/^openclaw\s+openclaw\s+1\s+1\s+1\s+just now/);
    const json = await runCli(['staging', 'list', '--json'], { env: env() });
    expect(JSON.parse(json.stdout)).toEqual([
      expect.objectContaining({
        caller: 'openclaw',
        agent_id: 'openclaw',
        path: stagedFile(),
        entities: 1,
        sessions: 1,
        notes: 1,
        error: null,
      }),
    ]);
  });

  it('bourdon staging promote merges it into the live library as a new version', async () => {
    const result = await runCli(['staging', 'promote', 'openclaw', '--yes'], { env: env() });
    // Only the fixture library's deliberately broken manifest is worth a warning.
    for (const line of result.stderr.split('\n').filter(Boolean))
      expect(line).toMatch(/^bourdon: warning: skipping .*broken\.l5\.yaml/);
    expect(result.code).toBe(0);
    // The review it promoted comes first, then the engine's line.
    expect(result.stdout.trim().split('\n').at(-1)).toBe(
      'promoted openclaw: +1 entity (~0 updated), +1 session (~0 updated), +1 note; now version 1',
    );
    expect(fs.existsSync(stagedFile())).toBe(false);
    expect(fs.existsSync(path.dirname(stagedFile()))).toBe(false);

    const found = (await operatorCall('find_entity', { name: 'Staged Secret Thing' })) as { matches: unknown[] };
    expect(found.matches).toEqual([
      // The later staged write's spelling of the name wins, as in the engine (q.commit.staged.json).
      {
        name: 'staged secret thing',
        agents: ['openclaw'],
        types: [],
        summaries: { openclaw: 'STAGED-SECRET' },
        tags: ['second'],
      },
    ]);
    const versions = (await operatorCall('list_memory_versions', { agent_id: 'openclaw' })) as {
      versions: Record<string, unknown>[];
    };
    expect(versions.versions).toHaveLength(1);
    expect(versions.versions[0]).toMatchObject({ version: 1, op: 'promote', actor: 'openclaw', current: true });
    // The member still reads only its grants: promotion does not grant it its own namespace.
    expect(await member(() => callJson(linked.client, 'list_agents'))).toEqual({ agents: ['cursor'] });
    expect((await runCli(['staging', 'list'], { env: env() })).stdout.trim()).toBe('Nothing staged.');
  });

  it('bourdon staging reject deletes a staged write unread; the live file does not change', async () => {
    const live = path.join(library, 'agents', 'openclaw.l5.yaml');
    const before = fs.readFileSync(live, 'utf8');
    await member(() =>
      callJson(linked.client, 'commit_to_federation', {
        agent_id: 'openclaw',
        entities: [{ name: 'Rejected', summary: 'REJECTED-SECRET' }],
      }),
    );
    expect(fs.existsSync(stagedFile())).toBe(true);
    const json = await runCli(['staging', 'reject', 'openclaw', '--json'], { env: env() });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ agent_id: 'openclaw', rejected: 1, paths: [stagedFile()] });
    expect(fs.existsSync(stagedFile())).toBe(false);
    expect(fs.readFileSync(live, 'utf8')).toBe(before);
    expect(await everyRead(operatorCall, true)).not.toContain('REJECTED-SECRET');
  });

  it('promote and reject with nothing staged, or a bad id, fail with one line', async () => {
    const cases: [string[], number, string][] = [
      [['staging', 'promote', 'openclaw'], FAILURES.not_found.exit, "bourdon: no staged writes for agent 'openclaw'"],
      [['staging', 'reject', 'openclaw'], FAILURES.not_found.exit, "bourdon: no staged writes for agent 'openclaw'"],
      [
        ['staging', 'promote', '../agents/codex'],
        FAILURES.invalid_input.exit,
        "bourdon: invalid agent_id '../agents/codex'",
      ],
      [['staging', 'reject'], FAILURES.usage.exit, 'bourdon: missing required argument: <'],
    ];
    const results = await Promise.all(cases.map(([args]) => runCli(args, { env: env() })));
    for (const [index, [args, code, message]] of cases.entries()) {
      const result = at(results, index);
      expect(result.code, args.join(' ')).toBe(code);
      expect(result.stderr.split('\n')[0], args.join(' ')).toContain(message);
      expect(result.stdout, args.join(' ')).toBe('');
    }
    const missing = await runCli(['staging', 'list', '--library', path.join(home, 'nope')], { env: env() });
    expect(missing.code).toBe(FAILURES.not_found.exit);
  });
});
