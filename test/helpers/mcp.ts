/** Real MCP clients for tests: in-memory linked to createMcpServer, or over stdio to the binary. */
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { LibraryStore } from '../../src/core/store/library.js';
import { createMcpServer, type McpServerOptions } from '../../src/mcp/server.js';

export interface LinkedClient {
  client: Client;
  store: LibraryStore;
  close(): Promise<void>;
}

export async function linkedClient(libraryRoot: string, options: McpServerOptions = {}): Promise<LinkedClient> {
  const store = new LibraryStore(libraryRoot, { warn: () => {} });
  const server = createMcpServer(store, { warn: () => {}, auditPath: null, ...options });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'bourdon-test', version: '1.0.0' });
  await client.connect(clientSide);
  return { client, store, close: () => client.close() };
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
  const payload = JSON.parse(content[0].text) as unknown;
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

export async function readJsonResource(client: Client, uri: string): Promise<unknown> {
  const result = await client.readResource({ uri });
  const first = result.contents[0] as { text?: string; mimeType?: string };
  if (first.mimeType !== 'application/json' || typeof first.text !== 'string')
    throw new Error(`unexpected resource ${uri}`);
  return JSON.parse(first.text) as unknown;
}
