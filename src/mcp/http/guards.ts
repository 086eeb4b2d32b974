/**
 * The request guards, in the order they run: each looks at one thing and either lets the
 * request on (null) or says how to refuse it. Header guards run before the body is read;
 * the batch guard runs on the body. Every refusal closes the connection, so a refused client
 * cannot keep the socket by trickling the rest of its body.
 */
import type http from 'node:http';
import { isJsonContentType } from '@modelcontextprotocol/server';

export interface Rejection {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export type Guard = (req: http.IncomingMessage) => Rejection | null;

export const MCP_PATH = '/mcp';

export function jsonRpcError(code: number, message: string, id: unknown = null): unknown {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

/** Refusal bodies of the transport's own checks: a JSON-RPC error with id null. */
function refusal(status: number, message: string, headers?: Record<string, string>): Rejection {
  return { status, body: jsonRpcError(-32000, message), headers };
}

/**
 * The request target is origin-form (`/mcp`, `/mcp/`, with any query). An absolute-form target
 * (`POST http://evil.com/mcp`) or `*` is a bad request: we are no proxy.
 */
export const targetGuard: Guard = (req) => {
  const target = req.url ?? '';
  if (!target.startsWith('/')) return refusal(400, `bad request target; send the path only (${MCP_PATH})`);
  // Parsed the way the request URL handed on is built (`http://host` + target), so both agree.
  let pathname: string;
  try {
    pathname = new URL(`http://placeholder${target}`).pathname;
  } catch {
    return refusal(400, `bad request target; send the path only (${MCP_PATH})`);
  }
  if (pathname !== MCP_PATH && pathname !== `${MCP_PATH}/`)
    return refusal(404, `not found; the MCP endpoint is ${MCP_PATH}`);
  return null;
};

export function hostGuard(check: (header: string | undefined) => boolean): Guard {
  return (req) =>
    check(req.headers.host) ? null : refusal(421, 'misdirected request: Host not allowed (see --allowed-host)');
}

function normaliseOrigin(value: string): string {
  return value.trim().toLowerCase().replace(/\/+$/, '');
}

/**
 * Origin: absent, or exactly one of the listed origins (scheme, name and port). Ours, not the
 * SDK's `validateOriginHeader`, which matches the host name only (any scheme, any port).
 */
export function originGuard(allowedOrigins: readonly string[]): Guard {
  const allowed = new Set(allowedOrigins.map(normaliseOrigin));
  return (req) => {
    const origin = req.headers.origin;
    if (origin === undefined || allowed.has(normaliseOrigin(origin))) return null;
    return refusal(403, 'forbidden: Origin not allowed (see --allowed-origin)');
  };
}

/** Auth refusals carry `{"error": "…"}`, as the Python server's do. */
export const UNAUTHORIZED: Rejection = {
  status: 401,
  body: { error: 'missing, invalid or revoked Bearer token' },
  headers: { 'www-authenticate': 'Bearer realm="bourdon"' },
};
export const UNCONFIGURED: Rejection = {
  status: 503,
  body: {
    error:
      'Server has no auth configured (no registered members via `bourdon agent add` and no BOURDON_PEER_TOKEN_SERVER) and was launched without --allow-unauthenticated.',
  },
};
export function rateLimited(retryAfterSeconds: number): Rejection {
  return {
    status: 429,
    body: { error: 'too many failed authentication attempts from this address; retry later' },
    headers: { 'retry-after': String(retryAfterSeconds) },
  };
}

/** A member over its bound on concurrent calls (http/concurrency.ts). */
export function tooManyCalls(retryAfterSeconds: number): Rejection {
  return {
    status: 429,
    body: { error: 'too many concurrent calls from this member; retry later' },
    headers: { 'retry-after': String(retryAfterSeconds) },
  };
}

export const methodGuard: Guard = (req) =>
  req.method === 'POST' ? null : refusal(405, 'method not allowed: use POST', { allow: 'POST' });

export function tooLarge(maxBodyBytes: number): Rejection {
  return refusal(413, `request body over ${maxBodyBytes} bytes`);
}

export function declaredSizeGuard(maxBodyBytes: number): Guard {
  return (req) => {
    const declared = Number(req.headers['content-length'] ?? NaN);
    return Number.isFinite(declared) && declared > maxBodyBytes ? tooLarge(maxBodyBytes) : null;
  };
}

/** The SDK's own refusal, word for word (its check is `isJsonContentType` too); run before the body is read. */
export const contentTypeGuard: Guard = (req) =>
  isJsonContentType(req.headers['content-type'])
    ? null
    : {
        status: 415,
        body: {
          jsonrpc: '2.0',
          error: { code: -32000, message: 'Unsupported Media Type: Content-Type must be application/json' },
          id: null,
        },
      };

/** Runs guards in order; the first refusal wins. */
export function firstRefusal(req: http.IncomingMessage, guards: readonly Guard[]): Rejection | null {
  for (const guard of guards) {
    const rejection = guard(req);
    if (rejection) return rejection;
  }
  return null;
}

interface ParsedBody {
  /** The text handed on: without leading byte-order marks. */
  text: string;
  /** The JSON value, when the text is JSON (else the SDK answers the parse error). */
  json?: unknown;
}

/**
 * Parses a body as the SDK would see it. Leading byte-order marks are dropped first: the SDK's
 * reader drops one (TextDecoder does), so `\ufeff[…]` would otherwise slip past the batch check
 * as "not JSON" and run as a batch.
 */
export function parseBody(raw: string): ParsedBody {
  const text = raw.replace(/^\ufeff+/, '');
  try {
    return { text, json: JSON.parse(text) as unknown };
  } catch {
    return { text };
  }
}

export function batchGuard(body: ParsedBody): Rejection | null {
  if (!Array.isArray(body.json)) return null;
  return { status: 400, body: jsonRpcError(-32600, 'JSON-RPC batches are not supported; send one request per POST') };
}
