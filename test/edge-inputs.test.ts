/**
 * Issue 15 beyond the fixtures: inputs coerced as the engine's validator (pydantic, lax mode)
 * coerces them, schemas that declare the engine's `default: null`, writes that keep the strict
 * id rule while reads serve any declared id, and unquoted YAML dates read as the text written.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseYaml } from '../src/core/store/yaml.js';
import { caseFile, copyFixtureLibrary } from './helpers/fixtures.js';
import { at } from './helpers/items.js';
import { callJson, linkedClient, type LinkedClient } from './helpers/mcp.js';

const edge = caseFile('edge.json');

describe('tool inputs over a real MCP client (library-edge)', () => {
  let library: string;
  let linked: LinkedClient;
  beforeAll(async () => {
    library = copyFixtureLibrary(edge.library);
    linked = await linkedClient(library, { env: { BOURDON_LOCAL_NAME: 'fixture-machine' } });
  });
  afterAll(async () => {
    await linked.close();
    fs.rmSync(library, { recursive: true, force: true });
  });

  const recent = (args: Record<string, unknown>) =>
    callJson(linked.client, 'list_recent_work', { since: '2026-07-01', agent: 'cartographer', ...args }) as Promise<{
      limit: unknown;
      summary: unknown;
      include_private: unknown;
      sessions: unknown[];
    }>;

  it('coerces the strings pydantic coerces: " 2 " is 2, "yes" is true, "0" is false', async () => {
    const page = await recent({ limit: ' 2 ', summary: 'yes', include_private: '0' });
    expect(page.limit).toBe(2);
    expect(page.summary).toBe(true);
    expect(page.include_private).toBe(false);
    expect(page.sessions).toHaveLength(2);
    expect(page.sessions[0]).not.toHaveProperty('key_actions');
  });

  it('still refuses what pydantic refuses: "five", "maybe", 2.5', async () => {
    for (const args of [{ limit: 'five' }, { summary: 'maybe' }, { limit: 2.5 }]) {
      const result = await linked.client.callTool({
        name: 'list_recent_work',
        arguments: { since: '2026-07-01', ...args },
      });
      expect(result.isError).toBe(true);
    }
  });

  it('reads a federation_hop below 0 as 0 and a string hop as its number', async () => {
    for (const federation_hop of [-3, '-1', '1']) {
      const payload = (await callJson(linked.client, 'list_agents', { federation_hop })) as { agents: string[] };
      expect(payload.agents).toContain('Agent-B');
    }
  });

  it('declares optional parameters with default null, as the engine does', async () => {
    const { tools } = await linked.client.listTools();
    const props = (name: string) =>
      tools.find((tool) => tool.name === name)!.inputSchema.properties as Record<string, { default?: unknown }>;
    for (const key of ['since', 'agent', 'limit', 'cursor']) expect(props('list_recent_work')[key]?.default).toBeNull();
    expect(props('list_recent_work').summary?.default).toBe(false);
    expect(props('list_recent_work').federation_hop?.default).toBe(0);
    expect(props('list_notes').tag?.default).toBeNull();
    expect(props('commit_to_federation').entities?.default).toBeNull();
  });

  it('serves Agent-B on reads but refuses a write to it, saying why', async () => {
    const memory = (await linked.client.readResource({ uri: 'agent-library://agents/Agent-B/memory' })).contents[0];
    expect(JSON.parse((memory as { text: string }).text).agent.id).toBe('Agent-B');
    const refused = (await callJson(linked.client, 'commit_to_federation', {
      agent_id: 'Agent-B',
      sessions: [{ date: '2026-07-20', cwd: '/x' }],
    })) as { error: string };
    expect(refused.error).toBe(
      "invalid agent_id 'Agent-B': must match ^[a-z0-9][a-z0-9_-]*$; a manifest that declares this id is read, but writes need a strict id",
    );
    expect(fs.existsSync(`${library}/agents/Agent-B.l5.yaml`)).toBe(false);
  });

  it('a write lands in the file that is served: into twin.l5.yaml after twin-2, and numbers.l5.yaml over a stray duplicate', async () => {
    const written = (await callJson(linked.client, 'commit_to_federation', {
      agent_id: 'twin',
      sessions: [{ date: '2026-07-20', cwd: '/twin/third' }],
    })) as { error?: string };
    expect(written.error).toBeUndefined();
    const memory = (await linked.client.readResource({ uri: 'agent-library://agents/twin/memory' })).contents[0];
    const twin = JSON.parse((memory as { text: string }).text) as {
      agent: { instance: string };
      recent_sessions: unknown[];
    };
    expect(twin.agent.instance).toBe('second-file'); // merged from the served file, twin-2
    expect(twin.recent_sessions).toEqual([{ date: '2026-07-20', cwd: '/twin/third' }]);

    fs.writeFileSync(
      `${library}/agents/zz-numbers.l5.yaml`,
      'agent: {id: numbers, type: tutor}\nknown_entities: [{name: Shadow}]\n',
    );
    // A stray file declaring the id never hides the file named after it, so the write is read back.
    const kept = (await callJson(linked.client, 'commit_to_federation', {
      agent_id: 'numbers',
      sessions: [{ date: '2026-07-20', cwd: '/n' }],
    })) as { error?: string };
    expect(kept.error).toBeUndefined();
    expect(fs.readFileSync(`${library}/agents/numbers.l5.yaml`, 'utf8')).toContain('/n');
    const numbers = (await linked.client.readResource({ uri: 'agent-library://agents/numbers/memory' })).contents[0];
    expect((numbers as { text: string }).text).toContain('/n');
    expect((numbers as { text: string }).text).not.toContain('Shadow');
  });

  it('refuses ids that could read as a path on every read surface, without touching the disk', async () => {
    for (const id of ['../agent-b', 'a/b', ' Agent-B']) {
      const memory = (await linked.client.readResource({
        uri: `agent-library://agents/${encodeURIComponent(id)}/memory`,
      })) as { contents: { text: string }[] };
      expect(JSON.parse(at(memory.contents, 0).text).error).toMatch(/^invalid agent_id/);
    }
  });
});

describe('unquoted YAML dates and datetimes are the text written', () => {
  it('with and without aliases in the document', () => {
    const text =
      'last_updated: 2026-09-05T08:00:00Z\nrecent_sessions:\n- date: 2026-08-25\n- date: 2026-09-03 07:45:00\n';
    const expected = {
      last_updated: '2026-09-05T08:00:00Z',
      recent_sessions: [{ date: '2026-08-25' }, { date: '2026-09-03 07:45:00' }],
    };
    expect(parseYaml(text)).toEqual(expected);
    expect(parseYaml(`${text}copy: &c 2026-08-25\nagain: *c\n`)).toEqual({
      ...expected,
      copy: '2026-08-25',
      again: '2026-08-25',
    });
  });
});
