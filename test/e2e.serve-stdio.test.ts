/** `bourdon serve` spawned the way an MCP host does it, driven by a real MCP client over stdio. */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, copyFixtureLibrary, tempDir } from './helpers/fixtures.js';
import { only } from './helpers/items.js';
import { firstText, stdioClient } from './helpers/mcp.js';

const READ_TOOLS = [
  'query_agent_memory',
  'list_recent_work',
  'find_entity',
  'get_cross_agent_summary',
  'prepare_recognition_context',
  'compile_codex_turn',
  'get_deeper_context',
  'list_agents',
  'export_agents',
];

describe('bourdon serve over stdio', () => {
  let library: string;
  let home: string;
  let client: Client;
  let stderr: () => string;

  beforeAll(async () => {
    library = copyFixtureLibrary();
    home = tempDir('bourdon-home-');
    const served = await stdioClient(
      { args: [BIN, 'serve', '--library', library], env: { BOURDON_HOME: home, BOURDON_LOCAL_NAME: 'e2e-machine' } },
      { name: 'e2e' },
    );
    client = served.client;
    stderr = served.stderr;
  });
  afterAll(async () => {
    await client.close();
    fs.rmSync(library, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('lists the read tools with the Python server argument names and defaults', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of READ_TOOLS) expect(byName.has(name), name).toBe(true);
    const props = (name: string) =>
      (byName.get(name)!.inputSchema as { properties: Record<string, { default?: unknown }> }).properties;
    expect(props('find_entity').access_level?.default).toBe('public');
    expect(props('prepare_recognition_context').access_level?.default).toBe('team');
    expect(props('get_deeper_context').access_level?.default).toBe('team');
    expect(props('list_recent_work').summary?.default).toBe(false);
    expect(props('list_recent_work').federation_hop?.default).toBe(0);
    expect(props('compile_codex_turn').max_items?.default).toBe(6);
    expect(props('compile_codex_turn').max_chars?.default).toBe(1800);
    expect(Object.keys(props('list_recent_work')).sort()).toEqual(
      ['access_level', 'agent', 'cursor', 'federation_hop', 'include_private', 'limit', 'since', 'summary'].sort(),
    );
    for (const tool of tools) expect(tool.outputSchema?.type, tool.name).toBe('object');
  });

  it('answers with JSON in a single TextContent, and the same payload as structuredContent', async () => {
    const result = await client.callTool({ name: 'find_entity', arguments: { name: 'bdn' } });
    const content = result.content as { type: string; text: string }[];
    const { text } = only(content, 'content item');
    expect(JSON.parse(text).matches[0].name).toBe('Bourdon');
    expect(JSON.stringify(result.structuredContent)).toBe(text);
  });

  it('sees a manifest written by another process on the next call, without a restart', async () => {
    const file = path.join(library, 'agents', 'newcomer.l5.yaml');
    fs.writeFileSync(
      file,
      "spec_version: '0.1'\nagent: {id: newcomer, type: other}\nknown_entities:\n  - name: Fresh Idea\n",
    );
    const result = await client.callTool({ name: 'find_entity', arguments: { name: 'fresh idea' } });
    const payload = JSON.parse(firstText(result));
    expect(payload.matches[0].agents).toEqual(['newcomer']);
    fs.rmSync(file);
    const after = await client.callTool({ name: 'list_agents', arguments: {} });
    expect(JSON.parse(firstText(after)).agents).not.toContain('newcomer');
  });

  it('fails an unknown tool as a protocol error and bad arguments as an error result', async () => {
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(
      /Unknown tool: no_such_tool/,
    );
    const bad = await client.callTool({ name: 'find_entity', arguments: { name: 42 } });
    expect(bad.isError).toBe(true);
  });

  it('keeps stdout for the protocol: warnings about the broken manifest went to stderr', () => {
    expect(stderr()).toContain('broken.l5.yaml');
  });
});
