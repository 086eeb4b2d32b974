/**
 * The peer client: calls other Bourdon servers (ours or the Python engine's) over MCP through
 * the one way of calling another server (./remote/). A peer call never throws and never
 * outlives its budget: a dead, slow, old or misconfigured peer contributes nothing and is
 * reported. Tokens come from each peer's BOURDON_PEER_* variable at call time and are never
 * logged or echoed.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { Env } from '../core/context.js';
import type { PeerConfig } from '../core/federation/peers-config.js';
import type { PeerAnswer, PeerFanout } from '../core/peers.js';
import { answerPayload } from './remote/answer.js';
import { MAX_PEER_RESPONSE_BYTES } from './remote/capped-fetch.js';
import { remoteClient, withinBudget } from './remote/client.js';
import { RemoteTimeout } from '../core/federation/remote-failure.js';
import { maskedReason } from './remote/failure.js';

/** A peer call's budget when the operation gives none. */
export const PEER_BUDGET_MS = 5_000;

/** Longest peer error a payload carries. */
export const MAX_PEER_ERROR_CHARS = 200;

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

  async call(
    tool: string,
    args: Record<string, unknown>,
    options: { budgetMs?: number; only?: readonly string[] } = {},
  ): Promise<PeerAnswer[]> {
    const budget = options.budgetMs ?? this.budgetMs;
    const asked = options.only ? this.peers.filter((peer) => options.only!.includes(peer.name)) : this.peers;
    return Promise.all(asked.map((peer) => this.callOne(peer, tool, { ...args, federation_hop: 1 }, budget)));
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
      const { client, transport } = remoteClient({
        url: peer.url,
        token: this.env[peer.token_env],
        clientName: 'bourdon-peer',
        maxResponseBytes: this.maxResponseBytes,
      });
      connection = { client, ready: client.connect(transport) };
      connection.ready.catch(() => {}); // observed through callOne
      this.connections.set(peer.name, connection);
    }
    return connection;
  }

  /** Whether a connected peer's tool list leaves `tool` out; false when the list cannot be had. */
  private async lacksTool(connection: Connection, tool: string, budgetMs: number): Promise<boolean> {
    try {
      const listed = await withinBudget(
        (async () => {
          await connection.ready;
          return connection.client.listTools(undefined, { timeout: budgetMs });
        })(),
        budgetMs,
      );
      return !listed.tools.some((offered) => offered.name === tool);
    } catch {
      return false;
    }
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
    const work = (async () => {
      await connection.ready;
      const result = await connection.client.callTool({ name: tool, arguments: args }, { timeout: budgetMs });
      return answerPayload(tool, result);
    })();
    try {
      const payload = await withinBudget(work, budgetMs);
      return { peer: peer.name, ok: true, timed_out: false, latency_us: elapsedUs(), payload };
    } catch (error) {
      // A peer that answered, but has no such tool (the engine has no list_notes): said so, not
      // called unreachable. Decided from the peer's own tool list, never from its error's words.
      if (!(error instanceof RemoteTimeout) && (await this.lacksTool(connection, tool, budgetMs))) {
        return {
          peer: peer.name,
          ok: false,
          not_offered: true,
          timed_out: false,
          latency_us: elapsedUs(),
          payload: null,
          error: `peer does not offer ${tool}`,
        };
      }
      this.drop(peer, connection);
      return {
        peer: peer.name,
        ok: false,
        timed_out: error instanceof RemoteTimeout,
        latency_us: elapsedUs(),
        payload: null,
        error: maskedReason(error, this.env[peer.token_env]).slice(0, MAX_PEER_ERROR_CHARS),
      };
    }
  }
}
