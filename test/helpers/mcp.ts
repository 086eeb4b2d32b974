/** Real MCP clients for tests: in-memory linked to createMcpServer, or over stdio to the binary. */
import fs from 'node:fs';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll } from 'vitest';
import { LibraryStore } from '../../src/core/store/library.js';
import { createMcpServer, type McpServerOptions } from '../../src/mcp/server.js';
import { copyFixtureLibrary } from './fixtures.js';
import { at } from './items.js';

export interface LinkedClient {
  client: Client;
  /** The library folder the server reads. */
  library: string;
  store: LibraryStore;
  close(): Promise<void>;
}

/** A client linked in memory to `server`: ours, one a test builds with its own tools, or a bridge's. */
export async function linkClient(server: McpServer, name = 'bourdon-test'): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

/** A client linked in memory to a server (createMcpServer, quiet, no audit file) over `libraryRoot`. */
export async function linkedClient(libraryRoot: string, options: McpServerOptions = {}): Promise<LinkedClient> {
  const store = new LibraryStore(libraryRoot, { warn: () => {} });
  const client = await linkClient(createMcpServer(store, { warn: () => {}, auditPath: null, ...options }));
  return { client, library: libraryRoot, store, close: () => client.close() };
}

/**
 * The fixture most MCP tests start from: a linked client over a fresh copy of the fixture library,
 * made before the tests of the file (or describe block) it is called in and closed, with the copy
 * removed, after them. Tests read it through the returned function.
 */
export function linkedFixtureClient(options: McpServerOptions = {}): () => LinkedClient {
  let library: string | undefined;
  let linked: LinkedClient | undefined;
  beforeAll(async () => {
    library = copyFixtureLibrary();
    linked = await linkedClient(library, options);
  });
  afterAll(async () => {
    await linked?.close();
    if (library) fs.rmSync(library, { recursive: true, force: true });
  });
  return () => {
    if (!linked) throw new Error('the linked client is made in beforeAll: read it inside a test');
    return linked;
  };
}

/** A client connected over stdio to a server it spawned, with what the server wrote to stderr so far. */
export interface StdioClient {
  client: Client;
  stderr(): string;
  pid: number;
}

/**
 * Spawns a server the way an MCP host does, `command` (node by default) with `args`, `env` and
 * `cwd`, and connects a client to it over stdio; the server's stderr is collected, not shown.
 * `mode` is the client's protocol version negotiation, when a test pins it.
 */
export async function stdioClient(
  spawn: { command?: string; args: string[]; env?: Record<string, string>; cwd?: string },
  options: { name?: string; mode?: 'legacy' | 'auto' } = {},
): Promise<StdioClient> {
  const transport = new StdioClientTransport({
    command: spawn.command ?? process.execPath,
    args: spawn.args,
    env: spawn.env,
    cwd: spawn.cwd,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const info = { name: options.name ?? 'bourdon-test-host', version: '1.0.0' };
  const client = options.mode ? new Client(info, { versionNegotiation: { mode: options.mode } }) : new Client(info);
  await client.connect(transport);
  return { client, stderr: () => stderr, pid: transport.pid ?? -1 };
}

/**
 * Calls a tool and parses the first TextContent as JSON, as a Python peer does. Every result
 * is checked for the surface's contract on the way: the same payload as structuredContent,
 * `isError` exactly when the payload is a refusal (`{"error": …}`), and at most one more text
 * item (what the caller should also know: `callNotices`).
 */
export async function callJson(client: Client, name: string, args: Record<string, unknown> = {}): Promise<unknown> {
  return (await callWithNotices(client, name, args)).payload;
}

/** A tool's payload (the first text item) and its notices (the second, if any), checked as callJson checks them. */
export async function callWithNotices(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ payload: unknown; notices: string | null; isError: boolean }> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text: string }[];
  if (content.length < 1 || content.length > 2 || content.some((item) => item.type !== 'text'))
    throw new Error(`unexpected content from ${name}`);
  const payload = JSON.parse(at(content, 0).text) as unknown;
  // The same payload (the text writes some whole numbers with the engine's `.0`, which JSON's
  // values do not keep: the forms are checked by parity.number-forms and parity.turns), and in
  // the same key order.
  if (JSON.stringify(result.structuredContent) !== JSON.stringify(payload))
    throw new Error(`structuredContent of ${name} is not its text payload`);
  const refused = typeof (payload as { error?: unknown }).error === 'string';
  if (Boolean(result.isError) !== refused)
    throw new Error(`isError of ${name} is ${result.isError}, refusal ${refused}`);
  return { payload, notices: content[1]?.text ?? null, isError: refused };
}

/** The text of a tool result's first content item (read as it comes, without callJson's checks). */
export function firstText(result: { content?: unknown }): string {
  return at(result.content as { text: string }[], 0, 'a content item').text;
}

export async function readJsonResource(client: Client, uri: string): Promise<unknown> {
  const result = await client.readResource({ uri });
  const first = at(result.contents, 0, 'a resource content item') as { text?: string; mimeType?: string };
  if (first.mimeType !== 'application/json' || typeof first.text !== 'string')
    throw new Error(`unexpected resource ${uri}`);
  return JSON.parse(first.text) as unknown;
}
