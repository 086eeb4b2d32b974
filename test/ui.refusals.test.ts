/**
 * Issue 41: the page's refusal pages are styled — the stylesheet they link is served where
 * they link it, outside the secret path — and never name the secret path themselves.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../src/core/context.js';
import { LibraryStore } from '../src/core/store/library.js';
import { OPERATOR } from '../src/core/trust/caller.js';
import { startUiServer } from '../src/ui/server.js';
import { copyFixtureLibrary } from './helpers/fixtures.js';
import { rawRequest } from './helpers/ui.js';

let library: string;
beforeAll(() => {
  library = copyFixtureLibrary();
});
afterAll(() => fs.rmSync(library, { recursive: true, force: true }));

describe('a refusal page', () => {
  it('loads its stylesheet (200, text/css) and never shows the secret path', async () => {
    const store = new LibraryStore(library, { warn: () => {} });
    const ctx = createContext(store, { caller: OPERATOR, warn: () => {}, env: {} });
    const ui = await startUiServer({ ctx, auditPath: '/nonexistent/audit.jsonl', port: 0 });
    try {
      const prefix = new URL(ui.url).pathname.replace(/\/$/, '');
      for (const refused of [
        await rawRequest(ui.port, { path: '/' }),
        await rawRequest(ui.port, { path: `${prefix}/staging` }),
      ]) {
        expect([401, 404]).toContain(refused.status);
        expect(refused.body).not.toContain(prefix);
        const href = /<link rel="stylesheet" href="([^"]+)"/.exec(refused.body)?.[1];
        expect(href).toBeDefined();
        const sheet = await rawRequest(ui.port, { path: href! });
        expect(sheet.status).toBe(200);
        expect(String(sheet.headers['content-type'])).toMatch(/^text\/css/);
        expect(sheet.body).toContain('.badge');
      }
    } finally {
      await ui.close();
    }
  });
});
