/**
 * The stdio bridge (`bourdon serve --url <endpoint>`): an MCP server on stdio whose every
 * request is forwarded to a running Bourdon HTTP server — ours or the Python engine's — which
 * keeps the library, its locks and its caches. The bridge has no store of its own.
 *
 * - tools/list mirrors the server's list (names, descriptions, input schemas as the JSON
 *   Schema they arrive as), narrowed by the bridge's own profile filter;
 * - tools/call forwards the call and passes the result through unchanged (JSON in one
 *   TextContent); a Bourdon tool the filter excludes is refused as a tool result, a name
 *   that is no tool at all is −32602 "Unknown tool: X", and the server's own refusals and
 *   protocol errors come back as the server gave them;
 * - resources/list, resources/templates/list and resources/read are forwarded;
 * - every forwarded request waits at most 30 s;
 * - the upstream client negotiates the protocol era (`auto`) and sends
 *   `Authorization: Bearer <token>` from a BOURDON_PEER_* variable; the token is never logged
 *   or echoed;
 * - a connection that failed is dropped and made again on the next request.
 *
 * Handlers are installed on the low-level server (`mcp.server.setRequestHandler`) because the
 * schemas arrive as JSON Schema, not zod.
 */
import {
  Client,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import {
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { BourdonError, describeError } from '../core/errors.js';
import { jsonResult } from './results.js';
import { maskTokens } from './remote-call.js';
import { SERVER_NAME, SERVER_VERSION } from './server.js';
import { OPERATION_NAMES as TOOL_NAMES } from '../core/operations/catalog.js';

const BRIDGE_TIMEOUT_MS = 30_000;

interface BridgeOptions {
  /** The server's MCP endpoint, already validated (normalisePeerUrl). */
  url: string;
  /** Bearer token, or undefined to send none. Never logged. */
  token?: string;
  /** Where the token came from, for messages only (the variable's name, never its value). */
  tokenEnv?: string;
  /** The bridge's own profile; undefined offers every tool the server offers. */
  toolFilter?: (name: string) => boolean;
  /** Longest wait for one forwarded request (and for each step of connecting); default 30 s. */
  timeoutMs?: number;
  /** Longest wait for each step of connecting and the start check, when it differs from timeoutMs. */
  connectTimeoutMs?: number;
  warn?: (message: string) => void;
}

/** What the server said about itself when the bridge connected. */
interface UpstreamInfo {
  url: string;
  serverName: string | null;
  serverVersion: string | null;
  protocolVersion: string | null;
  tools: number;
}

/** The server could not be reached or refused the bridge; the message is one line. */
class BridgeUnreachableError extends BourdonError {
  constructor(message: string) {
    super(message, 'peer_unreachable');
    this.name = 'BridgeUnreachableError';
  }
}

/** Strips anything token-like from a message before it is shown. */
function scrub(message: string, token: string | undefined): string {
  return maskTokens(message, token).slice(0, 300);
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/**
 * The HTTP status behind a failed request: the SDK's transport reports a refused POST or GET as
 * an SdkHttpError carrying it in `data.status`, possibly as the cause of another error.
 */
function httpStatus(error: unknown): number | null {
  for (const current of causeChain(error)) if (SdkHttpError.isInstance(current)) return current.data.status;
  return null;
}

/** An error and the errors behind it (the SDK nests them in `cause` or `data.cause`), at most six deep. */
function* causeChain(error: unknown): Generator<unknown> {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current; depth++) {
    yield current;
    const next = current as { cause?: unknown; data?: { cause?: unknown } };
    current = next.cause ?? next.data?.cause;
  }
}

/**
 * The system or TLS code behind a failed fetch (ECONNREFUSED, ENOTFOUND, CERT_HAS_EXPIRED, …),
 * found down the error's cause chain; the SDK's own codes (ERA_NEGOTIATION_FAILED…) are not.
 */
function networkCode(error: unknown): string | null {
  for (const current of causeChain(error)) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && !SdkError.isInstance(current)) {
      if (
        (current as { syscall?: unknown }).syscall !== undefined ||
        code in NETWORK_WORDS ||
        /CERT|SELF_SIGNED|TLS|SSL|^UND_ERR_/.test(code)
      )
        return code;
    }
  }
  return null;
}

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

function isProtocolError(error: unknown): error is { code: number; message: string; data?: unknown } {
  return (
    ProtocolError.isInstance(error) ||
    (error instanceof Error && error.name === 'ProtocolError' && typeof (error as { code?: unknown }).code === 'number')
  );
}

/**
 * A request that ran out of time: the SDK's RequestTimeout (also used by our own deadline) or a
 * fetch aborted by a timeout signal (TimeoutError), anywhere down the cause chain.
 */
function isTimeout(error: unknown): boolean {
  for (const current of causeChain(error)) {
    const { code, name } = current as { code?: unknown; name?: unknown };
    if (code === SdkErrorCode.RequestTimeout || name === 'TimeoutError') return true;
  }
  return false;
}

