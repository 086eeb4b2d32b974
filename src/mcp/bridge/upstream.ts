/**
 * The bridge's connection to the running Bourdon server it forwards to (the Python engine's or
 * ours), through the one way of calling another server (../remote/): made on first use, dropped
 * after a failure and made again on the next request; every request within its budget; every
 * failure told in one line, without the token.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { ServerContext } from '@modelcontextprotocol/server';
import { MAX_BRIDGED_RESPONSE_BYTES } from '../remote/capped-fetch.js';
import { remoteClient, withinBudget } from '../remote/client.js';
import { classifySdkFailure, maskedReason } from '../remote/failure.js';
import { isProtocolError } from './forwarded.js';

export interface UpstreamOptions {
  /** The server's MCP endpoint, already validated (normalisePeerUrl). */
  url: string;
  /** Bearer token, or undefined to send none. Never logged. */
  token?: string;
  /** Where the token came from, for messages only (the variable's name, never its value). */
  tokenEnv?: string;
  /** Longest wait for one forwarded request. */
  timeoutMs: number;
  /** Longest wait for each step of connecting and the start check. */
  connectTimeoutMs: number;
}

/** Network failures in the words of the bridge's reader (a person starting a host), by code. */
const NETWORK_WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused (is the server running?)',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'connection closed',
  UND_ERR_SOCKET: 'the connection was closed by the server',
  UND_ERR_CLOSED: 'the connection was closed',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed TLS certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'self-signed TLS certificate in the chain',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate not trusted',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate is for another host name',
};

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

export class Upstream {
  private client: Promise<Client> | null = null;

  constructor(private readonly options: UpstreamOptions) {}

  get url(): string {
    return this.options.url;
  }

  /** The connected client, connecting when there is none (first use, or after a failure). */
  connected(): Promise<Client> {
    if (!this.client) {
      const { client, transport } = remoteClient({
        url: this.options.url,
        token: this.options.token,
        clientName: 'bourdon-bridge',
        maxResponseBytes: MAX_BRIDGED_RESPONSE_BYTES,
        probeTimeoutMs: this.options.connectTimeoutMs,
      });
      const budget = this.options.connectTimeoutMs;
      this.client = withinBudget(client.connect(transport, { timeout: budget }), budget, 'connection').then(
        () => client,
        async (error: unknown) => {
          await client.close().catch(() => {});
          throw error;
        },
      );
    }
    return this.client;
  }

  /**
   * Runs a request on the client. A 404 (or 400) at the HTTP level means the request was
   * refused before it ran — typically the server forgot the session because it restarted
   * (handshake-era servers such as the Python engine keep sessions) — so it is sent once more
   * on a fresh connection.
   */
  async attempt<T>(run: (client: Client) => Promise<T>): Promise<T> {
    try {
      return await run(await this.connected());
    } catch (error) {
      const failure = isProtocolError(error) ? null : classifySdkFailure(error, this.options.url);
      if (failure?.kind !== 'http' || (failure.status !== 400 && failure.status !== 404)) throw error;
      this.reset();
      return run(await this.connected());
    }
  }

  /** Options for one request: its budget, no cache, and the host's cancellation. */
  requestOptions(ctx?: ServerContext, budgetMs = this.options.timeoutMs) {
    return {
      timeout: budgetMs,
      maxTotalTimeout: budgetMs,
      cacheMode: 'bypass' as const,
      ...(ctx?.mcpReq.signal ? { signal: ctx.mcpReq.signal } : {}),
    };
  }

  /** Drops the connection (after a failure): the next request connects again. */
  reset(): void {
    const pending = this.client;
    this.client = null;
    pending?.then((client) => client.close()).catch(() => {});
  }

  async close(): Promise<void> {
    const pending = this.client;
    this.client = null;
    if (pending) await pending.then((client) => client.close()).catch(() => {});
  }

  /** One line for a person: what went wrong talking to the server, without the token. */
  explain(error: unknown, budgetMs = this.options.timeoutMs): string {
    const { url, token, tokenEnv } = this.options;
    const where = `the Bourdon server at ${url}`;
    const failure = classifySdkFailure(error, url);
    let reason: string;
    if (failure.kind === 'network') {
      reason = `cannot reach ${where}: ${NETWORK_WORDS[failure.code] ?? failure.code}`;
    } else if (failure.kind === 'http') reason = refusal(failure.status, where, url, token, tokenEnv);
    else if (failure.kind === 'timeout') reason = `no answer from ${where} within ${seconds(budgetMs)}`;
    else if (failure.kind === 'blocked-port')
      reason = `cannot reach ${where}: fetch refuses port ${failure.port} (reserved for other protocols)`;
    else if (failure.kind === 'too-large')
      reason = `${where} answered more than ${failure.limit} bytes; the answer was dropped`;
    else reason = `cannot talk to ${where}: ${maskedReason(error, token)}`;
    return maskedReason(reason, token);
  }
}

/** What an HTTP status from the server means for the person running the bridge. */
function refusal(status: number, where: string, url: string, token?: string, tokenEnv?: string): string {
  if (status === 401) {
    const variable = tokenEnv ?? 'the token variable';
    return token
      ? `${where} refused the token in ${variable} (401): missing, invalid or revoked`
      : `${where} asks for a token (401) and ${variable} is not set`;
  }
  if (status === 403) return `${where} refused the request (403)`;
  if (status === 503)
    return `${where} has no authentication configured yet (503): register a member there with \`bourdon agent add\``;
  if (status === 404) return `no MCP endpoint at ${url} (404)`;
  return `${where} answered HTTP ${status}`;
}
