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
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { OperationContext } from '../core/context.js';
import { BourdonError, codeOf, describeError, httpStatusOf, type ErrorCode } from '../core/errors.js';
import { isValidAgentId } from '../core/store/ids.js';
import { promoteStaged, promotionSummary, rejectStaged } from '../core/writes/staging.js';
import { invoke } from '../core/operations/invoke.js';
import { rollbackAgentMemoryOperation } from '../core/operations/write-operations.js';
import { failed, failureCode } from '../core/payload.js';
import { readCapped } from '../core/fs/read-capped.js';
import { html, query } from './html.js';
import { layout, message, type Flash } from './layout.js';
import { activityView } from './views/activity.js';
import { agentView } from './views/agent.js';
import { agentsView } from './views/agents.js';
import { auditView } from './views/audit.js';
import { errorBox, type View, type ViewRequest } from './views/common.js';
import { historyView, rollbackConfirmView } from './views/history.js';
import { searchView } from './views/search.js';
import { stagingConfirmView, stagingView } from './views/staging.js';
import { workstreamsView } from './views/workstreams.js';
import { packageRoot } from '../core/admin/package-root.js';
import { openLinkChannel } from './link-channel.js';

/** Where a form's write leads: its page and the flash; `failure` when it was not done. */
interface WriteOutcome {
  location: string;
  flash: Flash;
  failure?: ErrorCode;
}

const UI_HOST = '127.0.0.1';
/** Largest form a write may send: three short fields. */
const MAX_FORM_BYTES = 16 * 1024;

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  // same-origin, not no-referrer: with no-referrer Chromium sends `Origin: null` on the page's own form posts.
  'Referrer-Policy': 'same-origin',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

const ASSETS: Record<string, string> = {
  '/assets/style.css': 'text/css; charset=utf-8',
  '/assets/app.js': 'text/javascript; charset=utf-8',
};

/** Where a refusal page (layout.ts message()) loads the stylesheet from: outside the secret path. */
const REFUSAL_STYLESHEET = '/assets/style.css';

/** The folder the package ships the page's CSS and JS in (assets/ui at the package root). */
function assetsDir(): string {
  const dir = path.join(packageRoot(), 'assets', 'ui');
  if (fs.existsSync(path.join(dir, 'style.css'))) return dir;
  throw new BourdonError('the page assets (assets/ui) are missing from this installation', 'internal');
}

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

interface Session {
  id: string;
  csrf: string;
  /** When it was last used (the `now` clock). */
  seen: number;
  flash: Flash | null;
}

function sameSecret(given: string | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq > 0 && pair.slice(0, eq).trim() === name) return pair.slice(eq + 1).trim();
  }
  return undefined;
}

async function readForm(req: http.IncomingMessage): Promise<URLSearchParams | null> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    req.resume();
    return null;
  }
  const body = await readCapped(req, MAX_FORM_BYTES).catch(() => null);
  return body && new URLSearchParams(body.toString('utf8'));
}

