/**
 * MCP over HTTP (spec §10), on `node:http`, stateless, one path: `/mcp` (also `/mcp/`).
 *
 * Every request is checked here, in this order, before any MCP code sees it:
 *   path (404) → Host (421) → Origin (403) → auth (503 / 401) → method (405)
 *   → body size (413) → batch (400) → the call itself, within the timeout (−32603).
 * Then the SDK's `createMcpHandler` answers it with a fresh server from the factory: it
 * serves the handshake era (2025-11-25 and earlier: initialize, then calls, each POST
 * answered over a stateless streamable transport) and the 2026-07-28 stateless binding
 * (one POST, one JSON answer) on the same endpoint. No protocol code is written here.
 *
 * The caller resolved from the bearer token travels to the tool handlers through
 * `runWithCaller` (AsyncLocalStorage) around the handler's fetch. A caller whose socket
 * comes from a non-loopback address is capped at `team` (private rows never leave the
 * machine). Tokens are never logged, echoed or passed on.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import { createMcpHandler, type McpServer } from '@modelcontextprotocol/server';
import { OPERATOR, runWithCaller, type Caller } from '../core/trust/caller.js';
import { envValue } from '../core/store/config.js';
import type { Env } from '../core/context.js';
import { BourdonError, describeError } from '../core/errors.js';
import { maskSecret } from '../core/trust/audit.js';

export const MCP_PATH = '/mcp';
export const DEFAULT_HTTP_HOST = '127.0.0.1';
export const DEFAULT_HTTP_PORT = 7500;
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 45_000;
export const LEGACY_TOKEN_ENV = 'BOURDON_PEER_TOKEN_SERVER';

/** The server refused to start on an unsafe bind (spec §10). The message is one line. */
export class BindRefusedError extends BourdonError {
  constructor(message: string) {
    super(message, 1);
    this.name = 'BindRefusedError';
  }
}

/** What the transport needs from the member registry (FederationRegistry fits). */
export interface MemberAuthenticator {
  authenticate(token: string): Caller | null;
  hasActiveMembers(): boolean;
}

export interface HttpServerOptions {
  /** Interface to bind; default 127.0.0.1. `localhost`, IPv4 and IPv6 literals (with or without brackets). */
  host?: string;
  /** Port; default 7500; 0 picks a free one (see the handle's `port`). */
  port?: number;
  /** Registered members; null/undefined means none. Re-read by the registry itself on stat change. */
  registry?: MemberAuthenticator | null;
  /** The legacy shared token (operator); default `BOURDON_PEER_TOKEN_SERVER` from `env`. Empty = unset. */
  legacyToken?: string | null;
  env?: Env;
  /** Every caller is operator, no token asked. Loopback binds only. */
  allowUnauthenticated?: boolean;
  /** Extra `Host` values accepted (`name` or `name:port`). */
  allowedHosts?: readonly string[];
  /** `Origin` values accepted (e.g. `https://app.example`); any other Origin gets 403. */
  allowedOrigins?: readonly string[];
  /** Largest request body; default 1 MiB. */
  maxBodyBytes?: number;
  /** Time a request has to be answered, from its arrival; default 45 s. */
  timeoutMs?: number;
  /**
   * Whether a request comes from another machine (its caller is then capped at `team`).
   * Default: the socket's remote address is not a loopback address. Injectable for tests and
   * for deployments behind a local reverse proxy, where every socket is loopback.
   */
  isRemote?: (req: http.IncomingMessage) => boolean;
  /** Where transport problems are reported (never tokens); default stderr. */
  warn?: (message: string) => void;
}

export type AuthMode = 'bearer' | 'unauthenticated' | 'unconfigured';

export interface HttpServerHandle {
  server: http.Server;
  /** The bound address as given (brackets removed) and the real port. */
  host: string;
  port: number;
  /** `http://<host>:<port>/mcp`, usable by a client on this machine. */
  url: string;
  /** How callers authenticate right now (members may be added later without restart). */
  authMode(): AuthMode;
  /** One line for stderr: where it listens and how callers authenticate. */
  describe(): string;
  close(): Promise<void>;
}

