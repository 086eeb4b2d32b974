/**
 * The deliberate differences of the third differential run (docs/conformance.md, D14–D17),
 * each pinned through a real MCP client so that a change to one is a decision, not an accident.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyFixtureLibrary } from './helpers/fixtures.js';
import { callJson, linkedClient, type LinkedClient } from './helpers/mcp.js';

let library: string;
let linked: LinkedClient;

beforeEach(async () => {
  library = copyFixtureLibrary();
  linked = await linkedClient(library, { env: { BOURDON_LOCAL_NAME: 'fixture-machine' } });
});
afterEach(async () => {
  await linked.close();
  fs.rmSync(library, { recursive: true, force: true });
});

const manifest = (id: string) => path.join(library, 'agents', `${id}.l5.yaml`);
const commit = (args: Record<string, unknown>) =>
  callJson(linked.client, 'commit_to_federation', args) as Promise<Record<string, unknown>>;

describe('deliberate differences from the engine (docs/conformance.md)', () => {
  it('D14: a commit that changes nothing keeps last_updated and the file', async () => {
    const args = { agent_id: 'steady', agent_type: 'other', entities: [{ name: 'Steady', type: 'concept' }] };
    const first = await commit(args);
    const bytes = fs.readFileSync(manifest('steady'), 'utf8');
    const again = await commit(args);
    expect(again.last_updated).toBe(first.last_updated);
    expect(fs.readFileSync(manifest('steady'), 'utf8')).toBe(bytes);
  });

  it('D15: the commit answer adds notes_added, total_notes and version to the engine keys', async () => {
    const answer = await commit({
      agent_id: 'counted',
      agent_type: 'other',
      entities: [{ name: 'Counted', type: 'concept' }],
      notes: [{ date: '2026-04-01', text: 'a note' }],
    });
    expect(answer).toMatchObject({ notes_added: 1, total_notes: 1, version: 1 });
  });

  it('D16: a commit into a manifest holding an unquoted YAML date writes, the date kept as written', async () => {
    fs.writeFileSync(
      manifest('dated'),
      'spec_version: "0.1"\nagent: {id: dated, type: other}\nlast_updated: 2026-03-01\n' +
        'recent_sessions:\n  - date: 2026-03-01\n    key_actions: [Wrote it]\nknown_entities: []\n',
    );
    const answer = await commit({ agent_id: 'dated', entities: [{ name: 'Dated', type: 'concept' }] });
    expect(answer.error).toBeUndefined();
    expect(fs.readFileSync(manifest('dated'), 'utf8')).toMatch(/date: ['"]?2026-03-01['"]?\n/);
  });

  it('D17: a session without a date is not served (not listed, not counted, not summarised)', async () => {
    fs.writeFileSync(
      manifest('undated'),
      'spec_version: "0.1"\nagent: {id: undated, type: other}\nknown_entities: []\nrecent_sessions:\n' +
        '  - project_focus: [Nodate]\n    key_actions: [Did a thing]\n    visibility: public\n' +
        '  - date: "2026-04-30"\n    project_focus: [Nodate]\n    key_actions: [Dated thing]\n    visibility: public\n',
    );
    const recent = (await callJson(linked.client, 'list_recent_work', {
      agent: 'undated',
      since: '2000-01-01',
    })) as { sessions: { date: string }[] };
    expect(recent.sessions.map((session) => session.date)).toEqual(['2026-04-30']);
    const summary = (await callJson(linked.client, 'get_cross_agent_summary', { project: 'Nodate' })) as {
      recent_sessions: unknown[];
    };
    expect(summary.recent_sessions).toHaveLength(1);
    const exported = (await callJson(linked.client, 'export_agents')) as {
      agents: { id: string; session_count: number }[];
    };
    expect(exported.agents.find((agent) => agent.id === 'undated')?.session_count).toBe(1);
  });
});