/** Keys of a forwarded result that describe the server's own transport, not the payload. */
const UPSTREAM_ONLY_KEYS = new Set(['resultType', 'ttlMs', 'cacheScope']);
const SERVER_INFO_META = 'io.modelcontextprotocol/serverInfo';

/** A forwarded result without the server's own envelope keys; content and isError unchanged. */
function passThrough<T extends Record<string, unknown>>(result: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(result)) {
    if (UPSTREAM_ONLY_KEYS.has(key)) continue;
    if (key === '_meta' && value && typeof value === 'object') {
      const meta = { ...(value as Record<string, unknown>) };
      delete meta[SERVER_INFO_META];
      if (Object.keys(meta).length) out._meta = meta;
      continue;
    }
    out[key] = value;
  }
  return out as T;
}

export class StdioBridge {
  readonly url: string;
  private readonly timeoutMs: number;
  private readonly connectTimeoutMs: number;
  private readonly warn: (message: string) => void;
  private client: Promise<Client> | null = null;
  /** The server's tool list as last seen (the start check fills it). */
  private tools: Tool[] = [];
  private instructions: string | undefined;
  private capabilities: { resources: boolean } = { resources: true };

  constructor(private readonly options: BridgeOptions) {
    this.url = options.url;
    this.timeoutMs = options.timeoutMs ?? BRIDGE_TIMEOUT_MS;
    this.connectTimeoutMs = options.connectTimeoutMs ?? this.timeoutMs;
    this.warn = options.warn ?? ((message) => process.stderr.write(`bourdon: ${message}\n`));
  }

  /**
   * Connects and lists the server's tools; throws BridgeUnreachableError with a clear reason
   * when the server cannot be reached or refuses the bridge. Run before serving anything.
   */
  async start(): Promise<UpstreamInfo> {
    let client: Client;
    try {
      client = await this.connected();
      const listed = await client.listTools(undefined, this.requestOptions(undefined, this.connectTimeoutMs));
      this.tools = listed.tools;
    } catch (error) {
      this.reset();
      throw new BridgeUnreachableError(this.explain(error, this.connectTimeoutMs));
    }
    this.instructions = client.getInstructions();
    this.capabilities = { resources: Boolean(client.getServerCapabilities()?.resources) };
    const info = client.getServerVersion();
    return {
      url: this.url,
      serverName: info?.name ?? null,
      serverVersion: info?.version ?? null,
      protocolVersion: client.getNegotiatedProtocolVersion() ?? null,
      tools: this.offeredTools(this.tools).length,
    };
  }

  /** A fresh MCP server for one stdio connection, forwarding to the shared upstream client. */
  createServer(): McpServer {
    const mcp = new McpServer(
      { name: SERVER_NAME, version: SERVER_VERSION },
      {
        capabilities: { tools: {}, ...(this.capabilities.resources ? { resources: {} } : {}) },
        instructions: this.instructions,
      },
    );
    const low = mcp.server;
    low.setRequestHandler('tools/list', async (request, ctx) => {
      try {
        const listed = await this.attempt((client) =>
          client.listTools(
            request.params?.cursor ? { cursor: request.params.cursor } : undefined,
            this.requestOptions(ctx),
          ),
        );
        if (!request.params?.cursor) this.tools = listed.tools;
        return {
          tools: this.offeredTools(listed.tools),
          ...(listed.nextCursor ? { nextCursor: listed.nextCursor } : {}),
        };
      } catch (error) {
        if (isProtocolError(error)) throw this.relay(error);
        this.reset();
        // The host still learns what the server offered when the bridge last reached it.
        this.warn(`tools/list: ${this.explain(error)}; answering with the last list seen`);
        return { tools: this.offeredTools(this.tools) };
      }
    });
    low.setRequestHandler('tools/call', async (request, ctx) =>
      this.callTool(request.params.name, request.params.arguments, ctx),
    );
    if (this.capabilities.resources) {
      low.setRequestHandler('resources/list', async (request, ctx) =>
        this.forward(async (client) => {
          const listed = await client.listResources(
            request.params?.cursor ? { cursor: request.params.cursor } : undefined,
            this.requestOptions(ctx),
          );
          return passThrough(listed);
        }),
      );
      low.setRequestHandler('resources/templates/list', async (request, ctx) =>
        this.forward(async (client) => {
          const listed = await client.listResourceTemplates(
            request.params?.cursor ? { cursor: request.params.cursor } : undefined,
            this.requestOptions(ctx),
          );
          return passThrough(listed);
        }),
      );
      low.setRequestHandler('resources/read', async (request, ctx) =>
        this.forward(async (client) =>
          passThrough(await client.readResource({ uri: request.params.uri }, this.requestOptions(ctx))),
        ),
      );
    }
    return mcp;
  }

  async close(): Promise<void> {
    const pending = this.client;
    this.client = null;
    if (pending) await pending.then((client) => client.close()).catch(() => {});
  }