/** `localhost` or a loopback IP literal (127.0.0.0/8, ::1, ::ffff:127.x.x.x). */
export function isLoopbackHost(host: string): boolean {
  const bare = stripBrackets(host.trim()).toLowerCase();
  if (bare === 'localhost') return true;
  return net.isIP(bare) !== 0 && isLoopbackAddress(bare);
}

/** Whether a socket address is loopback. Undefined (socket gone) is not: fail closed. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  let addr = stripBrackets(address).toLowerCase();
  const zone = addr.indexOf('%');
  if (zone >= 0) addr = addr.slice(0, zone);
  if (addr.startsWith('::ffff:') && net.isIPv4(addr.slice(7))) addr = addr.slice(7);
  if (net.isIPv4(addr)) return addr.split('.')[0] === '127';
  if (net.isIPv6(addr)) return expandIpv6(addr) === '0000:0000:0000:0000:0000:0000:0000:0001';
  return false;
}

function expandIpv6(addr: string): string {
  const [head, tail = ''] = addr.split('::');
  const left = head ? head.split(':') : [];
  const right = addr.includes('::') ? (tail ? tail.split(':') : []) : [];
  const missing = 8 - left.length - right.length;
  const groups = addr.includes('::') ? [...left, ...Array<string>(Math.max(missing, 0)).fill('0'), ...right] : left;
  return groups.map((group) => group.padStart(4, '0')).join(':');
}

function stripBrackets(value: string): string {
  return value.startsWith('[') && value.endsWith(']') ? value.slice(1, -1) : value;
}

function isWildcard(host: string): boolean {
  const bare = stripBrackets(host).toLowerCase();
  return bare === '0.0.0.0' || bare === '::' || bare === '0:0:0:0:0:0:0:0';
}

/** Splits a Host header (or an --allowed-host value) into a lower-case name and an optional port. */
export function parseHostHeader(value: string): { name: string; port: number | null } | null {
  const text = value.trim().toLowerCase();
  if (!text) return null;
  let name: string;
  let portText: string | undefined;
  if (text.startsWith('[')) {
    const end = text.indexOf(']');
    if (end < 0) return null;
    name = text.slice(1, end);
    const rest = text.slice(end + 1);
    if (rest && !rest.startsWith(':')) return null;
    portText = rest ? rest.slice(1) : undefined;
  } else {
    const colon = text.lastIndexOf(':');
    if (colon >= 0 && text.indexOf(':') !== colon) return { name: text, port: null }; // bare IPv6 (only in our own lists)
    name = colon >= 0 ? text.slice(0, colon) : text;
    portText = colon >= 0 ? text.slice(colon + 1) : undefined;
  }
  if (!name) return null;
  if (portText === undefined) return { name, port: null };
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) return null;
  return { name, port: Number(portText) };
}

/**
 * The Host check (DNS-rebinding defence). Accepted: the loopback names and the bound address
 * on the served port (for a wildcard bind, this machine's own interface addresses), plus the
 * --allowed-host values: `name` accepts that name with no port or the served port,
 * `name:port` exactly that. A Host without a port means port 80.
 */
export function makeHostCheck(
  boundHost: string,
  port: number,
  allowedHosts: readonly string[],
): (header: string | undefined) => boolean {
  const own = new Set(['localhost', '127.0.0.1', '::1']);
  if (isWildcard(boundHost)) {
    for (const list of Object.values(os.networkInterfaces()))
      for (const info of list ?? []) own.add(info.address.toLowerCase());
  } else {
    own.add(stripBrackets(boundHost).toLowerCase());
  }
  const extra = allowedHosts.map((value) => parseHostHeader(value)).filter((entry) => entry !== null);
  return (header) => {
    if (!header) return false;
    const parsed = parseHostHeader(header);
    if (!parsed) return false;
    const effectivePort = parsed.port ?? 80;
    if (own.has(parsed.name) && effectivePort === port) return true;
    return extra.some(
      (entry) =>
        entry.name === parsed.name &&
        (entry.port === null ? parsed.port === null || parsed.port === port : entry.port === effectivePort),
    );
  };
}

