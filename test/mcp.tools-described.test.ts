/**
 * What a model reads in tools/list says what each tool and argument does, as the server
 * behaves (issue 54, item 5), and what a call could not honour is said in a second text item
 * while the engine's payload stays as it is.
 */
import { describe, expect, it } from 'vitest';
import { callerFor } from '../src/core/trust/registry.js';
import { callWithNotices, linkedFixtureClient } from './helpers/mcp.js';
import { at } from './helpers/items.js';

type Schema = { description?: string; enum?: unknown[]; maximum?: number; properties?: Record<string, Schema> };

const operator = linkedFixtureClient();
const ungranted = linkedFixtureClient({ fallbackCaller: callerFor('visitor', { tier: 'quarantined', grants: [] }) });
const granted = linkedFixtureClient({
  fallbackCaller: callerFor('visitor', { tier: 'quarantined', grants: ['codex'] }),
});

describe('tools/list, as a model reads it', () => {
  it('describes every argument of every tool', async () => {
    const { tools } = await operator().client.listTools();
    const bare: string[] = [];
    for (const tool of tools)
      for (const [name, schema] of Object.entries((tool.inputSchema.properties ?? {}) as Record<string, Schema>))
        if (!schema.description?.trim()) bare.push(`${tool.name}.${name}`);
    expect(bare).toEqual([]);
  });

  it('compile_codex_turn lists its levels and declares the brief it answers', async () => {
    const { tools } = await operator().client.listTools();
    const tool = tools.find((entry) => entry.name === 'compile_codex_turn')!;
    const input = tool.inputSchema.properties as Record<string, Schema>;
    expect(input.access_level?.enum).toEqual(['public', 'team', 'private']);
    expect(input.max_items).toMatchObject({ minimum: 1, maximum: 20 });
    const answer = at((tool.outputSchema as { anyOf: Schema[] }).anyOf, 0);
    expect(Object.keys(answer.properties ?? {})).toEqual([
      'schema_version',
      'prompt',
      'cwd',
      'repo',
      'health',
      'routing',
      'items',
      'delivery',
      'trace',
      'diagnostics',
    ]);
    // The SDK client validates the structured answer against that schema.
    const { isError, payload } = await callWithNotices(operator().client, 'compile_codex_turn', {
      prompt: 'Keep working on Bourdon',
    });
    expect(isError).toBe(false);
    expect(payload).toMatchObject({ schema_version: 'codex-turn-brief/v1' });
  });

  it('federation_hop is said to be not for models; limit is described as the server reads it', async () => {
    const { tools } = await operator().client.listTools();
    for (const tool of tools) {
      const input = (tool.inputSchema.properties ?? {}) as Record<string, Schema>;
      if (input.federation_hop) expect(input.federation_hop.description, tool.name).toMatch(/^Not for models/);
      if (input.limit) {
        expect(input.limit.maximum, tool.name).toBeUndefined();
        expect(input.limit.description, tool.name).toMatch(/above (100|1000) as (100|1000)/);
      }
    }
    const page = await callWithNotices(operator().client, 'list_recent_work', { limit: 500, since: '2000-01-01' });
    expect(page.isError).toBe(false);
  });

  it('export_agents is described as the read it is, naming the path it answers', async () => {
    const { tools } = await operator().client.listTools();
    const tool = tools.find((entry) => entry.name === 'export_agents')!;
    expect(tool.title).not.toMatch(/^Export/);
    expect(tool.description).toMatch(/^Reads only, writes nothing/);
    expect(tool.description).toContain('`generated_from` is the library');
  });
});

describe('what a call could not honour, said beside the answer', () => {
  it('a quarantined member with no grants is told why its answers are empty', async () => {
    for (const [name, args] of [
      ['list_agents', {}],
      ['find_entity', { name: 'Bourdon' }],
      ['list_recent_work', {}],
    ] as const) {
      const { payload, notices, isError } = await callWithNotices(ungranted().client, name, args);
      expect(isError).toBe(false);
      expect(notices, name).toMatch(
        /^member "visitor" is quarantined with no grants: .*bourdon grant visitor <agent-id>/,
      );
      // The engine's payload is unchanged: the same as for a granted member's empty answer.
      expect(payload).not.toHaveProperty('notice');
    }
    expect((await callWithNotices(granted().client, 'list_agents', {})).notices).toBeNull();
    expect((await callWithNotices(operator().client, 'list_agents', {})).notices).toBeNull();
  });

  it('an unreadable since keeps the engine payload and names the ignored value', async () => {
    const plain = await callWithNotices(operator().client, 'list_recent_work', {});
    for (const since of ['last tuesday', '2026-13-45']) {
      const { payload, notices } = await callWithNotices(operator().client, 'list_recent_work', { since });
      expect(payload).toEqual({ ...(plain.payload as object), since });
      expect(notices).toBe(
        `since ${JSON.stringify(since)} is not a date (expected YYYY-MM-DD, an ISO datetime, today, yesterday, 7d (days ago) or 2w (weeks ago)); the last 14 days were used`,
      );
    }
  });
});
