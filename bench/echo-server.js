#!/usr/bin/env node
// The SDK's floor for bench/http-floor.js: node:http and the SDK's stateless `createMcpHandler`
// building a fresh server of 15 echo tools per request, as bourdon's HTTP server builds its 15
// tools (src/mcp/http.ts), without auth, guards, audit or any library. Prints its URL.
import http from 'node:http';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { toWebRequest } from '@modelcontextprotocol/node';
import * as z from 'zod';

function echoServer() {
  const server = new McpServer({ name: 'echo-floor', version: '1' });
  for (let i = 0; i < 15; i++) {
    server.registerTool(
      `echo_${i}`,
      { description: `Echo tool ${i}: answers its text.`, inputSchema: z.object({ text: z.string() }) },
      ({ text }) => ({ content: [{ type: 'text', text: JSON.stringify({ text }) }] }),
    );
  }
  return server;
}

const handler = createMcpHandler(() => echoServer(), {});
const server = http.createServer(async (req, res) => {
  try {
    const response = await handler.fetch(await toWebRequest(req));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  } catch (error) {
    res.writeHead(500);
    res.end(String(error));
  }
});
server.listen(0, '127.0.0.1', () => {
  process.stderr.write(`echo floor listening on http://127.0.0.1:${server.address().port}/mcp\n`);
});