function normaliseOrigin(value: string): string {
  return value.trim().toLowerCase().replace(/\/+$/, '');
}

function sha256(text: string): Buffer {
  return crypto.createHash('sha256').update(text, 'utf8').digest();
}

/** A bearer token from an Authorization header, or null. The empty bearer is no token. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^bearer[ \t]+(.*)$/is.exec(header.trim());
  if (!match) return null;
  const token = match[1].trim();
  return token === '' ? null : token;
}

type Rejection = { status: number; body: unknown; headers?: Record<string, string> };

function jsonRpcError(code: number, message: string, id: unknown = null): unknown {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

const UNAUTHORIZED: Rejection = {
  status: 401,
  body: { error: 'missing, invalid or revoked Bearer token' },
  headers: { 'www-authenticate': 'Bearer realm="bourdon"' },
};
const UNCONFIGURED: Rejection = {
  status: 503,
  body: {
    error:
      'Server has no auth configured (no registered members via `bourdon agent add` and no BOURDON_PEER_TOKEN_SERVER) and was launched without --allow-unauthenticated.',
  },
};

export async function runHttpServer(
  factory: () => McpServer,
  options: HttpServerOptions = {},
): Promise<HttpServerHandle> {
  const host = stripBrackets((options.host ?? DEFAULT_HTTP_HOST).trim());
  const requestedPort = options.port ?? DEFAULT_HTTP_PORT;
  const registry = options.registry ?? null;
  const allowUnauthenticated = options.allowUnauthenticated ?? false;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const warn = options.warn ?? ((message: string) => process.stderr.write(`bourdon: http: ${message}\n`));
  const isRemote = options.isRemote ?? ((req: http.IncomingMessage) => !isLoopbackAddress(req.socket.remoteAddress));
  const allowedOrigins = new Set((options.allowedOrigins ?? []).map(normaliseOrigin));

  const rawLegacy =
    options.legacyToken === undefined ? envValue(options.env ?? process.env, LEGACY_TOKEN_ENV) : options.legacyToken;
  const legacyTrimmed = typeof rawLegacy === 'string' ? rawLegacy.trim() : '';
  // Comparing digests is constant-time whatever the lengths. The token itself is kept only
  // by the audit masker, so a caller passing it as an argument never gets it logged.
  const legacyDigest = legacyTrimmed === '' ? null : sha256(legacyTrimmed);
  if (legacyTrimmed !== '') maskSecret(legacyTrimmed);

  const hasMembers = (): boolean => {
    try {
      return registry?.hasActiveMembers() ?? false;
    } catch {
      return false;
    }
  };
  const authConfigured = () => legacyDigest !== null || hasMembers();
  const authMode = (): AuthMode =>
    allowUnauthenticated ? 'unauthenticated' : authConfigured() ? 'bearer' : 'unconfigured';

  if (!host) throw new BindRefusedError('refusing to start: empty --host');
  if (!isLoopbackHost(host)) {
    if (allowUnauthenticated) {
      throw new BindRefusedError(
        `refusing to start: --allow-unauthenticated with non-loopback bind '${host}'. Anonymous access is loopback-only; register a member token (\`bourdon agent add <id>\`) or set BOURDON_PEER_TOKEN_SERVER to serve on this interface.`,
      );
    }
    if (!authConfigured()) {
      throw new BindRefusedError(
        `refusing to start: bind '${host}' is network-reachable but no auth is configured. Register a member token (\`bourdon agent add <id>\`) or set BOURDON_PEER_TOKEN_SERVER, or bind 127.0.0.1.`,
      );
    }
  }

  /** The caller a request stands for, or why it is refused. */
  const authenticate = (req: http.IncomingMessage): Caller | Rejection => {
    if (allowUnauthenticated) return OPERATOR;
    if (!authConfigured()) return UNCONFIGURED;
    const token = bearerToken(req.headers.authorization);
    if (token === null) return UNAUTHORIZED;
    // Both checks always run, so timing says nothing about which kind of token matched.
    const legacyMatch = legacyDigest !== null && crypto.timingSafeEqual(sha256(token), legacyDigest);
    let member: Caller | null = null;
    try {
      member = registry?.authenticate(token) ?? null;
    } catch (error) {
      warn(`member registry unavailable (${describeError(error)})`);
    }
    if (legacyMatch) return OPERATOR;
    return member ?? UNAUTHORIZED;
  };

  const handler = createMcpHandler(() => factory(), {
    maxRequestBodySize: maxBodyBytes,
    onerror: (error: Error) => warn(`mcp: ${describeError(error)}`),
  });

  let hostCheck: (header: string | undefined) => boolean = () => false;

  const onRequest = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const abort = new AbortController();
    let answered = false;
    let requestId: unknown = null;
    let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
    let streamingSse = false;

    const reject = (rejection: Rejection): void => {
      if (answered || res.headersSent) return;
      answered = true;
      const body = JSON.stringify(rejection.body);
      res.writeHead(rejection.status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        ...rejection.headers,
      });
      res.end(body);
    };

    const timer = setTimeout(() => {
      if (res.writableEnded) return;
      const payload = jsonRpcError(-32603, `request timed out after ${Math.round(timeoutMs / 100) / 10} s`, requestId);
      if (!res.headersSent) {
        reject({ status: 200, body: payload, headers: { connection: 'close' } });
      } else {
        // Already streaming (the handshake era answers over SSE): end with the error as the last event.
        if (streamingSse) {
          res.write(`event: message\ndata: ${JSON.stringify(payload)}\n\n`);
        }
        res.end();
      }
      answered = true;
      abort.abort();
      void reader?.cancel().catch(() => {});
    }, timeoutMs);
    timer.unref();
    res.on('close', () => {
      clearTimeout(timer);
      abort.abort();
    });

    try {
      const pathname = new URL(req.url ?? '/', 'http://placeholder').pathname;
      if (pathname !== MCP_PATH && pathname !== `${MCP_PATH}/`)
        return reject({ status: 404, body: jsonRpcError(-32000, `not found; the MCP endpoint is ${MCP_PATH}`) });
      if (!hostCheck(req.headers.host)) {
        return reject({
          status: 421,
          body: jsonRpcError(-32000, 'misdirected request: Host not allowed (see --allowed-host)'),
        });
      }
      const origin = req.headers.origin;
      if (origin !== undefined && !allowedOrigins.has(normaliseOrigin(origin))) {
        return reject({
          status: 403,
          body: jsonRpcError(-32000, 'forbidden: Origin not allowed (see --allowed-origin)'),
        });
      }
      const resolved = authenticate(req);
      if ('status' in resolved) return reject(resolved);
      if (req.method !== 'POST') {
        return reject({
          status: 405,
          body: jsonRpcError(-32000, 'method not allowed: use POST'),
          headers: { allow: 'POST' },
        });
      }
      const tooLarge: Rejection = {
        status: 413,
        body: jsonRpcError(-32000, `request body over ${maxBodyBytes} bytes`),
        headers: { connection: 'close' },
      };
      const declared = Number(req.headers['content-length'] ?? NaN);
      if (Number.isFinite(declared) && declared > maxBodyBytes) return reject(tooLarge);
      const body = await readBody(req, maxBodyBytes);
      if (answered) return;
      if (body === null) return reject(tooLarge);

      let parsed: unknown;
      let parsedOk = false;
      try {
        parsed = JSON.parse(body);
        parsedOk = true;
      } catch {
        // Not JSON: the SDK answers it (-32700).
      }
      if (Array.isArray(parsed)) {
        return reject({
          status: 400,
          body: jsonRpcError(-32600, 'JSON-RPC batches are not supported; send one request per POST'),
        });
      }
      if (parsed && typeof parsed === 'object' && 'id' in parsed) requestId = (parsed as { id: unknown }).id;

      const caller =
        isRemote(req) && resolved.ceiling === 'private' ? { ...resolved, ceiling: 'team' as const } : resolved;
      const request = toWebRequest(req, body, abort.signal);
      const response = await runWithCaller(caller, () =>
        handler.fetch(request, parsedOk ? { parsedBody: parsed } : {}),
      );
      if (answered) {
        void response.body?.cancel().catch(() => {});
        return;
      }
      answered = true;
      streamingSse = (response.headers.get('content-type') ?? '').includes('text/event-stream');
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (!response.body) {
        res.end();
        return;
      }
      reader = response.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done || res.writableEnded) break;
        if (!res.write(value)) await new Promise<void>((resolve) => res.once('drain', resolve).once('close', resolve));
      }
      if (!res.writableEnded) res.end();
    } catch (error) {
      if (abort.signal.aborted && (answered || res.writableEnded)) return; // timed out or client gone
      warn(`request failed: ${describeError(error)}`);
      if (!res.headersSent) reject({ status: 500, body: jsonRpcError(-32603, 'internal error', requestId) });
      else if (!res.writableEnded) res.end();
    } finally {
      clearTimeout(timer);
    }
  };

  const server = http.createServer((req, res) => {
    void onRequest(req, res);
  });
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      const where = `${host.includes(':') ? `[${host}]` : host}:${requestedPort}`;
      if (error.code === 'EADDRINUSE') reject(new BourdonError(`cannot listen on ${where}: the port is in use`));
      else if (error.code === 'EADDRNOTAVAIL')
        reject(new BourdonError(`cannot listen on ${where}: no such address on this machine`));
      else if (error.code === 'EACCES') reject(new BourdonError(`cannot listen on ${where}: permission denied`));
      else reject(new BourdonError(`cannot listen on ${where}: ${error.code ?? describeError(error)}`));
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(requestedPort, host);
  });
  server.on('error', (error) => warn(`server error: ${describeError(error)}`));

  const port = (server.address() as net.AddressInfo).port;
  hostCheck = makeHostCheck(host, port, options.allowedHosts ?? []);
  const urlHost = isWildcard(host) ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const url = `http://${urlHost}:${port}${MCP_PATH}`;

  let closing: Promise<void> | null = null;
  return {
    server,
    host,
    port,
    url,
    authMode,
    describe: () => describeServing(host, port, authMode(), legacyDigest !== null, hasMembers()),
    close: () => {
      closing ??= (async () => {
        await handler.close().catch(() => {});
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closing;
    },
  };
}

function describeServing(host: string, port: number, mode: AuthMode, legacy: boolean, members: boolean): string {
  const shown = host.includes(':') ? `[${host}]` : host;
  const where = `http://${shown}:${port}${MCP_PATH}`;
  const eras = 'MCP 2025-11-25 (handshake) and 2026-07-28 (stateless)';
  if (mode === 'unauthenticated') {
    return `listening on ${where} (${eras}); auth: none (--allow-unauthenticated): every caller is the operator; loopback only`;
  }
  if (mode === 'unconfigured') {
    return `listening on ${where} (${eras}); auth: NOT CONFIGURED: every request gets 503 until a member is registered (\`bourdon agent add <id>\`) or BOURDON_PEER_TOKEN_SERVER is set`;
  }
  const ways = [
    members ? 'registered member tokens (`bourdon agent list`)' : null,
    legacy ? 'the BOURDON_PEER_TOKEN_SERVER token (operator)' : null,
  ]
    .filter(Boolean)
    .join(' or ');
  const remote = isLoopbackHost(host) ? '' : '; callers from other machines never see private rows';
  return `listening on ${where} (${eras}); auth: Authorization: Bearer <token>, with ${ways}${remote}`;
}

/** Reads the body up to `limit` bytes; null when it is larger. */
async function readBody(req: http.IncomingMessage, limit: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) return null;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function toWebRequest(req: http.IncomingMessage, body: string, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (value === undefined || key.startsWith(':')) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(key, item);
    else headers.set(key, value);
  }
  headers.delete('authorization'); // the caller is already resolved; the token goes no further
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? MCP_PATH}`, {
    method: 'POST',
    headers,
    body,
    signal,
  });
}
