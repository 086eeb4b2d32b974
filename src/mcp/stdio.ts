/**
 * MCP over stdio: stdout carries only the protocol, every log goes to stderr. Serves both
 * protocol eras (handshake and 2026-07-28) from one factory.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

interface StdioHandle {
  close(): Promise<void>;
}

export function runStdio(factory: () => McpServer): StdioHandle {
  const handle = serveStdio(() => factory(), {
    onerror: (error: Error) => process.stderr.write(`bourdon: mcp: ${error.message}\n`),
  });
  return { close: () => handle.close() };
}
