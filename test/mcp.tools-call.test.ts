/**
 * The tools/call dispatch (src/mcp/register.ts), driven by a real client: the exact results
 * for unknown tools, invalid arguments and refusals, so a change of how the dispatch is wired
 * cannot change a byte of them.
 */
import { describe, expect, it } from 'vitest';
import { McpServer, ProtocolError } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { createContext } from '../src/core/context.js';
import { defineOperation, LOCAL_READ } from '../src/core/operations/operation.js';
import { registerTools } from '../src/mcp/register.js';
import { OPERATOR, runWithCaller } from '../src/core/trust/caller.js';
import { firstText, linkClient, linkedFixtureClient } from './helpers/mcp.js';

const linked = linkedFixtureClient();

describe('tools/call', () => {
  it('invalid arguments: the validator’s message, as an error result, naming every bad field', async () => {
    const result = await linked().client.callTool({ name: 'find_entity', arguments: { name: 42 } });
    expect(result).toEqual({
      content: [
        {
          type: 'text',
          text: 'Input validation error: Invalid arguments for tool find_entity: name: Invalid input: expected string, received number',
        },
      ],
      isError: true,
    });
    const several = await linked().client.callTool({
      name: 'list_recent_work',
      arguments: { since: 5, limit: 'ten', agent: ['x'] },
    });
    expect(firstText(several)).toBe(
      'Input validation error: Invalid arguments for tool list_recent_work: since: Invalid input: expected string, received number, agent: Invalid input: expected string, received array, limit: Invalid input: expected number, received string',
    );
  });

  it('a name that is no tool is a protocol error; the caller’s tier is checked before the arguments', async () => {
    const error = await linked()
      .client.callTool({ name: 'no_such_tool', arguments: {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).code).toBe(-32602);
    expect((error as ProtocolError).message).toContain('Unknown tool: no_such_tool');
    const quarantined = { agent_id: 'q', tier: 'quarantined' as const, grants: [], ceiling: 'team' as const };
    const refused = await runWithCaller(quarantined, () =>
      linked().client.callTool({ name: 'get_cross_agent_summary', arguments: { project: 42 } }),
    );
    expect(JSON.parse(firstText(refused))).toMatchObject({ error: 'access denied' });
  });

  it('a result that does not fit its outputSchema is answered as the SDK would: an output validation error', async () => {
    // One operation whose handler answers other than it declares: the server must not send it.
    const liar = defineOperation({
      name: 'liar',
      title: 'Answers off its schema',
      description: 'test',
      annotations: LOCAL_READ,
      input: z.object({}),
      output: z.object({ count: z.number() }),
      run: async () => ({ count: 'many' }),
    });
    const warnings: string[] = [];
    const server = new McpServer({ name: 'liar', version: '1' });
    registerTools(
      server,
      {
        fallbackCaller: OPERATOR,
        contextFor: (caller) => createContext(linked().store, { caller }),
        auditPath: null,
        warn: (m) => warnings.push(m),
      },
      [liar],
      new Set(['liar']),
    );
    const client = await linkClient(server, 'liar-test');
    try {
      const result = await client.callTool({ name: 'liar', arguments: {} });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toMatch(/^Output validation error: Invalid structured content for tool liar: /);
      expect(warnings).toHaveLength(1);
    } finally {
      await client.close();
    }
  });
});
