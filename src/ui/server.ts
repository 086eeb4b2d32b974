/**
 * The HTTP server behind `bourdon ui`: 127.0.0.1 only, one operator, plain HTML.
 *
 * How it defends itself (docs/ui.md):
 * - The URL it prints carries a one-time token. The first request with it gets a session
 *   cookie (HttpOnly, SameSite=Strict) and a redirect to the same page without the token
 *   (Jupyter's pattern); the token then stops working. Every other request needs the cookie.
 * - Host must be this server's own 127.0.0.1 or localhost address (DNS rebinding), and an
 *   Origin header, when sent, must be this server's origin. Writes must send one.
 * - Every write is a POST carrying the session's CSRF token, compared in constant time.
 * - A strict Content-Security-Policy: scripts, styles and images only from this server, no
 *   inline script, no framing, forms only to this server. Nothing is fetched from elsewhere.
 *
 * This file listens and takes one request through the guards, the sign-in (session.ts), then a
 * write (form-writes.ts) or a view (routes.ts); how each answer is sent is responses.ts.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { OperationContext } from '../core/context.js';
import { BourdonError, describeError, httpStatusOf } from '../core/errors.js';
import { message, type Flash } from './layout.js';
import { openLinkChannel } from './link-channel.js';
import { formWrite, readForm } from './form-writes.js';
import { renderPage } from './routes.js';
import { ASSETS, REFUSAL_STYLESHEET, assetsDir, redirect, refuse, send, sendAsset, underPrefix } from './responses.js';
import { cookieValue, sameSecret, SignIn, type Session } from './session.js';

const UI_HOST = '127.0.0.1';

interface UiServerOptions {
  ctx: OperationContext;
  auditPath: string;
  port: number;
  /** Milliseconds of inactivity after which the session ends (default 30 minutes). */
  idleMs?: number;
  /** The clock sessions expire by (injectable for tests); default `Date.now`. */
  now?: () => number;
  /** Where to offer new one-time links to a later `bourdon ui` (link-channel.ts); none when absent. */
  linkSocket?: string | null;
}

/** A session unused this long is over: a leaked cookie is useful for minutes, not days. */
const DEFAULT_IDLE_MS = 30 * 60 * 1000;

interface RunningUi {
  /** The URL to open, with the one-time token. */
  url: string;
  origin: string;
  port: number;
  close(): Promise<void>;
}

/** What every request is answered with: the options, the secret path, the sign-in, the port once bound. */
interface Page {
  options: UiServerOptions;
  assets: string;
  /**
   * The page lives under a random path, and its cookie is scoped to it: browsers send a
   * 127.0.0.1 cookie to every port of 127.0.0.1, so another local listener could otherwise
   * receive (and replay) it. Under this prefix it is sent to no other path, on any port.
   */
  prefix: string;
  signIn: SignIn;
  port: number;
}

const cookieName = (page: Page) => `bourdon_ui_${page.port}`;

/**
 * Host must be this server's own 127.0.0.1 or localhost address (DNS rebinding), and an Origin,
 * when sent, this server's origin. Returns the request's URL, or null when it was refused.
 */
function checkedUrl(page: Page, req: http.IncomingMessage, res: http.ServerResponse): URL | null {
  const host = req.headers.host ?? '';
  if (!new Set([`${UI_HOST}:${page.port}`, `localhost:${page.port}`]).has(host)) {
    refuse(res, 403, 'This page answers only at its own 127.0.0.1 address.');
    return null;
  }
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `http://${host}`) {
    refuse(res, 403, 'Requests from other sites are refused.');
    return null;
  }
  return new URL(req.url ?? '/', `http://${host}`);
}

/**
 * The one-time token: exchanged once for the session cookie, then useless. Only a GET
 * exchanges it: a HEAD (link unfurlers, prefetchers) gets an empty answer and leaves it unused.
 */
function exchangeToken(page: Page, res: http.ServerResponse, url: URL, offered: string, method: string): void {
  if (method === 'HEAD') return send(res, 200, '');
  const signedIn = page.signIn.exchange(offered);
  if ('refused' in signedIn) return refuse(res, signedIn.refused.status, signedIn.refused.text);
  url.searchParams.delete('token');
  redirect(res, page.prefix, `${url.pathname}${url.search}`, {
    'Set-Cookie': `${cookieName(page)}=${signedIn.session.id}; HttpOnly; SameSite=Strict; Path=${page.prefix}`,
  });
}

/** One view in its frame, under the prefix, with the flash on top: its own failure's status if it failed, else `status`. */
async function sendView(
  page: Page,
  res: http.ServerResponse,
  url: URL,
  session: Session,
  flash: Flash | null,
  status: number,
  headOnly: boolean,
): Promise<void> {
  const { ctx, auditPath } = page.options;
  const rendered = await renderPage({ ctx, auditPath, csrf: session.csrf, url, flash }, status);
  send(res, rendered.status, headOnly ? '' : underPrefix(page.prefix, rendered.page));
}

