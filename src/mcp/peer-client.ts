/**
 * The peer client: calls other Bourdon servers (ours or the Python engine's) over MCP with
 * the SDK v2 client, negotiating the protocol era automatically. A peer call never throws and
 * never outlives its budget: a dead, slow, old or misconfigured peer contributes nothing and
 * is reported. Tokens come from each peer's BOURDON_PEER_* variable at call time and are
 * never logged or echoed.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Env } from '../core/context.js';
import type { PeerConfig } from '../core/federation/peers-config.js';
import type { PeerAnswer, PeerFanout } from '../core/peers.js';
import { answerPayload, cappedFetch, MAX_PEER_RESPONSE_BYTES, peerFailure, safeMessage } from './remote-call.js';

const PEER_BUDGET_MS = 5_000;

interface Connection {
  client: Client;
  ready: Promise<void>;
}

export class McpPeerFanout implements PeerFanout {
  readonly names: readonly string[];
  private readonly connections = new Map<string, Connection>();

  constructor(
    private readonly peers: readonly PeerConfig[],
    private readonly env: Env = process.env,
    private readonly budgetMs = PEER_BUDGET_MS,
    private readonly maxResponseBytes = MAX_PEER_RESPONSE_BYTES,
  ) {
    this.names = peers.map((peer) => peer.name);
  }

  async call(tool: string, args: Record<string, unknown>, options: { budgetMs?: number } = {}): Promise<PeerAnswer[]> {
    const budget = options.budgetMs ?? this.budgetMs;
    return Promise.all(this.peers.map((peer) => this.callOne(peer, tool, { ...args, federation_hop: 1 }, budget)));
  }

  /**
   * Opens every peer connection in the background, so the first recognition call (200 ms
   * budget) does not spend it on the handshake. Failures surface on the next call.
   */
  warm(): void {
    for (const peer of this.peers) this.connection(peer);
  }

  async close(): Promise<void> {
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(all.map((connection) => connection.client.close().catch(() => {})));
  }

  private connection(peer: PeerConfig): Connection {
    let connection = this.connections.get(peer.name);
    if (!connection) {
      const token = this.env[peer.token_env];
      const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
      const client = new Client({ name: 'bourdon-peer', version: '0.1.0' }, { versionNegotiation: { mode: 'auto' } });
      const transport = new StreamableHTTPClientTransport(new URL(peer.url), {
        requestInit: { headers },
        fetch: cappedFetch(this.maxResponseBytes),
      });
      connection = { client, ready: client.connect(transport) };
      connection.ready.catch(() => {}); // observed through callOne
      this.connections.set(peer.name, connection);
    }
    return connection;
  }

  private drop(peer: PeerConfig, connection: Connection): void {
    if (this.connections.get(peer.name) === connection) this.connections.delete(peer.name);
    connection.client.close().catch(() => {});
  }

  private async callOne(
    peer: PeerConfig,
    tool: string,
    args: Record<string, unknown>,
    budgetMs: number,
  ): Promise<PeerAnswer> {
    const started = process.hrtime.bigint();
    const elapsedUs = () => Number((process.hrtime.bigint() - started) / 1000n);
    const connection = this.connection(peer);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), budgetMs);
    });
    const work = (async () => {
      await connection.ready;
      const result = await connection.client.callTool({ name: tool, arguments: args }, { timeout: budgetMs });
      return answerPayload(tool, result);
    })();
    try {
      const outcome = await Promise.race([work, timeout]);
      if (outcome === 'timeout') {
        work.catch(() => {});
        this.drop(peer, connection);
        return {
          peer: peer.name,
          ok: false,
          timed_out: true,
          latency_us: elapsedUs(),
          payload: null,
          error: `no answer within ${budgetMs} ms`,
        };
      }
      return { peer: peer.name, ok: true, timed_out: false, latency_us: elapsedUs(), payload: outcome };
    } catch (error) {
      this.drop(peer, connection);
      return {
        peer: peer.name,
        ok: false,
        timed_out: false,
        latency_us: elapsedUs(),
        payload: null,
        error: safeMessage(error),
      };
    } finally {
      clearTimeout(timer);
    }
  }
}

export interface PeerCheck {
  name: string;
  url: string;
  reachable: boolean;
  latency_ms: number | null;
  protocol_era: string | null;
  protocol_version: string | null;
  agent_count: number | null;
  error: string | null;
}

/** One-off health check of a peer (`bourdon peers check`): connect, list agents, report. */
export async function checkPeer(
  peer: PeerConfig,
  env: Env = process.env,
  budgetMs = PEER_BUDGET_MS,
): Promise<PeerCheck> {
  const started = Date.now();
  const token = env[peer.token_env];
  const client = new Client({ name: 'bourdon-peer-check', version: '0.1.0' }, { versionNegotiation: { mode: 'auto' } });
  // The SDK reports a failed request without its cause: keep the last one fetch threw, and the
  // status of a refusal, so the report can say what failed (DNS, refused, TLS, the token).
  let lastFailure: unknown = null;
  const recording: typeof fetch = async (input, init) => {
    try {
      const response = await fetch(input, init);
      if (response.status === 401 || response.status === 403)
        lastFailure = Object.assign(new Error(`HTTP ${response.status}`), { status: response.status });
      return response;
    } catch (error) {
      lastFailure = error;
      throw error;
    }
  };
  const transport = new StreamableHTTPClientTransport(new URL(peer.url), {
    requestInit: { headers: token ? { Authorization: `Bearer ${token}` } : {} },
    fetch: cappedFetch(MAX_PEER_RESPONSE_BYTES, recording),
  });
  let timer: NodeJS.Timeout | undefined;
  const base = { name: peer.name, url: peer.url };
  try {
    const work = (async () => {
      await client.connect(transport);
      const result = await client.callTool(
        { name: 'list_agents', arguments: { federation_hop: 1 } },
        { timeout: budgetMs },
      );
      const agents = answerPayload('list_agents', result).agents;
      return Array.isArray(agents) ? agents.length : null;
    })();
    const count = await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${budgetMs} ms`)), budgetMs);
      }),
    ]);
    return {
      ...base,
      reachable: true,
      latency_ms: Date.now() - started,
      protocol_era: client.getProtocolEra?.() ?? null,
      protocol_version: client.getNegotiatedProtocolVersion?.() ?? null,
      agent_count: count,
      error: token ? null : `${peer.token_env} is not set`,
    };
  } catch (error) {
    return {
      ...base,
      reachable: false,
      latency_ms: null,
      protocol_era: null,
      protocol_version: null,
      agent_count: null,
      error: peerFailure(lastFailure ?? error, peer, budgetMs),
    };
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => {});
  }
}
