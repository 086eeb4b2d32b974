/**
 * An MCP client for another Bourdon server (the Python engine's or ours), made one way for the
 * bridge and the peer client: the protocol era negotiated automatically, the member token as
 * `Authorization: Bearer` (never logged or echoed), every answer read through the size cap, and
 * a budget no call outlives.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { packageInfo } from '../../core/admin/version.js';
import { cappedFetch } from './capped-fetch.js';
import { RemoteTimeout } from '../../core/federation/remote-failure.js';

export interface RemoteServer {
  /** The server's MCP endpoint. */
  url: string;
  /** The bearer token, or undefined to send none. */
  token?: string;
  /** The name this side gives itself in the handshake (`bourdon-peer`, `bourdon-bridge`). */
  clientName: string;
  /** Largest answer read (capped-fetch.ts). */
  maxResponseBytes: number;
  /** The fetch beneath the cap (one that records failures); default the global fetch. */
  fetch?: typeof fetch;
  /** Longest wait for the protocol-era probe, tried once; default the SDK's. */
  probeTimeoutMs?: number;
}

/** A client and its transport for `server`, not yet connected (`client.connect(transport)`). */
export function remoteClient(server: RemoteServer): { client: Client; transport: StreamableHTTPClientTransport } {
  const probe =
    server.probeTimeoutMs === undefined ? {} : { probe: { timeoutMs: server.probeTimeoutMs, maxRetries: 0 } };
  const client = new Client(
    { name: server.clientName, version: packageInfo().version },
    { versionNegotiation: { mode: 'auto', ...probe } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: server.token ? { Authorization: `Bearer ${server.token}` } : {} },
    fetch: cappedFetch(server.maxResponseBytes, server.fetch),
  });
  return { client, transport };
}

/**
 * `work`'s outcome, or a RemoteTimeout once `budgetMs` has passed, even if the SDK would wait
 * longer. The work is not cancelled (the caller drops its connection): its late failure is
 * observed here rather than left unhandled.
 */
export async function withinBudget<T>(work: Promise<T>, budgetMs: number, what?: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RemoteTimeout(budgetMs, what)), budgetMs);
  });
  work.catch(() => {});
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
