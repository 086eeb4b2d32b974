/**
 * The one network source of the participants: GET requests to an OpenClaw instance, bounded
 * and confined (docs/participants.md, docs/security.md). Each request has a connect timeout
 * (DNS and TCP), and one total timeout bounds them all: a client's requests, redirects included,
 * end by the same deadline (a chain of same-origin redirects cannot each start a fresh budget);
 * an answer is read only up
 * to a size cap; a redirect is followed only within the instance's own origin (scheme, host and
 * port), never to another host, which would carry the token away; proxy variables are not
 * honoured (the token would pass through the proxy). The token goes only into the
 * Authorization header: every message this file produces is masked, so no failure echoes it.
 */
import http from 'node:http';
import type * as Https from 'node:https';
import { createRequire } from 'node:module';
import { BourdonError } from '../../core/errors.js';
import { AnswerTooLarge, classifyFailure, RemoteTimeout } from '../../core/federation/remote-failure.js';
import { maskTokens } from '../../core/trust/token-mask.js';
import { packageInfo } from '../../core/admin/version.js';

const require = createRequire(import.meta.url);

export interface InstanceClientOptions {
  /** The instance's base URL, without a trailing `/` (paths are appended to it as text). */
  readonly baseUrl: string;
  /** The bearer token (OPENCLAW_TOKEN); undefined sends no Authorization header. */
  readonly token?: string;
  readonly connectTimeoutMs: number;
  /** Until the last byte of the last answer: every request of this client, counted from its first. */
  readonly timeoutMs: number;
  readonly maxBytes: number;
}

/** An answer read whole: its status and body bytes. */
export interface InstanceAnswer {
  readonly status: number;
  readonly body: Buffer;
}

/** Same-origin redirects followed before giving up (a loop ends here). */
const MAX_REDIRECTS = 3;

/** The request could not be made or its answer not read: no connection, a timeout, the cap, a redirect away. */
export class InstanceUnreachable extends BourdonError {
  constructor(message: string) {
    super(message, 'peer_unreachable');
  }
}

/** `origin` of a URL as it is shown in messages: scheme, host and port, never credentials or a query. */
function shownOrigin(url: URL): string {
  return `${url.protocol}//${url.host}`;
}

/**
 * Why a request failed, in words a person acts on: classified as every call to another server
 * is (core/remote-failure.ts, by error class and system code); the error's own text only as a
 * last resort. A port fetch would block means nothing to `node:http`, so is not named.
 */
function transportFailure(error: unknown, url: URL): string {
  if (error instanceof InstanceUnreachable) return error.message;
  const where = shownOrigin(url);
  const failure = classifyFailure(error, url.href);
  switch (failure.kind) {
    case 'timeout': {
      const within = failure.budgetMs === undefined ? 'in time' : `within ${seconds(failure.budgetMs)}`;
      return failure.what === 'connection'
        ? `no connection to ${where} ${within} (the connect timeout, --connect-timeout)`
        : `${where}${url.pathname} did not answer ${within} (the timeout, --timeout, bounds the whole export)`;
    }
    case 'too-large':
      return `${url.pathname} answered more than ${failure.limit} bytes (the cap, BOURDON_OPENCLAW_MAX_BYTES); refused`;
    case 'network':
      switch (failure.cause) {
        case 'refused':
          return `connection refused at ${where}: nothing listens there (is OpenClaw running? set OPENCLAW_URL or --url)`;
        case 'dns':
          return `${url.hostname} does not resolve (check OPENCLAW_URL or --url)`;
        case 'tls':
          return `TLS with ${where} failed (${failure.code}): its certificate is not trusted here`;
        case 'dropped':
          return `the network dropped the connection to ${where} before it answered (${failure.code})`;
        case 'connect-timeout':
          return `no connection to ${where}: the system gave up waiting (${failure.code})`;
      }
      break;
  }
  return `${where}: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`;
}

/** Seconds as a person reads them (`5 s`, `0.2 s`). */
function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/**
 * A client of one instance. `get` answers any HTTP status (the caller decides what a 404 means)
 * and throws InstanceUnreachable for everything else, its message masked.
 */
export class InstanceClient {
  /** When the total timeout ends (a steady clock, ms), set by the first request. */
  private deadline: number | undefined;

  constructor(private readonly options: InstanceClientOptions) {}

  /** `text` with the token (and anything else credential-shaped) masked, wherever it appears. */
  mask(text: string): string {
    return maskTokens(text, { known: [this.options.token] });
  }

