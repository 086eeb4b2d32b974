/**
 * A hostile peer: a stand-in server on a loopback port that answers export_agents, list_agents
 * and find_entity with shapes no Bourdon server sends (wrong types, null, missing keys, a key
 * nested 100,000 deep, a huge string, control characters, impossible dates). Each answer is
 * parsed through the answer model before anything uses it: one that does not fit is that
 * peer's error, one line naming the field, in the payload's peer errors and in doctor; the
 * local agents are listed as ever, nothing crashes and nothing the peer invented is passed on.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpServerHandle } from '../src/mcp/http.js';
import { McpPeerFanout } from '../src/mcp/peer-client.js';
import { runCli } from './helpers/cli.js';
import { callJson, linkedClient } from './helpers/mcp.js';
import { runStandInPeer } from './helpers/peer-stand-in.js';
import { tempDir } from './helpers/fixtures.js';

/** What the stand-in answers to each tool: the raw text of its first content item. */
const answers = new Map<string, string>();

/** The stand-in's tools, each answering its text from `answers`. */
const HOSTILE_TOOLS = Object.fromEntries(
  ['export_agents', 'list_agents', 'find_entity'].map((tool) => [tool, () => answers.get(tool) ?? '{}']),
);

/** A well-formed exported agent, for one field at a time to be spoiled. */
const goodAgent = {
  id: 'codex',
  type: 'code-assistant',
  instance: null,
  role_narrative: 'Peer role.',
  last_updated: '2026-06-01T00:00:00+00:00',
  capability_count: 0,
  session_count: 1,
  freshest_session_date: '2026-06-01',
  recent_activity: [],
  parse_error: null,
  source: 'laptop',
  source_kind: 'local',
};
const envelope = (agents: unknown[]) =>
  JSON.stringify({ schema: 'bourdon.agents/v1', machine: 'evil', generated_from: '/x', agents });

let peer: HttpServerHandle;
let home: string;
let library: string;

beforeAll(async () => {
  peer = await runStandInPeer('hostile', HOSTILE_TOOLS);
  home = tempDir('bourdon-hostile-home-');
  library = tempDir('bourdon-hostile-lib-');
  fs.mkdirSync(path.join(library, 'agents'));
  fs.writeFileSync(
    path.join(library, 'agents', 'claude-code.l5.yaml'),
    "spec_version: '0.1'\nagent: {id: claude-code, type: code-assistant}\nknown_entities:\n  - {name: Bourdon, type: project}\nrecent_sessions:\n  - {date: '2026-06-02', cwd: /a, project_focus: [Bourdon]}\n",
  );
  fs.writeFileSync(path.join(home, 'peers.yaml'), `peers:\n  - {name: evil, url: "${peer.url}"}\n`);
}, 60_000);

afterAll(async () => {
  await peer.close();
  for (const dir of [home, library]) fs.rmSync(dir, { recursive: true, force: true });
});

const exportFederated = (json: boolean) =>
  runCli(['agents', '--export', '--federated', ...(json ? ['--json'] : []), '--library', library], {
    env: { BOURDON_HOME: home, NO_COLOR: '1', COLUMNS: '200' },
    timeoutMs: 60_000,
  });

type Source = { name: string; reachable: boolean; error: string | null };

/** The federated export of this library with the peer answering `agents`. */
async function exportWith(agents: unknown[] | string) {
  answers.set('export_agents', typeof agents === 'string' ? agents : envelope(agents));
  const result = await exportFederated(true);
  expect(result.code, result.stderr).toBe(0);
  const payload = JSON.parse(result.stdout) as { agents: { id: string; role_narrative?: string }[]; sources: Source[] };
  const evil = payload.sources.find((source) => source.name === 'evil')!;
  return { payload, evil, ids: payload.agents.map((agent) => agent.id) };
}

