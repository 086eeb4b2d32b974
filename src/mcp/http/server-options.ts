/**
 * What the HTTP server is started with (each option's default beside it) and the handle it
 * gives back.
 */
import type http from 'node:http';
import type { Env } from '../../core/context.js';
import type { FairAdmission } from './admission.js';
import type { FailedAuthLimit, MemberAuthenticator } from './auth.js';
import type { AuthMode } from './bind.js';
import type { MemberConcurrency } from './concurrency.js';

export const DEFAULT_HTTP_HOST = '127.0.0.1';
export const DEFAULT_HTTP_PORT = 7500;
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 45_000;
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;

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
  /** Time a client has to send its request headers; default 10 s (then 408 and the connection closes). */
  headersTimeoutMs?: number;
  /** Failed authentications allowed per remote address; default 30 in a burst, then 30 a minute. */
  failedAuthLimit?: FailedAuthLimit;
  /**
   * Whether a request comes from another machine (its caller is then capped at `team`).
   * Default: the socket's remote address is not a loopback address. Injectable for tests and
   * for deployments behind a local reverse proxy, where every socket is loopback.
   */
  isRemote?: (req: http.IncomingMessage) => boolean;
  /** Where transport problems are reported (never tokens); default stderr. */
  warn?: (message: string) => void;
  /** The bound on each member's concurrent calls; default 8 running and 56 waiting (http/concurrency.ts). */
  memberConcurrency?: MemberConcurrency;
  /**
   * Which calls are inside the MCP handler: a few at once, the rest in turn round-robin across
   * members (http/admission.ts). A server from `createMcpServer` steps its peer waits aside.
   */
  admission?: FairAdmission;
}

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