  /** GET `<baseUrl><path>`. */
  async get(path: string, options: { withToken?: boolean } = {}): Promise<InstanceAnswer> {
    let url = new URL(this.options.baseUrl + path);
    const origin = url.origin;
    for (let hop = 0; ; hop++) {
      let answer: InstanceAnswer | { redirect: string };
      try {
        answer = await this.once(url, options.withToken ?? true);
      } catch (error) {
        throw new InstanceUnreachable(this.mask(transportFailure(error, url)));
      }
      if (!('redirect' in answer)) return answer;
      let next: URL;
      try {
        next = new URL(answer.redirect, url);
      } catch {
        throw new InstanceUnreachable(`${url.pathname} answered a redirect to an address that is not a URL`);
      }
      if (next.origin !== origin)
        throw new InstanceUnreachable(
          this.mask(
            `${url.pathname} redirects to another origin (${shownOrigin(next)}); not followed, the token stays with ${shownOrigin(url)} (point --url or OPENCLAW_URL at the instance itself)`,
          ),
        );
      if (hop >= MAX_REDIRECTS)
        throw new InstanceUnreachable(`${path} redirected more than ${MAX_REDIRECTS} times; not followed further`);
      url = next;
    }
  }

  /** One request: the answer read whole, or where it redirects to. */
  private once(url: URL, withToken: boolean): Promise<InstanceAnswer | { redirect: string }> {
    const { token, connectTimeoutMs, timeoutMs, maxBytes } = this.options;
    this.deadline ??= performance.now() + timeoutMs;
    const remaining = Math.max(0, this.deadline - performance.now());
    const headers: Record<string, string> = {
      Accept: 'application/json',
      'User-Agent': `bourdon/${packageInfo().version}`,
    };
    if (token && withToken) headers.Authorization = `Bearer ${token}`;
    // node:https (and TLS with it) loaded only for an https instance.
    const transport = url.protocol === 'https:' ? (require('node:https') as typeof Https) : http;
    return new Promise((resolve, reject) => {
      let settled = false;
      const timers: NodeJS.Timeout[] = [];
      const finish = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        for (const timer of timers) clearTimeout(timer);
        outcome();
      };
      const fail = (error: Error) => {
        finish(() => reject(error));
        request.destroy();
      };
      // agent: false — a fresh connection per request: no pooled socket outlives the export.
      const request = transport.request(url, { method: 'GET', headers, agent: false }, (response) => {
        const status = response.statusCode ?? 0;
        const location = response.headers.location;
        if (status >= 300 && status < 400 && location) {
          response.resume();
          finish(() => resolve({ redirect: location }));
          request.destroy();
          return;
        }
        const declared = Number(response.headers['content-length']);
        const tooLarge = () => new AnswerTooLarge(maxBytes);
        if (Number.isFinite(declared) && declared > maxBytes) return fail(tooLarge());
        // A declared length: the body copied into one buffer of that size as it comes, each
        // chunk left to the young generation (kept in a list, they outlive its collections, and
        // the body is in memory twice while they are joined). Else the chunks, joined at the end.
        const whole = Number.isInteger(declared) && declared >= 0 ? Buffer.allocUnsafe(declared) : undefined;
        let copied = 0;
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) return fail(tooLarge());
          if (whole !== undefined && size <= whole.length) copied += chunk.copy(whole, copied);
          else chunks.push(chunk);
        });
        const body = (): Buffer => {
          if (whole === undefined) return Buffer.concat(chunks);
          return chunks.length === 0
            ? whole.subarray(0, copied)
            : Buffer.concat([whole.subarray(0, copied), ...chunks]);
        };
        response.on('end', () => finish(() => resolve({ status, body: body() })));
        response.on('error', (error) => fail(error));
        response.on('aborted', () => fail(new InstanceUnreachable(`${url.pathname}: the answer was cut off`)));
      });
      request.on('error', (error) => fail(error));
      timers.push(setTimeout(() => fail(new RemoteTimeout(connectTimeoutMs, 'connection')), connectTimeoutMs));
      request.on('socket', (socket) => {
        const connected = () => clearTimeout(timers[0]);
        if (!socket.connecting) connected();
        else socket.once('connect', connected);
      });
      timers.push(setTimeout(() => fail(new RemoteTimeout(timeoutMs, 'answer')), remaining));
      request.end();
    });
  }
}