describe('a peer answer is read item by item, as a manifest is: what does not fit is left out, never a crash', () => {
  // Issue 50: one value that does not fit costs that value (or the row it names), not the peer's
  // whole answer; the field is then what the engine answers for it absent (null, []).
  const spoiled: [string, Record<string, unknown>, Record<string, unknown> | null][] = [
    ['a number for parse_error', { parse_error: 12345 }, { parse_error: null }],
    ['a number for freshest_session_date', { freshest_session_date: 20240101 }, { freshest_session_date: null }],
    ['an object for type', { type: { name: 'code' } }, { type: null }],
    ['null for the id', { id: null }, null],
    ['no source at all', { source: undefined }, null],
    ['a string for recent_activity', { recent_activity: 'lots' }, { recent_activity: [] }],
  ];
  for (const [label, change, kept] of spoiled) {
    it(`${label}: the value is left out (the row with it when it names the row), the rest listed`, async () => {
      const good = { ...goodAgent, id: 'other' };
      const { payload, evil, ids } = await exportWith([{ ...goodAgent, ...change }, good]);
      expect(evil).toMatchObject({ reachable: true, error: null });
      expect(ids).toContain('peer:evil:other');
      const row = payload.agents.find((agent) => agent.id === 'peer:evil:codex');
      if (kept === null) expect(row).toBeUndefined();
      else expect(row).toMatchObject({ ...kept, role_narrative: 'Peer role.' });
      // The human listing of the same answer: no crash, the local agent shown.
      const human = await exportFederated(false);
      expect(human.code, human.stderr).toBe(0);
      expect(human.stdout).toContain('claude-code');
      expect(human.stderr).not.toMatch(/is not a function|TypeError/);
    });
  }

  it('missing optional keys are read as the engine answers them (null, empty), and the row is kept', async () => {
    const { payload, evil } = await exportWith([{ id: 'codex', source: 'x', source_kind: 'local' }]);
    expect(evil).toMatchObject({ reachable: true, error: null });
    expect(payload.agents.find((agent) => agent.id === 'peer:evil:codex')).toMatchObject({
      type: null,
      session_count: null,
      recent_activity: [],
      source: 'peer:evil',
      source_kind: 'peer',
    });
  });

  it('an answer without its list, or not an object, is the peer’s error', async () => {
    expect(
      (await exportWith(JSON.stringify({ schema: 'bourdon.agents/v1', machine: 'evil', generated_from: '/x' }))).evil
        .error,
    ).toMatch(/does not fit at agents: /);
    expect((await exportWith('[1, 2, 3]')).evil.error).toMatch(/non-object/);
    expect((await exportWith('not json')).evil.error).toMatch(/not JSON/);
  });

  it('an extra key nested 100,000 deep is dropped, so --json answers', async () => {
    const deep = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000);
    const agent = JSON.stringify({ ...goodAgent, extra: '__DEEP__' }).replace('"__DEEP__"', deep);
    const { payload, evil } = await exportWith(
      `{"schema":"bourdon.agents/v1","machine":"e","generated_from":"/x","agents":[${agent}]}`,
    );
    expect(evil.error).toBeNull();
    const tagged = payload.agents.find((row) => row.id === 'peer:evil:codex');
    expect(tagged).toBeDefined();
    expect(tagged).not.toHaveProperty('extra');
  });

  it('a huge string and control characters: kept as data, never written raw to a terminal', async () => {
    const huge = 'x'.repeat(1_500_000);
    const { payload } = await exportWith([{ ...goodAgent, role_narrative: huge, type: 'bad\u001b[2J\u0007type' }]);
    const tagged = payload.agents.find((row) => row.id === 'peer:evil:codex');
    expect(tagged?.role_narrative).toHaveLength(1_500_000);
    const human = await exportFederated(false);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout.includes('\u001b[2J') || human.stdout.includes('\u0007')).toBe(false);
    expect(human.stdout).toContain('peer:evil:codex');
  });

  it('an impossible date is shown as written, not as "22 months ago"', async () => {
    answers.set('export_agents', envelope([{ ...goodAgent, freshest_session_date: '2024-13-45' }]));
    const human = await exportFederated(false);
    expect(human.code, human.stderr).toBe(0);
    const row = human.stdout.split('\n').find((line) => line.includes('peer:evil:codex'))!;
    expect(row).toContain('2024-13-45');
    expect(row).not.toMatch(/ago/);
  });
});

describe('a hostile peer seen from the MCP server and from doctor', () => {
  it('find_entity takes what the engine takes: a bare list, or any object with a matches list; only items that do not fit go', async () => {
    const fanout = new McpPeerFanout([{ name: 'evil', url: peer.url, token_env: 'BOURDON_PEER_TOKEN' }], {});
    const linked = await linkedClient(library, { peers: fanout });
    const ask = async (answer: unknown) => {
      answers.set('find_entity', JSON.stringify(answer));
      return (await callJson(linked.client, 'find_entity', { name: 'bourdon' })) as {
        matches: { name: string; agents: string[]; types: string[] }[];
        peers_unreachable?: unknown[];
      };
    };
    const good = { name: 'Bourdon', agents: ['codex'], types: ['project', 3] };
    try {
      // No top-level name (refused whole before issue 50), a bare list, items that are not objects or have no name.
      for (const answer of [{ matches: [7, good, { name: 7 }] }, [good, 'x', null], { matches: [good], name: 5 }]) {
        const payload = await ask(answer);
        expect(payload.peers_unreachable).toBeUndefined();
        expect(payload.matches).toHaveLength(1);
        expect(payload.matches[0]).toMatchObject({
          name: 'Bourdon',
          agents: ['claude-code', 'peer:evil:codex'],
          types: ['project'],
        });
      }
      // An answer with no list at all is still the peer's error, naming the field.
      const none = await ask({ name: 'x' });
      expect(none.matches.map((match) => match.agents)).toEqual([['claude-code']]);
      expect(none.peers_unreachable).toEqual([
        {
          peer: 'evil',
          timed_out: false,
          error: expect.stringMatching(/^answer to find_entity does not fit at matches: /),
        },
      ]);
    } finally {
      await linked.close();
      await fanout.close();
    }
  });

  it('doctor names the peer and the first value left out when its list_agents answer has items that do not fit', async () => {
    answers.set('list_agents', JSON.stringify({ agents: [1, 2] }));
    const result = await runCli(['doctor', '--json', '--library', library], {
      env: { BOURDON_HOME: home, BOURDON_PEER_TOKEN: 'unused' },
      timeoutMs: 60_000,
    });
    const report = JSON.parse(result.stdout) as { checks: { id: string; details: string[] }[] };
    const reach = report.checks.find((check) => check.id === 'reachability');
    expect(reach?.details.join('\n')).toMatch(
      /evil: reachable in \d+ ms; left out 2 values of its list_agents answer that do not fit \(agents\[0\]: expected text, found a number\)/,
    );
  });
});