/** A write: this server's own origin, then the session's CSRF token; done, it redirects to its page. */
async function post(
  page: Page,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  url: URL,
  session: Session,
): Promise<void> {
  if (req.headers.origin === undefined) return refuse(res, 403, 'A write must come from this page.');
  const form = await readForm(req);
  if (!form || !sameSecret(form.get('csrf') ?? undefined, session.csrf))
    return refuse(res, 403, 'Missing or wrong form token; nothing was changed. Reload the page and try again.');
  const outcome = await formWrite(page.options.ctx, page.options.auditPath, url.pathname, form);
  if (!outcome.failure) {
    session.flash = outcome.flash;
    return redirect(res, page.prefix, outcome.location);
  }
  // A failed write is not redirected: its page answers with the code's status (409 for a
  // conflict, 429 when busy…), which a 303 would hide from scripts and monitors. The page
  // is the one the form returns to, the message on top; reloading it asks to resend.
  const back = new URL(outcome.location, url);
  return sendView(page, res, back, session, outcome.flash, httpStatusOf(outcome.failure), false);
}

/** One request: the guards, the static files, the sign-in, then a write or a view. */
async function handle(page: Page, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = checkedUrl(page, req, res);
  if (!url) return;
  // The stylesheet alone is also served outside the secret path: the refusal pages (message())
  // link it there, since a refusal must not name the path — it answers those who lack it.
  // It is the package's static CSS: nothing of the library or the session is in it.
  if ((req.method === 'GET' || req.method === 'HEAD') && url.pathname === REFUSAL_STYLESHEET)
    return sendAsset(res, page.assets, REFUSAL_STYLESHEET);
  if (url.pathname !== page.prefix && !url.pathname.startsWith(`${page.prefix}/`))
    return refuse(res, 404, 'Not found. Open the link `bourdon ui` printed.');
  url.pathname = url.pathname.slice(page.prefix.length) || '/';
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') return refuse(res, 405, 'Method not allowed.');
  if (method !== 'POST' && Object.hasOwn(ASSETS, url.pathname)) return sendAsset(res, page.assets, url.pathname);

  const offered = url.searchParams.get('token');
  if (offered !== null && method !== 'POST') return exchangeToken(page, res, url, offered, method);
  const signedIn = page.signIn.resume(cookieValue(req.headers.cookie, cookieName(page)));
  if ('refused' in signedIn) return refuse(res, signedIn.refused.status, signedIn.refused.text);
  const session = signedIn.session;
  if (method === 'POST') return post(page, req, res, url, session);
  const flash = session.flash;
  session.flash = null;
  await sendView(page, res, url, session, flash, 200, method === 'HEAD');
}

/** Listens on 127.0.0.1 at `options.port` (0: any free port); an address in use is one clear error. */
function listen(server: http.Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new BourdonError(
          error.code === 'EADDRINUSE'
            ? `port ${port} on ${UI_HOST} is in use; pick another with --port`
            : `cannot listen on ${UI_HOST}:${port}: ${error.message}`,
          'unavailable',
        ),
      ),
    );
    server.listen(port, UI_HOST, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

export async function startUiServer(options: UiServerOptions): Promise<RunningUi> {
  const page: Page = {
    options,
    assets: assetsDir(),
    prefix: `/${crypto.randomBytes(16).toString('hex')}`,
    signIn: new SignIn(options.idleMs ?? DEFAULT_IDLE_MS, options.now ?? (() => Date.now())),
    port: options.port,
  };
  const server = http.createServer((req, res) => {
    handle(page, req, res).catch((error: unknown) => {
      options.ctx.warn(`ui: ${describeError(error)}`);
      if (!res.headersSent) send(res, 500, message('Error', describeError(error)));
      else res.end();
    });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  page.port = await listen(server, options.port);
  const origin = `http://${UI_HOST}:${page.port}`;
  const link = () => `${origin}${page.prefix}/?token=${page.signIn.token}`;
  // A new link replaces the one not yet used; the session it opens replaces the current one.
  const mint = () => {
    page.signIn.mint();
    return { url: link(), origin, port: page.port, library: options.ctx.store.paths.root };
  };
  const channel = options.linkSocket
    ? await openLinkChannel(options.linkSocket, mint, options.ctx.warn).catch((error: unknown) => {
        options.ctx.warn(`ui: no new links without a restart: ${describeError(error)}`);
        return null;
      })
    : null;
  return {
    url: link(),
    origin,
    port: page.port,
    close: async () => {
      await channel?.close();
      await new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      });
    },
  };
}
