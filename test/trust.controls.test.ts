/**
 * Negative tests for every control a quarantined member is under (spec §3, §4), through a
 * real MCP client with the identity set the production way (a registered token resolved by
 * FederationRegistry.authenticate, carried by runWithCaller):
 * - no tool or resource reads a namespace outside its grants (sentinel texts planted in
 *   codex, a non-granted agent, never come back), and D5 holds for entity matches;
 * - the tools outside the quarantine set are refused, whatever the arguments;
 * - no private row comes back even when it asks (ceiling team), while the echo stays as asked;
 * - it cannot write another namespace;
 * - every call is audited, invalid ones included.
 * A trusted member over the same mechanism sees the sentinels, so the negative checks bite.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { readAudit } from '../src/core/trust/audit.js';
import { runWithCaller, UNKNOWN_CALLER, type Caller } from '../src/core/trust/caller.js';
import { QUARANTINE_ALLOWED } from '../src/core/trust/policy.js';
import { FederationRegistry } from '../src/core/trust/registry.js';
import { OPERATIONS as ALL_TOOLS } from '../src/core/operations/catalog.js';
import type { Operation } from '../src/core/operations/operation.js';
import { copyFixtureLibrary, tempDir } from './helpers/fixtures.js';
import { callJson, linkedClient, readJsonResource, type LinkedClient } from './helpers/mcp.js';

const ENV = { BOURDON_LOCAL_NAME: 'fixture-machine' };

/** Texts only reachable by reading codex (not granted), or cursor's private rows. */
const CODEX_SECRETS = [
  'CODEX-SECRET',
  'codex-tag-secret',
  'codex-type-secret',
  'Runtime recognition project',
  'Implemented pagination',
];
const PRIVATE_SECRETS = ['CURSOR-PRIVATE', 'cursor-private-tag'];
const OTHER_AGENTS = [
  'claude-code',
  'claude-desktop-chat',
  'bare-agent',
  'Recognition-first',
  'Reviewed federation PR',
  'HN launch checklist',
  'Bare Entity',
];
const FORBIDDEN = [...CODEX_SECRETS, ...PRIVATE_SECRETS, ...OTHER_AGENTS];

type ManifestRows = { known_entities: unknown[]; recent_sessions: unknown[]; notes?: unknown[] };

function editManifest(library: string, id: string, edit: (doc: ManifestRows) => void): void {
  const file = path.join(library, 'agents', `${id}.l5.yaml`);
  const doc = YAML.parse(fs.readFileSync(file, 'utf8')) as ManifestRows;
  edit(doc);
  fs.writeFileSync(file, YAML.stringify(doc));
}

function plantSentinels(library: string): void {
  editManifest(library, 'codex', (doc) => {
    doc.known_entities.push(
      { name: 'Sentinel Codex', type: 'concept', summary: 'CODEX-SECRET-PUBLIC' },
      {
        name: 'Shared Sentinel',
        type: 'codex-type-secret',
        summary: 'CODEX-SECRET-SHARED',
        tags: ['codex-tag-secret'],
        aliases: ['sentinel'],
      },
    );
    doc.recent_sessions.push({
      date: '2026-06-05',
      cwd: '/x',
      project_focus: ['Shared Sentinel'],
      key_actions: ['CODEX-SECRET-SESSION'],
    });
    doc.notes = [
      { date: '2026-06-05', text: 'CODEX-SECRET-NOTE', tags: ['sentinel'], project_focus: ['Shared Sentinel'] },
    ];
  });
  editManifest(library, 'cursor', (doc) => {
    doc.known_entities.push(
      { name: 'Shared Sentinel', type: 'project', summary: 'cursor shared', tags: ['cursor-tag'] },
      {
        name: 'Sentinel Private',
        type: 'concept',
        summary: 'CURSOR-PRIVATE-SECRET',
        tags: ['cursor-private-tag'],
        visibility: 'private',
      },
    );
    doc.recent_sessions.push({
      date: '2026-06-05',
      cwd: '/p',
      project_focus: ['Shared Sentinel'],
      key_actions: ['CURSOR-PRIVATE-SESSION'],
      visibility: 'private',
    });
    doc.notes = [
      { date: '2026-06-05', text: 'cursor public note', tags: ['sentinel'], project_focus: ['Shared Sentinel'] },
      {
        date: '2026-06-05',
        text: 'CURSOR-PRIVATE-NOTE',
        tags: ['sentinel'],
        project_focus: ['Shared Sentinel'],
        visibility: 'private',
      },
    ];
  });
}

