/**
 * Issue 56: the parity classes of the fourth differential run, through a real MCP client. Each
 * expected answer is the engine's (v0.10.1, run from its source on the same manifest):
 *
 * 1. values print as Python's `str()` prints them (every digit, `1.5e-07`, `nan`, `-inf`, `2.0`);
 * 2. an explicit YAML tag safe_load reads is read, and only a value that does not fit is left out;
 * 3. booleans are `True`/`False`, and a false type or summary (`no`, `0`, `''`) is as if absent;
 * 4. basic-format dates (`20261204`) are dates, in the store and in `since`;
 * 5. same-date rows of get_cross_agent_summary follow manifest file names;
 * and, smaller: two rows of one name (the later row's summary), the memory resource's list fields
 * as the tools serve them, a peer without the tool named as such rather than unreachable.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { LibraryStore } from '../src/core/store/library.js';
import { createMcpServer } from '../src/mcp/server.js';
import { McpPeerFanout } from '../src/mcp/peer-client.js';
import { tempDir } from './helpers/fixtures.js';
import { callJson, linkClient } from './helpers/mcp.js';
import { runStandInPeer } from './helpers/peer-stand-in.js';

const roots: string[] = [];
const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
});

/** A library of `files` (name → YAML) served to a client linked in memory; the store's warnings kept. */
async function serve(
  files: Record<string, string>,
  options: Parameters<typeof createMcpServer>[1] = {},
): Promise<{ client: Client; warnings: string[] }> {
  const root = tempDir('values-parity-');
  roots.push(root);
  fs.mkdirSync(path.join(root, 'agents'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(root, 'agents', name), text);
  const warnings: string[] = [];
  const store = new LibraryStore(root, { warn: (message) => warnings.push(message) });
  const client = await linkClient(createMcpServer(store, { warn: () => {}, auditPath: null, ...options }));
  closers.push(() => client.close());
  return { client, warnings };
}

const head = (id: string) => `spec_version: '0.1'\nagent: {id: ${id}, type: other}\nlast_updated: '2026-12-01'\n`;

type Match = { name: string; types: string[]; summaries: Record<string, string>; tags: string[] };
const matchesOf = async (client: Client, name: string) =>
  ((await callJson(client, 'find_entity', { name })) as { matches: Match[] }).matches;
type Ref = { agent: string; date: string; cwd: string | null; key_actions?: string[]; project_focus: string[] };

describe('values as the engine prints them (issue 56)', () => {
  it("numbers keep every digit and print as Python's str(): 20-digit integers, float forms, NaN, infinities", async () => {
    const { client } = await serve({
      'alpha.l5.yaml':
        head('alpha') +
        'known_entities:\n' +
        '  - {name: Big, summary: 12345678901234567890, type: 1.5e-07}\n' +
        '  - {name: Odd, summary: .nan, type: -.inf}\n' +
        '  - {name: Whole, summary: 2.0, type: 1.0e+16}\n' +
        'recent_sessions:\n' +
        "  - {date: '2026-12-04', cwd: 12345678901234567890, key_actions: [1.0e+16, -0.0, 2.0, 0x1F]}\n",
    });
    expect(await matchesOf(client, 'Big')).toMatchObject([
      { types: ['1.5e-07'], summaries: { alpha: '12345678901234567890' } },
    ]);
    expect(await matchesOf(client, 'Odd')).toMatchObject([{ types: ['-inf'], summaries: { alpha: 'nan' } }]);
    expect(await matchesOf(client, 'Whole')).toMatchObject([{ types: ['1e+16'], summaries: { alpha: '2.0' } }]);
    const recent = (await callJson(client, 'list_recent_work', { since: '2026-11-01' })) as { sessions: Ref[] };
    expect(recent.sessions).toMatchObject([
      { cwd: '12345678901234567890', key_actions: ['1e+16', '-0.0', '2.0', '31'] },
    ]);
  });

  it('an explicit tag safe_load reads keeps the manifest: only a value that does not fit is left out, with one warning', async () => {
    const { client, warnings } = await serve({
      'tagged.l5.yaml':
        head('tagged') +
        'known_entities:\n' +
        '  - {name: F1, summary: !!float 3, type: !!float "3"}\n' +
        '  - {name: B1, summary: !!binary aGVsbG8=, type: tool}\n' +
        '  - {name: T1, summary: !!timestamp 2026-01-02, type: tool}\n' +
        '  - {name: S1, summary: keep, tags: !!set {a, b}}\n' +
        '  - {name: O1, summary: keep, tags: !!omap [{a: 1}]}\n' +
        '  - {name: P1, summary: keep, aliases: !!pairs [{a: 1}]}\n' +
        '  - {name: I1, summary: !!int "7", type: !!str 12}\n' +
        'recent_sessions:\n' +
        "  - {date: '2026-12-04', cwd: /x, key_actions: !!set {a}}\n",
    });
    expect(await matchesOf(client, 'F1')).toMatchObject([{ types: ['3.0'], summaries: { tagged: '3.0' } }]);
    expect(await matchesOf(client, 'T1')).toMatchObject([{ types: ['tool'], summaries: { tagged: '2026-01-02' } }]);
    expect(await matchesOf(client, 'S1')).toMatchObject([{ tags: ['a', 'b'], summaries: { tagged: 'keep' } }]);
    expect(await matchesOf(client, 'O1')).toMatchObject([{ tags: [], summaries: { tagged: 'keep' } }]);
    expect(await matchesOf(client, 'P1')).toMatchObject([{ summaries: { tagged: 'keep' } }]);
    expect(await matchesOf(client, 'I1')).toMatchObject([{ types: ['12'], summaries: { tagged: '7' } }]);
    // Bytes are not text: the summary is left out (the engine prints Python's b'hello').
    expect(await matchesOf(client, 'B1')).toMatchObject([{ types: ['tool'], summaries: {} }]);
    const recent = (await callJson(client, 'list_recent_work', { since: '2026-11-01' })) as { sessions: Ref[] };
    expect(recent.sessions).toMatchObject([{ key_actions: ['a'] }]);
    expect(warnings.filter((line) => line.includes('tagged.l5.yaml'))).toHaveLength(1);
    expect(warnings.join('\n')).toMatch(/known_entities\[1\]\.summary: expected text, found bytes/);
    expect(warnings.join('\n')).not.toMatch(/cannot resolve/);
  });

  it('booleans print True/False; a false type or summary is left out as the engine leaves it out', async () => {
    const { client } = await serve({
      'alpha.l5.yaml':
        head('alpha') +
        'known_entities:\n' +
        "  - {name: 'Yes', summary: yes, type: no}\n" +
        "  - {name: Zero, summary: 0, type: ''}\n" +
        '  - {name: Flag, summary: off, type: on}\n',
    });
    expect(await matchesOf(client, 'Yes')).toEqual([
      { name: 'Yes', agents: ['alpha'], types: [], summaries: { alpha: 'True' }, tags: [] },
    ]);
    expect(await matchesOf(client, 'Zero')).toEqual([
      { name: 'Zero', agents: ['alpha'], types: [], summaries: {}, tags: [] },
    ]);
    expect(await matchesOf(client, 'Flag')).toMatchObject([{ types: ['True'], summaries: {} }]);
    const recognition = (await callJson(client, 'prepare_recognition_context', { prompt: 'Zero and Yes' })) as {
      prompt_context: string;
      matched_entities: { name: string; type: string | null }[];
    };
    // An empty type is no type: the same answer as an entity written without one (docs/conformance.md).
    expect(recognition.matched_entities.map((entity) => entity.type)).toEqual([null, null]);
    expect(recognition.prompt_context).toContain('- Yes via alpha: True\n- Zero via alpha\n');
  });

  it('basic-format dates are dates, in a manifest and in since, ordered by the date as written', async () => {
    const { client } = await serve({
      'alpha.l5.yaml':
        head('alpha') +
        'recent_sessions:\n' +
        "  - {date: '2026-12-04', cwd: /dashed}\n" +
        "  - {date: '20261203', cwd: /basic}\n" +
        "  - {date: '20261101', cwd: /old}\n" +
        "  - {date: '2026-W49-1', cwd: /week}\n",
    });
    const list = async (since: string) =>
      ((await callJson(client, 'list_recent_work', { since })) as { sessions: Ref[] }).sessions.map((s) => s.cwd);
    // The engine's order: str(date) newest first, so `20261203` sorts above `2026-12-04`.
    expect(await list('2026-11-15')).toEqual(['/basic', '/week', '/dashed']);
    expect(await list('20261204')).toEqual(['/dashed']);
    expect(await list('20261101')).toEqual(['/basic', '/old', '/week', '/dashed']);
  });

  it('get_cross_agent_summary orders same-date sessions by manifest file name, as list_recent_work agrees', async () => {
    const manifest = (id: string) =>
      `spec_version: '0.1'\nagent: {id: ${id}, type: code-assistant}\nrecent_sessions:\n` +
      `  - {date: '2026-12-04', cwd: /${id}, project_focus: [Orbit]}\n`;
    const { client } = await serve({
      'copilot.l5.yaml': manifest('copilot'),
      'copilot-vscode.l5.yaml': manifest('copilot-vscode'),
    });
    const summary = (await callJson(client, 'get_cross_agent_summary', { project: 'Orbit' })) as {
      agents: string[];
      recent_sessions: Ref[];
    };
    expect(summary.agents).toEqual(['copilot', 'copilot-vscode']);
    expect(summary.recent_sessions.map((s) => s.agent)).toEqual(['copilot-vscode', 'copilot']);
    const recent = (await callJson(client, 'list_recent_work', { since: '2026-11-01' })) as { sessions: Ref[] };
    expect(recent.sessions.map((s) => s.agent)).toEqual(['copilot-vscode', 'copilot']);
  });

  it('two rows of one name in one agent: the later row with a summary gives it, types from both', async () => {
    const { client } = await serve({
      'dup.l5.yaml':
        head('dup') +
        'known_entities:\n' +
        '  - {name: Orbit, summary: first, type: project}\n' +
        "  - {name: ' Orbit ', summary: second, type: tool}\n" +
        "  - {name: Orbit, summary: ''}\n",
    });
    expect(await matchesOf(client, 'orbit')).toEqual([
      { name: 'Orbit', agents: ['dup'], types: ['project', 'tool'], summaries: { dup: 'second' }, tags: [] },
    ]);
  });

  it('the memory resource serves a list field as the tools do: a single value is a one-item list of its text', async () => {
    const { client } = await serve({
      'alpha.l5.yaml':
        head('alpha') +
        'known_entities:\n' +
        '  - {name: A, tags: [t, 1], aliases: yes}\n' +
        'recent_sessions:\n' +
        "  - {date: '2026-12-04', key_actions: true, files_touched: 42, project_focus: [x, {k: v}, 2.0]}\n",
    });
    const read = await client.readResource({ uri: 'agent-library://agents/alpha/memory' });
    const memory = JSON.parse((read.contents[0] as { text: string }).text) as {
      known_entities: Record<string, unknown>[];
      recent_sessions: Record<string, unknown>[];
    };
    expect(memory.known_entities[0]).toMatchObject({ tags: ['t'], aliases: ['true'] });
    expect(memory.recent_sessions[0]).toMatchObject({
      key_actions: ['True'],
      files_touched: ['42'],
      project_focus: ['x', '2.0'],
    });
    const recent = (await callJson(client, 'list_recent_work', { since: '2026-11-01' })) as {
      sessions: (Ref & { files_touched?: string[] })[];
    };
    expect(recent.sessions[0]).toMatchObject({
      key_actions: ['True'],
      files_touched: ['42'],
      project_focus: ['x', '2.0'],
    });
  });

  it('compile_codex_turn reads list items, aliases, a cwd and a later summary only where written as text', async () => {
    const home = tempDir('values-home-');
    roots.push(home);
    const { client } = await serve(
      {
        'hostile.l5.yaml':
          head('hostile') +
          'known_entities:\n' +
          '  - {name: Orbit, summary: 42, type: project, aliases: [7, orb]}\n' +
          '  - {name: Orbit, summary: later text}\n' +
          'recent_sessions:\n' +
          "  - {date: '2026-12-04', cwd: 12, project_focus: [Orbit, 12], key_actions: [fix orbit, 3], files_touched: [7]}\n",
        'codex.l5.yaml':
          "spec_version: '0.1'\nagent: {id: codex, type: code-assistant}\nknown_entities:\n" +
          "  - {name: Orbit, summary: '', type: project}\n  - {name: '12', summary: twelve}\n" +
          "recent_sessions:\n  - {date: '2026-12-03', cwd: /repo, project_focus: [Orbit]}\n",
      },
      { env: { HOME: home, SOURCE_DATE_EPOCH: '1765000000' } },
    );
    type Item = { name: string; kind: string; score: number; summary: string; evidence: string[] };
    const items = async (prompt: string) =>
      ((await callJson(client, 'compile_codex_turn', { prompt })) as { items: Item[] }).items;
    // The engine's answers on this library: the `12` in project_focus and the alias 7 are not text.
    const orbit = await items('work on Orbit 12');
    expect(orbit.map((item) => [item.name, item.kind, item.score])).toEqual([
      ['Orbit', 'session', 58],
      ['Orbit', 'project', 42],
      ['12', 'entity', 36],
    ]);
    expect(orbit[0]?.evidence).toEqual(['session date 2026-12-04', 'cwd 12', 'session date 2026-12-03', 'cwd /repo']);
    expect(orbit[1]?.summary).toBe('later text');
    expect(await items('what about 7')).toEqual([]);
  });

  it('a peer without list_notes or list_workstreams (an engine peer) is said to lack the tool, not to be unreachable', async () => {
    const engineLike = await runStandInPeer('engine', {
      list_agents: () => ({ agents: [] }),
    });
    closers.push(() => engineLike.close());
    const fanout = new McpPeerFanout([{ name: 'engine', url: engineLike.url, token_env: 'BOURDON_PEER_TOKEN' }], {});
    closers.push(() => fanout.close());
    const { client } = await serve({ 'alpha.l5.yaml': head('alpha') }, { peers: fanout });
    for (const tool of ['list_notes', 'list_workstreams']) {
      const payload = (await callJson(client, tool, {})) as Record<string, unknown>;
      expect(payload, tool).not.toHaveProperty('peers_unreachable');
      expect(payload.peers_without_tool, tool).toEqual(['engine']);
    }
  });
});