  private async callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    ctx: ServerContext,
  ): Promise<CallToolResult> {
    const filter = this.options.toolFilter;
    if (filter && !filter(name)) {
      if (TOOL_NAMES.has(name) || this.tools.some((tool) => tool.name === name)) {
        return jsonResult({ error: 'tool not offered on this connection', tool: name });
      }
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
    }
    try {
      const result = await this.attempt((client) =>
        client.callTool({ name, arguments: args ?? {} }, this.requestOptions(ctx)),
      );
      return passThrough(result as CallToolResult);
    } catch (error) {
      if (isProtocolError(error)) throw this.relay(error);
      this.reset();
      const reason = this.explain(error);
      this.warn(`${name}: ${reason}`);
      return jsonResult({ error: reason });
    }
  }

  /** Runs a forwarded request; transport failures become one JSON-RPC internal error. */
  private async forward<T>(run: (client: Client) => Promise<T>): Promise<T> {
    try {
      return await this.attempt(run);
    } catch (error) {
      if (isProtocolError(error)) throw this.relay(error);
      this.reset();
      throw new ProtocolError(ProtocolErrorCode.InternalError, this.explain(error));
    }
  }

  /**
   * Runs a request on the upstream client. A 404 (or 400) at the HTTP level means the request
   * was refused before it ran — typically the server forgot the session because it restarted
   * (handshake-era servers such as the Python engine keep sessions) — so it is sent once more
   * on a fresh connection.
   */
  private async attempt<T>(run: (client: Client) => Promise<T>): Promise<T> {
    try {
      return await run(await this.connected());
    } catch (error) {
      const status = isProtocolError(error) ? null : httpStatus(error);
      if (status !== 400 && status !== 404) throw error;
      this.reset();
      return run(await this.connected());
    }
  }

  /** The server's protocol error, re-raised on the bridge's side as the server gave it. */
  private relay(error: { code: number; message: string; data?: unknown }): ProtocolError {
    return new ProtocolError(error.code, error.message, error.data);
  }

  private offeredTools(tools: Tool[]): Tool[] {
    const filter = this.options.toolFilter;
    return filter ? tools.filter((tool) => filter(tool.name)) : tools;
  }

  private requestOptions(ctx?: ServerContext, budgetMs = this.timeoutMs) {
    return {
      timeout: budgetMs,
      maxTotalTimeout: budgetMs,
      cacheMode: 'bypass' as const,
      ...(ctx?.mcpReq.signal ? { signal: ctx.mcpReq.signal } : {}),
    };
  }

  /** The upstream client, connecting when there is none (first use, or after a failure). */
  private connected(): Promise<Client> {
    if (!this.client) {
      const headers: Record<string, string> = this.options.token
        ? { Authorization: `Bearer ${this.options.token}` }
        : {};
      const client = new Client(
        { name: 'bourdon-bridge', version: SERVER_VERSION },
        { versionNegotiation: { mode: 'auto', probe: { timeoutMs: this.connectTimeoutMs, maxRetries: 0 } } },
      );
      const transport = new StreamableHTTPClientTransport(new URL(this.url), { requestInit: { headers } });
      const attempt = this.withDeadline(
        client.connect(transport, { timeout: this.connectTimeoutMs }),
        'connecting',
      ).then(
        () => client,
        async (error: unknown) => {
          await client.close().catch(() => {});
          throw error;
        },
      );
      this.client = attempt;
    }
    return this.client;
  }

  private reset(): void {
    const pending = this.client;
    this.client = null;
    pending?.then((client) => client.close()).catch(() => {});
  }

  /** Rejects after the budget even if the SDK would wait longer. */
  private withDeadline<T>(work: Promise<T>, what: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new SdkError(SdkErrorCode.RequestTimeout, `${what} timed out`)),
        this.connectTimeoutMs,
      );
    });
    return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
  }

  /** One line for a person: what went wrong talking to the server, without the token. */
  private explain(error: unknown, budgetMs = this.timeoutMs): string {
    const where = `the Bourdon server at ${this.url}`;
    const status = httpStatus(error);
    const net = networkCode(error);
    let reason: string;
    if (net) reason = `cannot reach ${where}: ${NETWORK_WORDS[net] ?? net}`;
    else if (status === 401) {
      const variable = this.options.tokenEnv ?? 'the token variable';
      reason = this.options.token
        ? `${where} refused the token in ${variable} (401): missing, invalid or revoked`
        : `${where} asks for a token (401) and ${variable} is not set`;
    } else if (status === 403) reason = `${where} refused the request (403)`;
    else if (status === 503)
      reason = `${where} has no authentication configured yet (503): register a member there with \`bourdon agent add\``;
    else if (status === 404) reason = `no MCP endpoint at ${this.url} (404)`;
    else if (isTimeout(error)) reason = `no answer from ${where} within ${seconds(budgetMs)}`;
    else if (status !== null) reason = `${where} answered HTTP ${status}`;
    else reason = `cannot talk to ${where}: ${describeError(error)}`;
    return scrub(reason, this.options.token);
  }
}