/** Argument values by name: aimed at codex, the sentinels, and private access. */
const AIMED: Record<string, unknown> = {
  agent: 'codex',
  agent_id: 'codex',
  name: 'Shared Sentinel',
  topic: 'Shared Sentinel',
  query: 'sentinel codex secret private note',
  kind: 'entity,session,note,workstream',
  project: 'Shared Sentinel',
  prompt: 'Shared Sentinel, Sentinel Codex and Sentinel Private',
  since: '2000-01-01',
  tag: 'sentinel',
  include_private: true,
  access_level: 'private',
  limit: 100,
  version: 1,
  reason: 'probe',
};

function shapeOf(tool: Operation): Record<string, { safeParse(value: unknown): { success: boolean } }> {
  return tool.input.shape;
}

/** Variants of arguments for a tool: everything aimed; then narrower mixes. */
function argumentVariants(tool: Operation): Record<string, unknown>[] {
  const shape = shapeOf(tool);
  const keys = Object.keys(shape);
  const required = Object.entries(shape)
    .filter(([, schema]) => !schema.safeParse(undefined).success)
    .map(([key]) => key);
  const pick = (values: Record<string, unknown>) =>
    Object.fromEntries(
      keys.filter((key) => key in values && values[key] !== undefined).map((key) => [key, values[key]]),
    );
  const variants = [
    pick(AIMED),
    pick({ ...AIMED, agent: required.includes('agent') ? 'cursor' : undefined, access_level: undefined }),
    pick({ ...AIMED, agent: required.includes('agent') ? 'cursor' : undefined, include_private: undefined }),
    pick({
      ...AIMED,
      agent: required.includes('agent') ? 'cursor' : undefined,
      name: 'Sentinel Private',
      topic: 'Sentinel Private',
      project: 'Sentinel Private',
    }),
    pick({
      ...AIMED,
      agent: required.includes('agent') ? 'cursor' : undefined,
      name: 'Sentinel Codex',
      topic: 'Sentinel Codex',
      project: 'Sentinel Codex',
      since: undefined,
    }),
  ];
  return variants;
}

function leaks(payload: unknown, forbidden = FORBIDDEN): string[] {
  const text = JSON.stringify(payload);
  return forbidden.filter((secret) => text.includes(secret));
}

function denial(op: string, detail: string) {
  return { error: 'access denied', op, agent: 'openclaw', tier: 'quarantined', detail };
}

