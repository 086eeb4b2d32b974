/**
 * One HTTP exchange between Node and the SDK's web-standard handler: the body read once (the
 * handler gets it parsed and a body-less `Request` carrying the URL, method and headers), and
 * the `Response` written back within the request's time budget.
 *
 * The writing side is ours, not the SDK's `toNodeHandler`: that one has no deadline. Ours
 * answers a request that outlives its budget with a JSON-RPC error carrying the request's id —
 * as the JSON answer, or as the last event of a handshake-era SSE stream already under way —
 * aborts the handler, and closes the connection.
 */
import type http from 'node:http';
import { jsonRpcError, type Rejection } from './guards.js';

export class Exchange {
  /** Fires when the request is answered by the deadline or the client goes away. */
  readonly abort = new AbortController();
  private answered = false;
  private requestId: unknown = null;
  private reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  private streamingSse = false;
  private readonly timer: NodeJS.Timeout;
  private readonly abortListeners: (() => void)[] = [];

  constructor(
    private readonly res: http.ServerResponse,
    timeoutMs: number,
  ) {
    this.timer = setTimeout(() => this.expire(timeoutMs), timeoutMs);
    this.timer.unref();
    res.on('close', () => {
      clearTimeout(this.timer);
      if (this.res.writableFinished) return; // answered in full: nothing left to stop
      // The client went away first: stop waiting, and end a stream under way (the SDK tears
      // its transport down when the stream it returned is cancelled).
      this.abort.abort();
      void this.reader?.cancel().catch(() => {});
    });
  }

  /** Whether an answer went out (or the deadline passed): nothing more may be written. */
  get done(): boolean {
    return this.answered || this.res.writableEnded;
  }

  /**
   * Runs `listener` if the request is given up (deadline, client gone) before finish(), which
   * takes it off again. Taken off, not left to be collected with the exchange: the web Request
   * handed to the SDK follows this signal, and undici keeps the signal (with its listeners)
   * alive from a FinalizationRegistry until that Request is collected, so a listener whose
   * closure reaches the Request would keep both forever, one per call (bench/README.md).
   */
  onAbort(listener: () => void): void {
    this.abortListeners.push(listener);
    this.abort.signal.addEventListener('abort', listener, { once: true });
  }

  /** The JSON-RPC id a late answer carries. */
  setRequestId(id: unknown): void {
    this.requestId = id;
  }

  /** Answers with a refusal, once; the connection is closed after it. */
  refuse(rejection: Rejection): void {
    if (this.answered || this.res.headersSent) return;
    this.answered = true;
    const body = JSON.stringify(rejection.body);
    this.res.writeHead(rejection.status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      ...rejection.headers,
      connection: 'close',
    });
    this.res.end(body);
  }

  /**
   * Writes the handler's response: an SSE stream as it comes, with backpressure; any other
   * answer (one JSON document, produced whole) read first and written in one piece with its
   * length, so headers and body leave in one write rather than as chunks.
   */
  async send(response: Response): Promise<void> {
    if (this.answered || this.abort.signal.aborted) {
      void response.body?.cancel().catch(() => {});
      return;
    }
    this.streamingSse = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    if (!this.streamingSse) {
      const body = response.body ? Buffer.from(await response.arrayBuffer()) : null;
      if (this.answered || this.abort.signal.aborted) return; // the deadline answered, or the client left
      this.answered = true;
      const headers = endToEndHeaders(response.headers);
      if (body) headers['content-length'] = String(body.byteLength);
      this.res.writeHead(response.status, headers);
      this.res.end(body ?? undefined);
      return;
    }
    this.answered = true;
    this.res.writeHead(response.status, endToEndHeaders(response.headers));
    if (!response.body) {
      this.res.end();
      return;
    }
    this.reader = response.body.getReader();
    for (;;) {
      const { done, value } = await this.reader.read();
      if (done || this.res.writableEnded || this.res.destroyed) break;
      if (!this.res.write(value))
        await new Promise<void>((resolve) => this.res.once('drain', resolve).once('close', resolve));
    }
    if (!this.res.writableEnded) this.res.end();
  }

  /** After an unexpected failure: a 500 if nothing was sent yet, else the end of what was. */
  fail(): void {
    if (!this.res.headersSent)
      this.refuse({ status: 500, body: jsonRpcError(-32603, 'internal error', this.requestId) });
    else if (!this.res.writableEnded) this.res.end();
  }

  finish(): void {
    clearTimeout(this.timer);
    for (const listener of this.abortListeners.splice(0)) this.abort.signal.removeEventListener('abort', listener);
  }

  private expire(timeoutMs: number): void {
    if (this.res.writableEnded) return;
    const payload = jsonRpcError(
      -32603,
      `request timed out after ${Math.round(timeoutMs / 100) / 10} s`,
      this.requestId,
    );
    if (!this.res.headersSent) {
      this.refuse({ status: 200, body: payload });
    } else {
      // Already streaming (the handshake era answers over SSE): end with the error as the last event.
      if (this.streamingSse) this.res.write(`event: message\ndata: ${JSON.stringify(payload)}\n\n`);
      this.res.end();
    }
    this.answered = true;
    this.abort.abort();
    void this.reader?.cancel().catch(() => {});
  }
}

/**
 * The response's headers without the hop-by-hop ones: Node runs the connection (the SDK's SSE
 * answer says `connection: keep-alive`, which would override a client's `Connection: close`).
 */
function endToEndHeaders(headers: Headers): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of headers) if (!HOP_BY_HOP.has(name)) kept[name] = value;
  return kept;
}
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding']);

type ReadOutcome = { tooLarge: true } | { tooLarge: false; text: string };

/**
 * Reads the body, at most `maxBodyBytes` (a declared or actual larger one is refused unread
 * past the limit), as UTF-8 text (invalid bytes become U+FFFD, as the SDK's reader does).
 */
export async function readRequest(req: http.IncomingMessage, maxBodyBytes: number): Promise<ReadOutcome> {
  if (Number(req.headers['content-length']) > maxBodyBytes) return { tooLarge: true };
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    received += chunk.byteLength;
    if (received > maxBodyBytes) return { tooLarge: true };
    chunks.push(chunk);
  }
  return { tooLarge: false, text: Buffer.concat(chunks, received).toString('utf8') };
}

/**
 * The web `Request` the SDK handler gets, built once: the same URL, method and headers, the
 * exchange's signal (the SDK tears a handshake-era transport down when it fires: deadline or
 * client gone), and no Authorization header (the caller is already resolved; the token goes no
 * further). `body` is the text as read, or null when the handler is given the parsed JSON
 * instead (its `parsedBody` option: it then reads no body, so none is copied into one).
 */
export function forwardRequest(req: http.IncomingMessage, signal: AbortSignal, body: string | null): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === 'authorization' || name.startsWith(':')) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  const url = `http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`;
  return new Request(url, { method: req.method ?? 'POST', headers, signal, ...(body === null ? {} : { body }) });
}
