/**
 * MCP over HTTP (spec §10), on `node:http`, stateless, one path: `/mcp` (also `/mcp/`).
 *
 * Every request is checked, in this order, before any MCP code sees it (./http/guards.ts):
 *   target (400) → path (404) → Host (421) → Origin (403) → failed-auth limit (429)
 *   → auth (503 / 401) → method (405) → declared size (413) → content type (415)
 *   → the member's bound (429) → body size (413) → batch (400) → a fair admission slot
 *   (./http/admission.ts) → the call itself, within the timeout (−32603).
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
import http from 'node:http';
import type net from 'node:net';
import { createMcpHandler, type McpServer } from '@modelcontextprotocol/server';
import {
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_HTTP_HOST,
  DEFAULT_HTTP_PORT,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_TIMEOUT_MS,
  type HttpServerHandle,
  type HttpServerOptions,
} from './http/server-options.js';
import { OPERATOR, runWithCaller, type Caller } from '../core/trust/caller.js';
import { envValue } from '../core/store/config.js';
import { describeError } from '../core/errors.js';
import { addressKey, isLoopbackAddress, isWildcard, makeHostCheck, stripBrackets, urlHost } from './http/address.js';
import { DEFAULT_FAILED_AUTH_LIMIT, FailedAuthLimiter, TokenAuthenticator, bearerToken } from './http/auth.js';
import { LEGACY_TOKEN_ENV, checkBind, describeServing, listen, type AuthMode } from './http/bind.js';
import { Exchange, forwardRequest, readRequest } from './http/exchange.js';
import { MemberConcurrency, readyOrAborted, untilReadyOrAborted, type MemberSlot } from './http/concurrency.js';
import { FairAdmission, runAdmitted, type AdmissionTicket } from './http/admission.js';
import {
  MCP_PATH,
  batchGuard,
  contentTypeGuard,
  declaredSizeGuard,
  firstRefusal,
  hostGuard,
  methodGuard,
  originGuard,
  parseBody,
  targetGuard,
  rateLimited,
  tooManyCalls,
  tooLarge,
  UNAUTHORIZED,
  UNCONFIGURED,
  type Guard,
  type Rejection,
} from './http/guards.js';
import { warningLine } from '../core/store/warn.js';

export { isLoopbackAddress, isLoopbackHost, makeHostCheck, parseHostHeader } from './http/address.js';
export { bearerToken, type FailedAuthLimit, type MemberAuthenticator } from './http/auth.js';
export { BindRefusedError, type AuthMode } from './http/bind.js';

export type { HttpServerHandle, HttpServerOptions } from './http/server-options.js';

export async function runHttpServer(
  factory: () => McpServer,
  options: HttpServerOptions = {},
): Promise<HttpServerHandle> {
  const host = stripBrackets((options.host ?? DEFAULT_HTTP_HOST).trim());
  const allowUnauthenticated = options.allowUnauthenticated ?? false;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const headersTimeoutMs = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const warn = options.warn ?? ((message: string) => process.stderr.write(warningLine('bourdon: http: ', message)));
  const isRemote = options.isRemote ?? ((req: http.IncomingMessage) => !isLoopbackAddress(req.socket.remoteAddress));
  const legacyToken =
    options.legacyToken === undefined ? envValue(options.env ?? process.env, LEGACY_TOKEN_ENV) : options.legacyToken;
  const tokens = new TokenAuthenticator(legacyToken, options.registry ?? null, warn);
  const limiter = new FailedAuthLimiter(options.failedAuthLimit ?? DEFAULT_FAILED_AUTH_LIMIT);
  const concurrency = options.memberConcurrency ?? new MemberConcurrency();
  const admission = options.admission ?? new FairAdmission();
  const authMode = (): AuthMode =>
    allowUnauthenticated ? 'unauthenticated' : tokens.configured() ? 'bearer' : 'unconfigured';

  const bindWarning = checkBind({
    host,
    allowUnauthenticated,
    authConfigured: tokens.configured(),
    legacyLength: tokens.legacyLength,
  });
  if (bindWarning) warn(bindWarning);

  /** The caller a request stands for, or why it is refused; failures count against the address. */
  const authenticate = (req: http.IncomingMessage): Caller | Rejection => {
    if (allowUnauthenticated) return OPERATOR;
    const address = addressKey(req.socket.remoteAddress);
    const wait = limiter.retryAfter(address);
    const token = bearerToken(req.headers.authorization);
    // While the address is limited only tokens a guess cannot find are checked (auth.ts).
    const checked = wait === 0 || (token !== null && tokens.checkableWhileLimited(token));
    const caller = checked && token !== null ? tokens.authenticate(token) : null;
    if (caller) return caller;
    // Asked only when no token verified (a verified token means auth is configured): the
    // common case costs one registry check, not two.
    if (!tokens.configured()) return UNCONFIGURED;
    if (!checked) return rateLimited(wait);
    limiter.fail(address);
    return wait > 0 ? rateLimited(wait) : UNAUTHORIZED;
  };

  const handler = createMcpHandler(() => factory(), {
    maxRequestBodySize: maxBodyBytes,
    onerror: (error: Error) => warn(`mcp: ${describeError(error)}`),
  });
  let guardsBeforeAuth: Guard[] = [];
  const guardsAfterAuth: Guard[] = [methodGuard, declaredSizeGuard(maxBodyBytes), contentTypeGuard];

  const onRequest = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const exchange = new Exchange(res, timeoutMs);
    let slot: MemberSlot | null = null;
    let ticket: AdmissionTicket | null = null;
    try {
      const early = firstRefusal(req, guardsBeforeAuth);
      if (early) return exchange.refuse(early);
      const resolved = authenticate(req);
      if ('status' in resolved) return exchange.refuse(resolved);
      const refused = firstRefusal(req, guardsAfterAuth);
      if (refused) return exchange.refuse(refused);
      slot = concurrency.enter(resolved.agent_id);
      if (!slot) return exchange.refuse(tooManyCalls(concurrency.limit.retryAfterSeconds));
      if (!(await untilReadyOrAborted(slot.ready, exchange.abort.signal))) return;

      const read = await readRequest(req, maxBodyBytes);
      if (exchange.done) return;
      if (read.tooLarge) return exchange.refuse(tooLarge(maxBodyBytes));
      const body = parseBody(read.text);
      const batch = batchGuard(body);
      if (batch) return exchange.refuse(batch);
      if (body.json && typeof body.json === 'object' && 'id' in body.json) exchange.setRequestId(body.json.id);

      const caller =
        isRemote(req) && resolved.ceiling === 'private' ? { ...resolved, ceiling: 'team' as const } : resolved;
      const parsed = 'json' in body;
      const request = forwardRequest(req, exchange.abort.signal, parsed ? null : body.text);
      const admitted = admission.enter(resolved.agent_id);
      ticket = admitted;
      // Answered by the deadline or abandoned by its client, a call gives its slot back even if
      // its handler is still running: a stuck call must not keep a slot others are waiting for.
      exchange.onAbort(() => admitted.leave());
      if (!(await readyOrAborted(admitted.ready, exchange.abort.signal))) return;
      const response = await runAdmitted(admitted, () =>
        runWithCaller(caller, () => handler.fetch(request, parsed ? { parsedBody: body.json } : {})),
      );
      await exchange.send(response);
    } catch (error) {
      if (exchange.abort.signal.aborted && exchange.done) return; // timed out or client gone
      warn(`request failed: ${describeError(error)}`);
      exchange.fail();
    } finally {
      ticket?.leave();
      slot?.leave();
      exchange.finish();
    }
  };

  // Slow clients are bounded: headers within headersTimeoutMs, the whole request within the
  // call's own budget plus that (our timer answers first), checked every second.
  const server = http.createServer(
    {
      headersTimeout: headersTimeoutMs,
      requestTimeout: timeoutMs + headersTimeoutMs,
      connectionsCheckingInterval: 1_000,
    },
    (req, res) => {
      void onRequest(req, res);
    },
  );
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    else socket.destroy();
  });
  await listen(server, host, options.port ?? DEFAULT_HTTP_PORT);
  server.on('error', (error) => warn(`server error: ${describeError(error)}`));

  const port = (server.address() as net.AddressInfo).port;
  guardsBeforeAuth = [
    targetGuard,
    hostGuard(makeHostCheck(host, port, options.allowedHosts ?? [])),
    originGuard(options.allowedOrigins ?? []),
  ];
  const url = `http://${isWildcard(host) ? '127.0.0.1' : urlHost(host)}:${port}${MCP_PATH}`;

  let closing: Promise<void> | null = null;
  return {
    server,
    host,
    port,
    url,
    authMode,
    describe: () => describeServing(host, port, authMode(), tokens.hasLegacy, tokens.hasMembers()),
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
