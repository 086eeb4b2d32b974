/** Real MCP clients for tests: in-memory linked to createL6Server, or over stdio to the binary. */
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { L6Store } from '../../src/core/store/library.js';
import { createL6Server, type L6ServerOptions } from '../../src/mcp/server.js';

export interface LinkedClient {
  client: Client;
  store: L6Store;
  close(): Promise<void>;
}

export async function linkedClient(libraryRoot: string, options: L6ServerOptions = {}): Promise<LinkedClient> {
  const store = new L6Store(libraryRoot, { warn: () => {} });
  const server = createL6Server(store, { warn: () => {}, auditPath: null, ...options });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'bourdon-test', version: '1.0.0' });
  await client.connect(clientSide);
  return { client, store, close: () => client.close() };
}

/** Calls a tool and parses the single TextContent as JSON, as a Python peer does. */
export async function callJson(client: Client, name: string, args: Record<string, unknown> = {}): Promise<unknown> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text: string }[];
  if (content.length !== 1 || content[0].type !== 'text') throw new Error(`unexpected content from ${name}`);
  return JSON.parse(content[0].text) as unknown;
}

export async function readJsonResource(client: Client, uri: string): Promise<unknown> {
  const result = await client.readResource({ uri });
  const first = result.contents[0] as { text?: string; mimeType?: string };
  if (first.mimeType !== 'application/json' || typeof first.text !== 'string')
    throw new Error(`unexpected resource ${uri}`);
  return JSON.parse(first.text) as unknown;
}
