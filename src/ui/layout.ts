/**
 * The frame around every view of `bourdon ui`: the document head (one stylesheet, one deferred
 * script), the skip link, the navigation with the current view marked, the note that the page
 * is local, and the flash a write leaves; and the bare page a refusal or an error answers with.
 */
import { html, type SafeHtml } from './html.js';
import type { View } from './views/common.js';

/** What a write tells the next page it renders. */
export interface Flash {
  kind: 'ok' | 'error';
  text: string;
}

const NAV: [string, string][] = [
  ['/', 'Agents'],
  ['/activity', 'Activity'],
  ['/workstreams', 'Workstreams'],
  ['/staging', 'Staging'],
  ['/history', 'History'],
  ['/audit', 'Audit'],
];

/** The view a path belongs to, for the navigation's mark; none for a page outside it (search). */
function section(pathname: string): string | null {
  if (pathname === '/' || pathname === '/agents' || pathname === '/agent') return '/';
  const match = NAV.find(([href]) => href !== '/' && (pathname === href || pathname.startsWith(`${href}/`)));
  return match ? match[0] : null;
}

export function layout(view: View, pathname: string, flash: Flash | null): string {
  const active = section(pathname);
  return `<!doctype html>\n${
    html`<html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${view.title} · bourdon ui</title>
        <link rel="stylesheet" href="/assets/style.css" />
        <script src="/assets/app.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header>
          <p class="brand">bourdon ui</p>
          <nav aria-label="Views">
            <ul>
              ${NAV.map(
                ([href, label]) =>
                  html`<li><a href="${href}" ${href === active ? html` aria-current="page"` : ''}>${label}</a></li>`,
              )}
            </ul>
          </nav>
          <form class="search" method="get" action="/search" role="search">
            <label class="visually-hidden" for="site-search">Search everything agents remember</label>
            <input type="search" id="site-search" name="q" placeholder="Search memory" maxlength="200" />
            <button type="submit">Search</button>
          </form>
        </header>
        <p class="local-note">
          Served only to this machine (127.0.0.1), so it shows private rows; nothing here leaves this computer.
        </p>
        <main id="main" tabindex="-1">
          ${flash ? html`<p class="flash ${flash.kind}" role="status">${flash.text}</p>` : ''}${view.body}
        </main>
      </body>
    </html>`.value
  }\n`;
}

export function message(title: string, text: SafeHtml | string): string {
  return `<!doctype html>\n${
    html`<html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · bourdon ui</title>
        <link rel="stylesheet" href="/assets/style.css" />
      </head>
      <body>
        <main id="main">
          <h1>${title}</h1>
          <p>${text}</p>
        </main>
      </body>
    </html>`.value
  }\n`;
}