describe('a quarantined member (openclaw, grants [cursor]) through a real MCP client', () => {
  let library: string;
  let home: string;
  let auditPath: string;
  let registry: FederationRegistry;
  let memberToken: string;
  let trustedToken: string;
  let linked: LinkedClient;
  let memberCalls = 0;

  function as<T>(token: string, fn: () => Promise<T>): Promise<T> {
    const caller = registry.authenticate(token);
    if (!caller) throw new Error('token did not authenticate');
    if (token === memberToken) memberCalls++;
    return runWithCaller(caller, fn);
  }
  const member = <T>(fn: () => Promise<T>) => as(memberToken, fn);
  const call = (name: string, args: Record<string, unknown> = {}) => member(() => callJson(linked.client, name, args));
  const read = (uri: string) => member(() => readJsonResource(linked.client, uri));

  beforeAll(async () => {
    library = copyFixtureLibrary();
    plantSentinels(library);
    home = tempDir('bourdon-home-');
    auditPath = path.join(home, 'audit.jsonl');
    registry = new FederationRegistry(path.join(home, 'federation.yaml'), { warn: () => {} });
    memberToken = registry.add('openclaw', { grants: ['cursor'] }).token;
    trustedToken = registry.add('laptop', { tier: 'trusted' }).token;
    linked = await linkedClient(library, { env: ENV, auditPath });
  });
  afterAll(async () => {
    await linked.close();
    fs.rmSync(library, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  const readTools = ALL_TOOLS.filter(
    (tool) => QUARANTINE_ALLOWED.has(tool.name) && tool.name !== 'commit_to_federation',
  );
  const deniedTools = ALL_TOOLS.filter((tool) => !QUARANTINE_ALLOWED.has(tool.name));

  it('the sentinels are reachable by a trusted caller (so the negative checks below bite)', async () => {
    const seen = new Set<string>();
    for (const tool of ALL_TOOLS.filter(
      (t) => t.name !== 'commit_to_federation' && t.name !== 'rollback_agent_memory',
    )) {
      for (const args of argumentVariants(tool)) {
        const payload = await as(trustedToken, () => callJson(linked.client, tool.name, args));
        for (const secret of leaks(payload)) seen.add(secret);
      }
    }
    for (const secret of [
      'CODEX-SECRET',
      'codex-tag-secret',
      'codex-type-secret',
      'CURSOR-PRIVATE',
      'cursor-private-tag',
    ]) {
      expect([...seen], secret).toContain(secret);
    }
  });

  describe('reads are limited to the grants, through every tool it may call', () => {
    for (const tool of readTools) {
      it(`${tool.name}: nothing from codex, other agents or private rows, with any arguments`, async () => {
        for (const args of argumentVariants(tool)) {
          const payload = await call(tool.name, args);
          expect(leaks(payload), `${tool.name}(${JSON.stringify(args)})`).toEqual([]);
          expect(
            String((payload as { error?: unknown }).error ?? ''),
            'the call must run, not fail validation',
          ).not.toMatch(/validation/i);
        }
      });
    }

    it('naming a non-granted namespace is refused with the denial payload', async () => {
      expect(await call('query_agent_memory', { agent: 'codex', topic: 'Bourdon' })).toEqual(
        denial('query_agent_memory', "namespace 'codex' not granted"),
      );
      expect(await call('list_recent_work', { agent: 'claude-code', since: '2000-01-01' })).toEqual({
        ...denial('list_recent_work', "namespace 'claude-code' not granted"),
        sessions: [],
        next_cursor: null,
        has_more: false,
      });
      for (const name of ['list_notes', 'list_workstreams']) {
        expect(await call(name, { agent: 'codex' })).toMatchObject(denial(name, "namespace 'codex' not granted"));
      }
    });

    it('a granted namespace reads normally (public rows)', async () => {
      const payload = (await call('query_agent_memory', { agent: 'cursor', topic: 'Flaky Test' })) as {
        matches: unknown[];
      };
      expect(payload.matches).toHaveLength(1);
      expect(await call('list_agents')).toEqual({ agents: ['cursor'] });
    });

    it("entity matches carry only the granted agents' summaries, types and tags (D5)", async () => {
      const payload = (await call('find_entity', { name: 'Shared Sentinel' })) as { matches: unknown[] };
      expect(payload.matches).toEqual([
        {
          name: 'Shared Sentinel',
          agents: ['cursor'],
          types: ['project'],
          summaries: { cursor: 'cursor shared' },
          tags: ['cursor-tag'],
        },
      ]);
      // An alias only codex knows finds nothing at all.
      expect(((await call('find_entity', { name: 'sentinel' })) as { matches: unknown[] }).matches).toEqual([]);
    });
  });

  describe('resources', () => {
    it('agents lists the grants only', async () => {
      expect(await read('agent-library://agents')).toEqual(['cursor']);
    });

    it('the memory of a non-granted or unknown agent is refused, without saying whether it exists', async () => {
      for (const id of ['codex', 'claude-code', 'nobody', 'bare-agent']) {
        expect(await read(`agent-library://agents/${id}/memory`)).toEqual(
          denial('resource:agent-memory', `namespace '${id}' not granted`),
        );
      }
      expect(await read(`agent-library://agents/${encodeURIComponent('../agents/codex')}/memory`)).toMatchObject({
        error: 'access denied',
      });
    });

    it("a granted agent's memory is public rows only", async () => {
      const doc = (await read('agent-library://agents/cursor/memory')) as { known_entities: { name: string }[] };
      expect(doc.known_entities.map((e) => e.name)).toEqual(['Bourdon', 'Flaky Test', 'Shared Sentinel']);
      expect(leaks(doc)).toEqual([]);
    });

    it('entities are filtered as find_entity (D5)', async () => {
      expect(await read('agent-library://entities/Shared%20Sentinel')).toEqual([
        {
          name: 'Shared Sentinel',
          agents: ['cursor'],
          types: ['project'],
          summaries: { cursor: 'cursor shared' },
          tags: ['cursor-tag'],
        },
      ]);
      for (const name of ['Sentinel Codex', 'Sentinel Private', 'ILTT']) {
        expect(await read(`agent-library://entities/${encodeURIComponent(name)}`)).toEqual([]);
      }
    });
  });

  describe('tools outside the quarantine set', () => {
    it('include at least the four the fixtures name', () => {
      expect(deniedTools.map((t) => t.name)).toEqual(
        expect.arrayContaining([
          'get_cross_agent_summary',
          'prepare_recognition_context',
          'compile_codex_turn',
          'get_deeper_context',
        ]),
      );
    });

    for (const tool of deniedTools) {
      it(`${tool.name} is refused, with valid, aimed, empty or invalid arguments`, async () => {
        const expected = denial(tool.name, "tier 'quarantined' may not call this tool");
        for (const args of [...argumentVariants(tool), {}, { prompt: 42, agent_id: ['x'], version: 'NaN' }]) {
          expect(await call(tool.name, args)).toEqual(expected);
        }
      });
    }
  });

  describe('private rows never reach it, even when it asks', () => {
    it('include_private and access_level private are capped at team; the echo stays as asked', async () => {
      const asked = (await call('find_entity', { name: 'Sentinel Private', include_private: true })) as Record<
        string,
        unknown
      >;
      expect(asked).toEqual({ name: 'Sentinel Private', access_level: 'public', include_private: true, matches: [] });
      const level = (await call('find_entity', { name: 'Sentinel Private', access_level: 'private' })) as Record<
        string,
        unknown
      >;
      expect(level).toEqual({ name: 'Sentinel Private', access_level: 'private', include_private: false, matches: [] });
      const sessions = (await call('list_recent_work', {
        since: '2000-01-01',
        include_private: true,
        access_level: 'private',
      })) as {
        sessions: { key_actions: string[] }[];
      };
      expect(sessions.sessions.length).toBeGreaterThan(0);
      expect(leaks(sessions)).toEqual([]);
    });

    it('a caller object that claims a private ceiling, or a tier spelled oddly, is still bounded', async () => {
      const claims: Caller[] = [
        { agent_id: 'claimant', tier: 'quarantined', grants: ['cursor'], ceiling: 'private' },
        { agent_id: 'claimant', tier: 'Trusted' as Caller['tier'], grants: ['cursor'], ceiling: 'private' },
      ];
      for (const caller of claims) {
        const payload = await runWithCaller(caller, () =>
          callJson(linked.client, 'find_entity', { name: 'Sentinel Private', include_private: true }),
        );
        expect((payload as { matches: unknown[] }).matches).toEqual([]);
        const refused = await runWithCaller(caller, () =>
          callJson(linked.client, 'get_cross_agent_summary', { project: 'Bourdon' }),
        );
        expect(refused).toMatchObject({ error: 'access denied' });
      }
    });

    it('an HTTP request that reaches a handler without an identity is an unknown member with no grants', async () => {
      const http = await linkedClient(library, { env: ENV, auditPath: null, fallbackCaller: UNKNOWN_CALLER });
      try {
        expect(await callJson(http.client, 'list_agents')).toEqual({ agents: [] });
        expect(
          ((await callJson(http.client, 'find_entity', { name: 'Bourdon' })) as { matches: unknown[] }).matches,
        ).toEqual([]);
        expect(await callJson(http.client, 'query_agent_memory', { agent: 'cursor', topic: 'Bourdon' })).toMatchObject({
          error: 'access denied',
          agent: 'unknown',
        });
      } finally {
        await http.close();
      }
    });
  });

  describe('writes', () => {
    it('cannot write another namespace; the target file is untouched', async () => {
      const before = fs.readFileSync(path.join(library, 'agents', 'cursor.l5.yaml'));
      for (const target of ['cursor', 'codex', 'brand-new']) {
        expect(
          await call('commit_to_federation', { agent_id: target, agent_type: 'other', entities: [{ name: 'Evil' }] }),
        ).toEqual(
          denial('commit_to_federation', "quarantined members may only write their own namespace ('openclaw')"),
        );
      }
      expect(fs.readFileSync(path.join(library, 'agents', 'cursor.l5.yaml'))).toEqual(before);
      expect(fs.existsSync(path.join(library, 'agents', 'brand-new.l5.yaml'))).toBe(false);
      expect(fs.existsSync(path.join(library, 'staging', 'openclaw', 'cursor.l5.yaml'))).toBe(false);
    });
  });

  describe('the audit trail', () => {
    it('has one record per member call, invalid ones included, and no token material', async () => {
      const result = await member(() => linked.client.callTool({ name: 'find_entity', arguments: { name: 42 } }));
      expect(result.isError).toBe(true);
      const records = readAudit(auditPath).filter((record) => record.agent === 'openclaw');
      expect(records).toHaveLength(memberCalls);
      expect(records.at(-1)).toMatchObject({ op: 'find_entity', decision: 'deny', detail: 'invalid arguments' });
      const text = fs.readFileSync(auditPath, 'utf8');
      for (const token of [memberToken, trustedToken]) {
        expect(text).not.toContain(token);
        expect(text).not.toContain(token.slice(4, 20));
      }
      expect(text).not.toMatch(/[0-9a-f]{64}/);
    });
  });
});
