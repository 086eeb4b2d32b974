/**
 * A host calls in parallel: several clients (subagents, windows) of one member, each with a few
 * tool calls in flight at once, and a writer beside them. Every call is answered and none is
 * refused by the per-member flood bound, on the real binary, through the official MCP client,
 * both in `--allow-unauthenticated` loopback mode (everyone is `operator`) and with one member's
 * token shared by every client. No clock: the test counts answers, never times them.
 */
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MEMBER_CONCURRENCY, MemberConcurrency } from '../src/mcp/http/concurrency.js';
import { FederationRegistry } from '../src/core/trust/registry.js';
import { copyFixtureLibrary, tempDir } from './helpers/fixtures.js';
import { callJson, httpClient, startHttpServe, type ServedHttp } from './helpers/http.js';

const READERS = 8;
/** Calls each reader has in flight at once: 8 × 4 + the writer's is far past the old bound of 3. */
const PARALLEL = 4;
const ROUNDS = 3;

const READS: [string, Record<string, unknown>][] = [
  ['find_entity', { name: 'Bourdon' }],
  ['list_recent_work', { since: '2020-01-01' }],
  ['query_agent_memory', { agent: 'codex', topic: 'sync engine' }],
  ['list_notes', {}],
];

describe('the default per-member bound', () => {
  it('lets one member have 64 calls running or waiting, and refuses only the 65th', () => {
    const bound = new MemberConcurrency();
    expect(bound.limit).toBe(DEFAULT_MEMBER_CONCURRENCY);
    const slots = Array.from({ length: 64 }, () => bound.enter('host'));
    expect(slots.every((slot) => slot !== null)).toBe(true);
    expect(bound.load('host')).toEqual({ running: 8, waiting: 56 });
    expect(bound.enter('host')).toBeNull();
    for (const slot of slots) slot!.leave();
    expect(bound.load('host')).toEqual({ running: 0, waiting: 0 });
  });
});

describe.each([
  { mode: 'unauthenticated loopback', shareToken: false },
  { mode: "one member's token", shareToken: true },
])('a host with $mode: 8 parallel clients and a writer', ({ shareToken }) => {
  let served: ServedHttp;
  let token: string | undefined;
  const clients: Client[] = [];

  beforeAll(async () => {
    const library = copyFixtureLibrary();
    const home = tempDir('bourdon-parallel-home-');
    const args = ['serve', '--transport', 'http', '--port', '0', '--library', library];
    if (shareToken) {
      const registry = new FederationRegistry(path.join(home, 'federation.yaml'), { warn: () => {} });
      token = registry.add('host', { tier: 'trusted' }).token;
    } else {
      args.push('--allow-unauthenticated');
    }
    served = await startHttpServe(args, { BOURDON_HOME: home });
    for (let index = 0; index <= READERS; index++) clients.push(await httpClient(served.url, 'auto', token));
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await served?.stop();
  });

  it('answers every call, refuses none', async () => {
    const readers = clients.slice(0, READERS);
    const writer = clients[READERS]!;
    let commits = 0;
    const outcomes = await Promise.all([
      ...readers.flatMap((client) =>
        Array.from({ length: PARALLEL }, async (_, lane) => {
          const answers: string[] = [];
          for (let round = 0; round < ROUNDS; round++) {
            const [name, args] = READS[(lane + round) % READS.length]!;
            const result = await client.callTool({ name, arguments: args });
            answers.push(result.isError ? `error from ${name}: ${JSON.stringify(result.content)}` : name);
          }
          return answers;
        }),
      ),
      ...Array.from({ length: PARALLEL }, async (_, lane) => {
        const answers: string[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          const payload = await callJson(writer, 'commit_to_federation', {
            agent_id: `parallel-writer-${lane}`,
            agent_type: 'note-capture',
            entities: [{ name: `Parallel Entity ${round}`, type: 'draft', summary: 'written beside readers' }],
          });
          if (payload.entities_added === 1 && payload.total_entities === round + 1) commits++;
          answers.push(typeof payload.error === 'string' ? `error: ${payload.error}` : 'commit_to_federation');
        }
        return answers;
      }),
    ]);
    const answers = outcomes.flat();
    expect(answers).toHaveLength((READERS + 1) * PARALLEL * ROUNDS);
    expect(answers.filter((answer) => answer.startsWith('error'))).toEqual([]);
    expect(commits).toBe(PARALLEL * ROUNDS);
    // Every write landed: each writer lane's agent holds all of its rounds' entities.
    const found = await callJson(clients[0]!, 'find_entity', { name: `Parallel Entity ${ROUNDS - 1}` });
    expect((found.matches as { agents: string[] }[])[0]!.agents).toHaveLength(PARALLEL);
    expect(served.stderr()).not.toMatch(/too many concurrent|request failed/);
  });
});
