/**
 * Why a call to another server failed, decided from the errors' classes and codes, never from
 * their message text: the typed errors our calls throw (below), a client library's own (read by
 * the `LibraryErrors` its caller passes: src/mcp/remote/failure.ts reads the MCP SDK's HTTP
 * status and request timeout) and the system or TLS code fetch or `node:http` hides down the
 * cause chain. One classifier for every caller — the MCP bridge, the peer client, the openclaw
 * participant — each wording the same failure for its own readers. In core, so the participants
 * may import it; it knows no client library.
 */
import { BourdonError } from '../errors.js';

/** No answer within the budget. `what` is the step that waited (`answer`, `connection`). */
export class RemoteTimeout extends BourdonError {
  constructor(
    readonly budgetMs: number,
    readonly what = 'answer',
  ) {
    super(`no ${what} within ${budgetMs} ms`, 'peer_unreachable');
    this.name = 'RemoteTimeout';
  }
}

/** The server answered an HTTP status that refuses the request (a recording fetch saw it). */
export class RemoteHttpRefusal extends BourdonError {
  constructor(readonly status: number) {
    super(`HTTP ${status}`, 'peer_refused');
    this.name = 'RemoteHttpRefusal';
  }
}

/** The answer passed the size cap (capped-fetch.ts): nothing of it is used. */
export class AnswerTooLarge extends BourdonError {
  constructor(readonly limit: number) {
    super(`peer answer over ${limit} bytes; ignored`, 'peer_refused');
    this.name = 'AnswerTooLarge';
  }
}

/** The answer arrived but cannot be used: no text, not JSON, not the answer model's shape, a refusal. */
export class UnusableAnswer extends BourdonError {
  constructor(message: string) {
    super(message, 'peer_refused');
    this.name = 'UnusableAnswer';
  }
}

/**
 * The ports fetch refuses to connect to (https://fetch.spec.whatwg.org/#port-blocking): a URL
 * on one fails before any connection, with nothing in the error but its text.
 */
const BLOCKED_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110,
  111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532,
  540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061,
  6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** The URL's port when fetch refuses it, else null. */
function blockedPort(url: string): number | null {
  try {
    const port = Number(new URL(url).port);
    return BLOCKED_PORTS.has(port) ? port : null;
  } catch {
    return null;
  }
}

/** What a network failure means to the person who fixes it. */
type NetworkCause = 'dns' | 'refused' | 'tls' | 'connect-timeout' | 'dropped' | 'other';

export type RemoteFailure =
  | { kind: 'network'; code: string; cause: NetworkCause }
  | { kind: 'http'; status: number }
  /** `budgetMs` and `what` when the timeout was ours (RemoteTimeout), not a library's. */
  | { kind: 'timeout'; budgetMs?: number; what?: string }
  | { kind: 'blocked-port'; port: number }
  | { kind: 'too-large'; limit: number }
  | { kind: 'unknown' };

const NETWORK_CAUSES: Record<string, NetworkCause> = {
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  ECONNREFUSED: 'refused',
  ETIMEDOUT: 'connect-timeout',
  UND_ERR_CONNECT_TIMEOUT: 'connect-timeout',
  ECONNRESET: 'dropped',
  EHOSTUNREACH: 'dropped',
  ENETUNREACH: 'dropped',
  EPIPE: 'dropped',
  UND_ERR_SOCKET: 'dropped',
  UND_ERR_CLOSED: 'dropped',
};

/** The codes of a failed TLS handshake (Node's and OpenSSL's), as fetch reports them. */
const TLS_CODES = /^(CERT_|ERR_TLS_|ERR_SSL_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_|EPROTO$)/;

/** How a client library's own errors are read (the MCP SDK's: src/mcp/remote/failure.ts). */
export interface LibraryErrors {
  /** Whether `link` is the library's own error, whose `code` is the library's and not a system code. */
  isOwn(link: object): boolean;
  /** The HTTP status a refused request's error carries, or null. */
  httpStatus(link: object): number | null;
  /** Whether `link` is the library's request timeout. */
  timedOut(link: object): boolean;
}

