/**
 * What a served call leaves behind: nothing of it may outlive the call. The web Request each
 * call hands the SDK follows the exchange's abort signal, and undici keeps that signal, with
 * whatever listens on it, alive from a FinalizationRegistry until the Request is collected: a
 * listener that reached the Request kept both forever, one per call (a long-running server grew
 * without bound). Counted by finalisation after forced collections, not by memory figures.
 */
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNKNOWN_CALLER } from '../src/core/trust/caller.js';
import { LibraryStore } from '../src/core/store/library.js';
import { FederationRegistry } from '../src/core/trust/registry.js';
import { runHttpServer, type HttpServerHandle } from '../src/mcp/http.js';
import { createMcpServer } from '../src/mcp/server.js';
import { copyFixtureLibrary, tempDir } from './helpers/fixtures.js';
import { mcpHeaders } from './helpers/http.js';

v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;

const CALLS = 120;
/** Requests made for the server (the global Request, wrapped to count them), and those collected. */
let made = 0;
let collected = 0;
const OriginalRequest = globalThis.Request;
const finalised = new FinalizationRegistry<null>(() => collected++);

describe('a served call', () => {
  let server: HttpServerHandle;
  let token: string;

  beforeAll(async () => {
    const home = tempDir('bourdon-retention-home-');
    const registry = new FederationRegistry(path.join(home, 'federation.yaml'), { warn: () => {} });
    token = registry.add('caller', { tier: 'trusted' }).token;
    const store = new LibraryStore(copyFixtureLibrary(), { warn: () => {} });
    server = await runHttpServer(
      () => createMcpServer(store, { fallbackCaller: UNKNOWN_CALLER, auditPath: null, warn: () => {} }),
      { port: 0, registry, warn: () => {} },
    );
    globalThis.Request = class CountedRequest extends OriginalRequest {
      constructor(...args: ConstructorParameters<typeof OriginalRequest>) {
        super(...args);
        made++;
        finalised.register(this, null);
      }
    };
  });
  afterAll(async () => {
    globalThis.Request = OriginalRequest;
    await server?.close();
  });

  it('leaves no Request (nor what it reaches) alive once answered', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'find_entity', arguments: { name: 'Bourdon' } },
    });
    // Sent 8 at a time, so calls wait in the admission queue as they do under load.
    for (let sent = 0; sent < CALLS; sent += 8)
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          const response = await fetch(server.url, { method: 'POST', headers: mcpHeaders(token), body });
          expect(response.status).toBe(200);
          await response.text();
        }),
      );
    expect(made).toBeGreaterThanOrEqual(CALLS);
    // Finalisation callbacks run after a collection, on later turns of the event loop.
    for (let round = 0; round < 20 && collected < made; round++) {
      collectGarbage();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // Every Request but a few the last calls' sockets may still hold is gone.
    expect(made - collected).toBeLessThan(8);
  });
});