export function startUiServer(options: UiServerOptions): Promise<RunningUi> {
  const assets = assetsDir();
  let token = crypto.randomBytes(32).toString('hex');
  // The page lives under a random path, and its cookie is scoped to it: browsers send a
  // 127.0.0.1 cookie to every port of 127.0.0.1, so another local listener could otherwise
  // receive (and replay) it. Under this prefix it is sent to no other path, on any port.
  const prefix = `/${crypto.randomBytes(16).toString('hex')}`;
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  const now = options.now ?? (() => Date.now());
  let tokenUsed = false;
  let session: Session | null = null;
  let port = options.port;
  const cookieName = () => `bourdon_ui_${port}`;

  const send = (
    res: http.ServerResponse,
    status: number,
    body: string,
    headers: Record<string, string> = {},
    type = 'text/html; charset=utf-8',
  ) => {
    res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': type, ...headers });
    res.end(body);
  };
  const refuse = (res: http.ServerResponse, status: number, text: string) =>
    send(res, status, message('Refused', text), status === 405 ? { Allow: 'GET, POST' } : {});
  const redirect = (res: http.ServerResponse, location: string, headers: Record<string, string> = {}) =>
    send(res, 303, '', { Location: `${prefix}${location}`, ...headers });
  /** Every link, form and asset of a page points under the prefix (data values cannot hold a raw `"`). */
  const underPrefix = (page: string) => page.replace(/\b(href|action|src)="\//g, `$1="${prefix}/`);

  const allowedHosts = () => new Set([`${UI_HOST}:${port}`, `localhost:${port}`]);

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const host = req.headers.host ?? '';
    if (!allowedHosts().has(host)) return refuse(res, 403, 'This page answers only at its own 127.0.0.1 address.');
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${host}`)
      return refuse(res, 403, 'Requests from other sites are refused.');
    const url = new URL(req.url ?? '/', `http://${host}`);
    // The stylesheet alone is also served outside the secret path: the refusal pages (message())
    // link it there, since a refusal must not name the path — it answers those who lack it.
    // It is the package's static CSS: nothing of the library or the session is in it.
    if ((req.method === 'GET' || req.method === 'HEAD') && url.pathname === REFUSAL_STYLESHEET)
      return send(res, 200, fs.readFileSync(path.join(assets, 'style.css'), 'utf8'), {}, ASSETS[REFUSAL_STYLESHEET]);
    if (url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`))
      return refuse(res, 404, 'Not found. Open the link `bourdon ui` printed.');
    url.pathname = url.pathname.slice(prefix.length) || '/';
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') return refuse(res, 405, 'Method not allowed.');

    if (method !== 'POST' && ASSETS[url.pathname]) {
      const file = path.join(assets, path.basename(url.pathname));
      return send(res, 200, fs.readFileSync(file, 'utf8'), {}, ASSETS[url.pathname]);
    }

    // The one-time token: exchanged once for the session cookie, then useless. Only a GET
    // exchanges it: a HEAD (link unfurlers, prefetchers) gets an empty answer and leaves it unused.
    const offered = url.searchParams.get('token');
    if (offered !== null && method === 'HEAD') return send(res, 200, '');
    if (offered !== null && method === 'GET') {
      if (tokenUsed || !sameSecret(offered, token))
        return refuse(
          res,
          403,
          tokenUsed
            ? 'This link was already used. Run `bourdon ui` again for a new one.'
            : 'Wrong token. Open the link `bourdon ui` printed.',
        );
      tokenUsed = true;
      session = {
        id: crypto.randomBytes(32).toString('hex'),
        csrf: crypto.randomBytes(32).toString('hex'),
        seen: now(),
        flash: null,
      };
      url.searchParams.delete('token');
      return redirect(res, `${url.pathname}${url.search}`, {
        'Set-Cookie': `${cookieName()}=${session.id}; HttpOnly; SameSite=Strict; Path=${prefix}`,
      });
    }
    const current = session;
    if (!current || !sameSecret(cookieValue(req.headers.cookie, cookieName()), current.id))
      return refuse(res, 401, 'Not signed in. Open the link `bourdon ui` printed in your terminal.');
    if (now() - current.seen > idleMs) {
      session = null;
      return refuse(res, 401, 'This session ended after being idle. Run `bourdon ui` again for a new link.');
    }
    current.seen = now();

    if (method === 'POST') {
      // A write: this server's own origin, then the session's CSRF token.
      if (origin === undefined) return refuse(res, 403, 'A write must come from this page.');
      const form = await readForm(req);
      if (!form || !sameSecret(form.get('csrf') ?? undefined, current.csrf))
        return refuse(res, 403, 'Missing or wrong form token; nothing was changed. Reload the page and try again.');
      const outcome = await write(url.pathname, form);
      if (!outcome.failure) {
        current.flash = outcome.flash;
        return redirect(res, outcome.location);
      }
      // A failed write is not redirected: its page answers with the code's status (409 for a
      // conflict, 429 when busy…), which a 303 would hide from scripts and monitors. The page
      // is the one the form returns to, the message on top; reloading it asks to resend.
      const back = new URL(outcome.location, url);
      return sendView(res, back, current, outcome.flash, httpStatusOf(outcome.failure), false);
    }

    const flash = current.flash;
    current.flash = null;
    await sendView(res, url, current, flash, 200, method === 'HEAD');
  }

  /** One view with the flash on top: its own failure's status if it failed, else `status`. */
  async function sendView(
    res: http.ServerResponse,
    url: URL,
    current: Session,
    flash: Flash | null,
    status: number,
    headOnly: boolean,
  ): Promise<void> {
    const render = ROUTES[url.pathname];
    if (!render)
      return send(
        res,
        404,
        underPrefix(layout({ title: 'Not found', body: html`<h1>Not found</h1>` }, url.pathname, flash)),
      );
    const viewRequest: ViewRequest = {
      ctx: options.ctx,
      params: url.searchParams,
      now: options.ctx.now(),
      csrf: current.csrf,
      auditPath: options.auditPath,
    };
    const view = await viewOrFailure(render, viewRequest);
    const answered = view.failure ? httpStatusOf(view.failure) : status;
    send(res, answered, headOnly ? '' : underPrefix(layout(view, url.pathname, flash)));
  }

  /** The writes, each through the same core operation as its CLI command, as the operator. */
  async function write(pathname: string, form: URLSearchParams): Promise<WriteOutcome> {
    const agent = form.get('agent') ?? '';
    const fail = (location: string, text: string, failure: ErrorCode = 'invalid_input'): WriteOutcome => {
      if (failure === 'internal') options.ctx.warn(`ui: ${text}`);
      return { location, flash: { kind: 'error', text }, failure };
    };
    if (!isValidAgentId(agent)) return fail('/', `not a valid agent id: ${agent}`);
    try {
      if (pathname === '/staging/promote') {
        // Only what the confirm page showed: its digest of the staged files, which must still match.
        const digest = form.get('digest') ?? '';
        if (!/^[0-9a-f]{64}$/.test(digest))
          return fail(
            '/staging',
            'this promotion does not say which staged writes were reviewed; nothing was promoted',
          );
        const result = await promoteStaged(options.ctx, agent, { digest });
        return { location: '/staging', flash: { kind: 'ok', text: promotionSummary(result) } };
      }
      if (pathname === '/staging/reject') {
        // Only what the confirm page listed: writes staged after it are not deleted unread.
        const digest = form.get('digest') ?? '';
        if (!/^[0-9a-f]{64}$/.test(digest))
          return fail(
            '/staging',
            'this rejection does not say which staged writes were reviewed; nothing was rejected',
          );
        const result = await rejectStaged(options.ctx.store, agent, {
          auditPath: options.auditPath,
          actor: options.ctx.caller.agent_id,
          digest,
        });
        return {
          location: '/staging',
          flash: { kind: 'ok', text: `rejected ${result.rejected} staged write(s) for ${result.agent_id}` },
        };
      }
      if (pathname === '/history/rollback') {
        const version = Number(form.get('version'));
        const back = `/history${query({ agent })}`;
        if (!Number.isInteger(version) || version < 1) return fail(back, 'the version must be a positive whole number');
        const reason = (form.get('reason') ?? '').trim();
        const payload = await invoke(rollbackAgentMemoryOperation, options.ctx, {
          agent_id: agent,
          version,
          reason: reason || null,
        });
        if (failed(payload)) return fail(back, payload.error, failureCode(payload));
        return {
          location: `/history${query({ agent, version: String(payload.version) })}`,
          flash: {
            kind: 'ok',
            text: `restored ${agent} to version ${version}, recorded as version ${String(payload.version)}`,
          },
        };
      }
    } catch (error) {
      const back = pathname.startsWith('/history') ? `/history${query({ agent })}` : '/staging';
      return fail(back, describeError(error), codeOf(error));
    }
    return fail('/', 'unknown action', 'not_found');
  }

  const ROUTES: Record<string, (req: ViewRequest) => Promise<View>> = {
    '/': agentsView,
    '/agents': agentsView,
    '/activity': activityView,
    '/workstreams': workstreamsView,
    '/staging': stagingView,
    '/staging/confirm': stagingConfirmView,
    '/agent': agentView,
    '/history': historyView,
    '/history/confirm': rollbackConfirmView,
    '/audit': auditView,
    '/search': searchView,
  };

  /**
   * A view, or the failure it threw shown in the page (its header and navigation, the way back),
   * with the code's HTTP status: 500 only for a bug (core/errors.ts codeOf).
   */
  async function viewOrFailure(render: (req: ViewRequest) => Promise<View>, req: ViewRequest): Promise<View> {
    try {
      return await render(req);
    } catch (error) {
      const failure = codeOf(error);
      if (failure === 'internal') options.ctx.warn(`ui: ${describeError(error)}`);
      const title = failure === 'internal' ? 'Error' : 'Not possible';
      return {
        title,
        body: html`<h1>${title}</h1>
          ${errorBox(describeError(error))}`,
        failure,
      };
    }
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.ctx.warn(`ui: ${describeError(error)}`);
      if (!res.headersSent) send(res, 500, message('Error', describeError(error)));
      else res.end();
    });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;

  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new BourdonError(
          error.code === 'EADDRINUSE'
            ? `port ${options.port} on ${UI_HOST} is in use; pick another with --port`
            : `cannot listen on ${UI_HOST}:${options.port}: ${error.message}`,
          'unavailable',
        ),
      ),
    );
    server.listen(options.port, UI_HOST, () => {
      const address = server.address();
      port = typeof address === 'object' && address ? address.port : options.port;
      const origin = `http://${UI_HOST}:${port}`;
      const link = () => `${origin}${prefix}/?token=${token}`;
      // A new link replaces the one not yet used; the session it opens replaces the current one.
      const mint = () => {
        token = crypto.randomBytes(32).toString('hex');
        tokenUsed = false;
        return { url: link(), origin, port, library: options.ctx.store.paths.root };
      };
      const channel = options.linkSocket
        ? openLinkChannel(options.linkSocket, mint, options.ctx.warn).catch((error: unknown) => {
            options.ctx.warn(`ui: no new links without a restart: ${describeError(error)}`);
            return null;
          })
        : Promise.resolve(null);
      void channel.then((opened) =>
        resolve({
          url: link(),
          origin,
          port,
          close: async () => {
            await opened?.close();
            await new Promise<void>((done) => {
              server.closeAllConnections();
              server.close(() => done());
            });
          },
        }),
      );
    });
  });
}
