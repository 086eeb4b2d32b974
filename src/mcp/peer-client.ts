/**
 * The peer client: calls other Bourdon servers (ours or the Python engine's) over MCP with
 * the SDK v2 client, negotiating the protocol era automatically. A peer call never throws and
 * never outlives its budget: a dead, slow, old or misconfigured peer contributes nothing and
 * is reported. Tokens come from each peer's BOURDON_PEER_* variable at call time and are
 * never logged or echoed.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Env } from '../core/context.js';
import { describeError } from '../core/errors.js';
import type { PeerConfig } from '../core/federation/peers-config.js';
import type { PeerAnswer, PeerFanout } from '../core/peers.js';

const PEER_BUDGET_MS = 5_000;

/**
 * Largest answer read from a peer, counted as it arrives (after any decompression): 2 MiB,
 * twice the request body this server accepts. Our own answers to a peer stay far below it
 * (at most 100 sessions, notes or workstreams, or one name's matches); a 60 MB answer is cut
 * off at 2 MiB, not buffered whole and parsed.
 */
const MAX_PEER_RESPONSE_BYTES = 2 * 1024 * 1024;

/** Thrown (and reported as the peer's error) when a peer's answer passes the cap. */
class PeerAnswerTooLarge extends Error {
  constructor(limit: number) {
    super(`peer answer over ${limit} bytes; ignored`);
  }
}

/**
 * A fetch whose response body fails as soon as more than `limit` bytes have arrived: a
 * declared Content-Length over the limit fails at once, and a body without one is counted
 * chunk by chunk, so the event loop is free between chunks and the budget timer can fire.
 * Cancelling the body closes the connection: nothing past the limit is kept.
 */
function cappedFetch(limit: number, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    const declared = Number(response.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > limit) {
      await response.body?.cancel().catch(() => {});
      throw new PeerAnswerTooLarge(limit);
    }
    if (!response.body) return response;
    let seen = 0;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > limit) controller.error(new PeerAnswerTooLarge(limit));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

interface Connection {
  client: Client;
  ready: Promise<void>;
}

/** Strips anything token-like from an error before it is reported. */
function safeMessage(error: unknown): string {
  return describeError(error)
    .replace(/bdn_[0-9a-f]+/gi, '[token]')
    .replace(/Bearer\s+\S+/gi, 'Bearer [token]')
    .slice(0, 200);
}

/** The codes of a failed TLS handshake (Node's and OpenSSL's), as fetch reports them. */
const TLS_CODES = /^(CERT_|ERR_TLS_|ERR_SSL_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_|EPROTO$)/;

/** Every error in a cause chain (fetch hides the system error two causes down). */
function causes(error: unknown): (Error & { code?: unknown; status?: unknown })[] {
  const chain: (Error & { code?: unknown })[] = [];
  for (let at = error, depth = 0; at instanceof Error && depth < 6; at = at.cause, depth++) {
    chain.push(at);
    // Both addresses of a host failing (IPv4 and IPv6) come as one AggregateError.
    if (at instanceof AggregateError) chain.push(...at.errors.filter((e): e is Error => e instanceof Error));
  }
  return chain;
}

/**
 * Why a peer could not be reached, in words a person acts on: what failed (DNS, a refused
 * connection, TLS, a timeout, the token) and what to do, instead of the SDK's own text
 * ("Version negotiation probe failed: fetch failed").
 */
export function peerFailure(error: unknown, peer: PeerConfig, budgetMs: number): string {
  const chain = causes(error);
  const code = chain.map((e) => e.code).find((c): c is string => typeof c === 'string');
  const text = chain.map((e) => e.message).join(' ');
  const status =
    /\b(401|403)\b/.exec(text)?.[1] ?? chain.map((e) => e.status ?? e.code).find((c) => c === 401 || c === 403);
  let where: string;
  try {
    const url = new URL(peer.url);
    where = url.host;
  } catch {
    where = peer.url;
  }
  const remove = `or \`bourdon peers remove ${peer.name}\``;
  if (status !== undefined)
    return `the peer refused the token (HTTP ${status}): check that ${peer.token_env} holds a member token ${peer.name} issued (\`bourdon agent add\` there)`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `DNS: ${where.replace(/:\d+$/, '')} does not resolve; check the URL in peers.yaml (is the machine on this network?), ${remove}`;
  if (code === 'ECONNREFUSED')
    return `connection refused at ${where}: nothing listens there; start \`bourdon serve --transport http\` on that machine, ${remove}`;
  if (code !== undefined && TLS_CODES.test(code))
    return `TLS failed (${code}): the certificate of ${where} is not trusted here; fix it on that machine, ${remove}`;
  if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' || /no answer within/.test(text))
    return `timeout: no answer from ${where} within ${budgetMs} ms; is the machine up? ${remove.replace(/^or /, 'Else ')}`;
  if (/\bbad port\b/.test(text))
    return `fetch refuses port ${where.replace(/^.*:/, '')} (a port reserved for other protocols); serve the peer on another port, ${remove}`;
  if (code === 'ECONNRESET' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH')
    return `the network dropped the connection to ${where} (${code}); try again, ${remove}`;
  return safeMessage(error);
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
      const content = result.content as { type?: string; text?: string }[] | undefined;
      if (result.isError || !content?.length || content[0].type !== 'text' || typeof content[0].text !== 'string') {
        throw new Error(`peer answered ${tool} with an error result`);
      }
      const payload = JSON.parse(content[0].text) as unknown;
      if (!payload || typeof payload !== 'object' || Array.isArray(payload))
        throw new Error(`peer answered ${tool} with a non-object`);
      return payload as Record<string, unknown>;
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

interface PeerCheck {
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
      const text = (result.content as { text?: string }[])[0]?.text ?? '{}';
      const agents = (JSON.parse(text) as { agents?: unknown }).agents;
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
