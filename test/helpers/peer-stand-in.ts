/**
 * Stand-in peers: MCP servers that answer the tools a test names with whatever it needs (slow,
 * old, spoofing, hostile), over the real HTTP transport, so the fan-out and the CLI meet them as
 * they meet a real peer. Any arguments are accepted; each answer is computed on every call.
 */
import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { runHttpServer, type HttpServerHandle } from '../../src/mcp/http.js';

/** A tool's answer as MCP carries it: the payload as the JSON text of one content item; a string is sent as it is. */
export function textAnswer(payload: unknown): { content: { type: 'text'; text: string }[] } {
  return { content: [{ type: 'text', text: typeof payload === 'string' ? payload : JSON.stringify(payload) }] };
}

/** What a stand-in answers to each of its tools: the payload textAnswer sends. */
export type StandInTools = Readonly<Record<string, () => unknown>>;

/** An MCP server answering each of `tools`, whatever the arguments. */
export function standInServer(name: string, tools: StandInTools): McpServer {
  const server = new McpServer({ name, version: '1' });
  for (const [tool, answer] of Object.entries(tools)) {
    server.registerTool(tool, { inputSchema: z.looseObject({}) }, async () => textAnswer(await answer()));
  }
  return server;
}

/** standInServer served over HTTP on a free loopback port, with no authentication (a peer's token is not checked). */
export function runStandInPeer(name: string, tools: StandInTools): Promise<HttpServerHandle> {
  return runHttpServer(() => standInServer(name, tools), { port: 0, allowUnauthenticated: true, warn: () => {} });
}
