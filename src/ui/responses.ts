/**
 * How `bourdon ui` answers: every response with the same security headers (a strict
 * Content-Security-Policy: scripts, styles and images only from this server, no inline script,
 * no framing, forms only to this server), a refusal as a bare page, a redirect and every link
 * of a page under the page's secret path, and the package's static CSS and JS.
 */
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { BourdonError } from '../core/errors.js';
import { packageRoot } from '../core/admin/package-root.js';
import { message } from './layout.js';

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

/** The page's static files, by the path they are served at (under the secret path). */
export const ASSETS: Record<string, string> = {
  '/assets/style.css': 'text/css; charset=utf-8',
  '/assets/app.js': 'text/javascript; charset=utf-8',
};

/** Where a refusal page (layout.ts message()) loads the stylesheet from: outside the secret path. */
export const REFUSAL_STYLESHEET = '/assets/style.css';

/** The folder the package ships the page's CSS and JS in (assets/ui at the package root). */
export function assetsDir(): string {
  const dir = path.join(packageRoot(), 'assets', 'ui');
  if (fs.existsSync(path.join(dir, 'style.css'))) return dir;
  throw new BourdonError('the page assets (assets/ui) are missing from this installation', 'internal');
}

/** One static file of `assets` (the folder assetsDir() found), by its served path. */
export function sendAsset(res: http.ServerResponse, assets: string, served: string): void {
  send(res, 200, fs.readFileSync(path.join(assets, path.basename(served)), 'utf8'), {}, ASSETS[served]);
}

export function send(
  res: http.ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
  type = 'text/html; charset=utf-8',
): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': type, ...headers });
  res.end(body);
}

/** A refusal: a bare page saying why, which names nothing of the secret path. */
export function refuse(res: http.ServerResponse, status: number, text: string): void {
  send(res, status, message('Refused', text), status === 405 ? { Allow: 'GET, POST' } : {});
}

/** A 303 to `location` under the secret path `prefix`. */
export function redirect(
  res: http.ServerResponse,
  prefix: string,
  location: string,
  headers: Record<string, string> = {},
): void {
  send(res, 303, '', { Location: `${prefix}${location}`, ...headers });
}

/** Every link, form and asset of a page pointed under `prefix` (data values cannot hold a raw `"`). */
export function underPrefix(prefix: string, page: string): string {
  return page.replace(/\b(href|action|src)="\//g, `$1="${prefix}/`);
}