/** A caller without a client library (`node:http`, fetch): only our errors and the system's. */
const NO_LIBRARY: LibraryErrors = { isOwn: () => false, httpStatus: () => null, timedOut: () => false };

interface ChainLink {
  code?: unknown;
  name?: unknown;
  syscall?: unknown;
  cause?: unknown;
  data?: { cause?: unknown };
}

function isLink(value: unknown): value is ChainLink {
  return typeof value === 'object' && value !== null;
}

/**
 * An error and the errors behind it, at most six deep: `cause` (fetch hides the system error
 * two causes down), the SDK's `data.cause`, and both addresses of a host failing (IPv4 and
 * IPv6), which come as one AggregateError.
 */
function causeChain(error: unknown): ChainLink[] {
  const chain: ChainLink[] = [];
  for (let at = error, depth = 0; isLink(at) && depth < 6; depth++) {
    chain.push(at);
    const next = at.cause ?? at.data?.cause;
    if (at instanceof AggregateError) chain.push(...at.errors.filter(isLink));
    at = next;
  }
  return chain;
}

/** The system or TLS code behind a failed fetch (ECONNREFUSED, CERT_HAS_EXPIRED, …); not the SDK's own codes. */
function networkCode(chain: ChainLink[], library: LibraryErrors): string | null {
  for (const link of chain) {
    const { code } = link;
    if (typeof code !== 'string' || library.isOwn(link)) continue;
    if (link.syscall !== undefined || code in NETWORK_CAUSES || TLS_CODES.test(code) || code.startsWith('UND_ERR_'))
      return code;
  }
  return null;
}

/** The HTTP status behind a refused request: the library's error, or one a recording fetch saw. */
function httpStatus(chain: ChainLink[], library: LibraryErrors): number | null {
  for (const link of chain) {
    const status = link instanceof RemoteHttpRefusal ? link.status : library.httpStatus(link);
    if (status !== null) return status;
  }
  return null;
}

/** A request that ran out of time: ours (with its budget), the library's, or a fetch aborted by a timeout signal. */
function timeout(chain: ChainLink[], library: LibraryErrors): RemoteFailure | null {
  const ours = chain.find((link) => link instanceof RemoteTimeout);
  if (ours instanceof RemoteTimeout) return { kind: 'timeout', budgetMs: ours.budgetMs, what: ours.what };
  return chain.some((link) => library.timedOut(link) || link.name === 'TimeoutError') ? { kind: 'timeout' } : null;
}

/** What failed in a call to the server at `url`; `library` reads a client library's own errors. */
export function classifyFailure(error: unknown, url: string, library: LibraryErrors = NO_LIBRARY): RemoteFailure {
  const chain = causeChain(error);
  const tooLarge = chain.find((link) => link instanceof AnswerTooLarge);
  if (tooLarge instanceof AnswerTooLarge) return { kind: 'too-large', limit: tooLarge.limit };
  const code = networkCode(chain, library);
  if (code !== null) {
    const cause = NETWORK_CAUSES[code] ?? (TLS_CODES.test(code) ? 'tls' : 'other');
    return { kind: 'network', code, cause };
  }
  const status = httpStatus(chain, library);
  if (status !== null) return { kind: 'http', status };
  const late = timeout(chain, library);
  if (late !== null) return late;
  const port = blockedPort(url);
  if (port !== null) return { kind: 'blocked-port', port };
  return { kind: 'unknown' };
}

/** The code of a failed call: the server answered but refused or sent what cannot be used, or it did not answer. */
export function remoteFailureCode(failure: RemoteFailure): 'peer_refused' | 'peer_unreachable' {
  return failure.kind === 'http' || failure.kind === 'too-large' ? 'peer_refused' : 'peer_unreachable';
}
