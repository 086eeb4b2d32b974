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
 * - every forwarded request waits at most 30 s, and an answer is read up to 64 MiB;
 * - the connection to the server (./bridge/upstream.ts, made as the peer client's are:
 *   ./remote/) negotiates the protocol era and sends `Authorization: Bearer <token>` from a
 *   BOURDON_PEER_* variable, never logged or echoed; one that failed is dropped and made again
 *   on the next request.
 *
 * Handlers are installed on the low-level server (`mcp.server.setRequestHandler`) because the
 * schemas arrive as JSON Schema, not zod.
 */
import {
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import type { Client } from '@modelcontextprotocol/client';
import { BourdonError } from '../core/errors.js';
import { jsonResult } from './results.js';
import { SERVER_NAME, SERVER_VERSION } from './server.js';
import { OPERATION_NAMES as TOOL_NAMES } from '../core/operations/catalog.js';
import { isProtocolError, passThrough, relay } from './bridge/forwarded.js';
import { Upstream } from './bridge/upstream.js';
import { remoteFailureCode } from '../core/federation/remote-failure.js';
import { classifySdkFailure } from './remote/failure.js';
import { warningLine } from '../core/store/warn.js';

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

/** The server could not be reached (peer_unreachable) or refused the bridge (peer_refused); the message is one line. */
class BridgeStartError extends BourdonError {
  constructor(message: string, code: 'peer_refused' | 'peer_unreachable') {
    super(message, code);
    this.name = 'BridgeStartError';
  }
}

export class StdioBridge {
  readonly url: string;
  private readonly connectTimeoutMs: number;
  private readonly warn: (message: string) => void;
  private readonly upstream: Upstream;
  /** The server's tool list as last seen (the start check fills it). */
  private tools: Tool[] = [];
  private instructions: string | undefined;
  private capabilities: { resources: boolean } = { resources: true };

  constructor(private readonly options: BridgeOptions) {
    this.url = options.url;
    const timeoutMs = options.timeoutMs ?? BRIDGE_TIMEOUT_MS;
    this.connectTimeoutMs = options.connectTimeoutMs ?? timeoutMs;
    this.upstream = new Upstream({
      url: options.url,
      token: options.token,
      tokenEnv: options.tokenEnv,
      timeoutMs,
      connectTimeoutMs: this.connectTimeoutMs,
    });
    this.warn = options.warn ?? ((message) => process.stderr.write(warningLine('bourdon: ', message)));
  }

  /**
   * Connects and lists the server's tools; throws BridgeStartError with a clear reason
   * when the server cannot be reached or refuses the bridge. Run before serving anything.
   */
  async start(): Promise<UpstreamInfo> {
    let client: Client;
    try {
      client = await this.upstream.connected();
      const listed = await client.listTools(undefined, this.upstream.requestOptions(undefined, this.connectTimeoutMs));
      this.tools = listed.tools;
    } catch (error) {
      this.upstream.reset();
      const code = remoteFailureCode(classifySdkFailure(error, this.url));
      throw new BridgeStartError(this.upstream.explain(error, this.connectTimeoutMs), code);
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
        const listed = await this.upstream.attempt((client) =>
          client.listTools(
            request.params?.cursor ? { cursor: request.params.cursor } : undefined,
            this.upstream.requestOptions(ctx),
          ),
        );
        if (!request.params?.cursor) this.tools = listed.tools;
        return {
          tools: this.offeredTools(listed.tools),
          ...(listed.nextCursor ? { nextCursor: listed.nextCursor } : {}),
        };
      } catch (error) {
        if (isProtocolError(error)) throw relay(error);
        this.upstream.reset();
        // The host still learns what the server offered when the bridge last reached it.
        this.warn(`tools/list: ${this.upstream.explain(error)}; answering with the last list seen`);
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
            this.upstream.requestOptions(ctx),
          );
          return passThrough(listed);
        }),
      );
      low.setRequestHandler('resources/templates/list', async (request, ctx) =>
        this.forward(async (client) => {
          const listed = await client.listResourceTemplates(
            request.params?.cursor ? { cursor: request.params.cursor } : undefined,
            this.upstream.requestOptions(ctx),
          );
          return passThrough(listed);
        }),
      );
      low.setRequestHandler('resources/read', async (request, ctx) =>
        this.forward(async (client) =>
          passThrough(await client.readResource({ uri: request.params.uri }, this.upstream.requestOptions(ctx))),
        ),
      );
    }
    return mcp;
  }

  async close(): Promise<void> {
    await this.upstream.close();
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
      const result = await this.upstream.attempt((client) =>
        client.callTool({ name, arguments: args ?? {} }, this.upstream.requestOptions(ctx)),
      );
      return passThrough(result as CallToolResult);
    } catch (error) {
      if (isProtocolError(error)) throw relay(error);
      this.upstream.reset();
      const reason = this.upstream.explain(error);
      this.warn(`${name}: ${reason}`);
      return jsonResult({ error: reason });
    }
  }

  /** Runs a forwarded request; transport failures become one JSON-RPC internal error. */
  private async forward<T>(run: (client: Client) => Promise<T>): Promise<T> {
    try {
      return await this.upstream.attempt(run);
    } catch (error) {
      if (isProtocolError(error)) throw relay(error);
      this.upstream.reset();
      throw new ProtocolError(ProtocolErrorCode.InternalError, this.upstream.explain(error));
    }
  }

  private offeredTools(tools: Tool[]): Tool[] {
    const filter = this.options.toolFilter;
    return filter ? tools.filter((tool) => filter(tool.name)) : tools;
  }
}
