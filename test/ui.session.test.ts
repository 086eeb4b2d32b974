/**
 * The page's session ends after it is left idle (an injected clock, no waiting): a cookie that
 * leaked stops working, and each use keeps a live session going.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../src/core/context.js';
import { LibraryStore } from '../src/core/store/library.js';
import { OPERATOR } from '../src/core/trust/caller.js';
import { startUiServer } from '../src/ui/server.js';
import { baseEnv } from './helpers/cli.js';
import { BIN, copyFixtureLibrary } from './helpers/fixtures.js';
import { fakeOpener, rawRequest } from './helpers/ui.js';

let library: string;
beforeAll(() => {
  library = copyFixtureLibrary();
});
afterAll(() => fs.rmSync(library, { recursive: true, force: true }));

describe('the page session', () => {
  it('ends after the idle lifetime; each request renews it', async () => {
    let now = 1_000_000;
    const store = new LibraryStore(library, { warn: () => {} });
    const ctx = createContext(store, { caller: OPERATOR, warn: () => {}, env: {} });
    const ui = await startUiServer({
      ctx,
      auditPath: '/nonexistent/audit.jsonl',
      port: 0,
      idleMs: 60_000,
      now: () => now,
    });
    try {
      const link = new URL(ui.url);
      const first = await rawRequest(ui.port, { path: `${link.pathname}${link.search}` });
      expect(first.status).toBe(303);
      const cookie = String(first.headers['set-cookie']).split(';')[0]!;
      const page = `${link.pathname}staging`;
      now += 59_000;
      expect((await rawRequest(ui.port, { path: page, headers: { Cookie: cookie } })).status).toBe(200);
      now += 59_000; // idle 59 s again: still alive, since the last request renewed it
      expect((await rawRequest(ui.port, { path: page, headers: { Cookie: cookie } })).status).toBe(200);
      now += 60_001;
      const expired = await rawRequest(ui.port, { path: page, headers: { Cookie: cookie } });
      expect(expired.status).toBe(401);
      expect(expired.body).toContain('ended after being idle');
      now += 1;
      expect((await rawRequest(ui.port, { path: page, headers: { Cookie: cookie } })).status).toBe(401);
    } finally {
      await ui.close();
    }
  });
});

describe('bourdon ui --open', () => {
  it('hands the opener a private file that redirects, never the token in its argv', async () => {
    const opener = fakeOpener();
    const child = spawn(process.execPath, [BIN, 'ui', '--open', '--port', '0', '--library', library], {
      env: baseEnv({ PATH: `${opener.bin}:${process.env.PATH}` }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    try {
      const record = (await opener.opened())!;
      const token = /token=([0-9a-f]+)/.exec(stdout)![1];
      expect(record.argv).toMatch(/^file:\/\/.*open\.html$/);
      expect(record.argv).not.toContain(token);
      expect(record.mode).toBe('600');
      expect(record.content).toContain(`url=${/(http:\/\/\S+token=[0-9a-f]+)/.exec(stdout)![1]}`);
    } finally {
      child.kill('SIGINT');
      await new Promise((resolve) => child.on('exit', resolve));
      fs.rmSync(opener.bin, { recursive: true, force: true });
    }
  });
});
