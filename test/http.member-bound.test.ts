/**
 * The bound on one member's concurrent calls over HTTP: beyond its running and waiting calls a
 * member is refused at once (429 with Retry-After), other members are served, and a waiting
 * call runs when a running one ends. Checked by counting slots (held by the test through the
 * server's own MemberConcurrency), never by timing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNKNOWN_CALLER } from '../src/core/trust/caller.js';
import { LibraryStore } from '../src/core/store/library.js';
import { FederationRegistry } from '../src/core/trust/registry.js';
import { runHttpServer, type HttpServerHandle } from '../src/mcp/http.js';
import { MemberConcurrency } from '../src/mcp/http/concurrency.js';
import { createMcpServer } from '../src/mcp/server.js';
import { copyFixtureLibrary, tempDir } from './helpers/fixtures.js';
import { TOOLS_LIST_BODY, mcpHeaders } from './helpers/http.js';

describe('MemberConcurrency on its own', () => {
  it('runs inFlight, queues `queued`, refuses the rest; per member; a waiting call starts when one ends', async () => {
    const bound = new MemberConcurrency({ inFlight: 1, queued: 2, retryAfterSeconds: 3 });
    const started: string[] = [];
    const first = bound.enter('a')!;
    const second = bound.enter('a')!;
    const third = bound.enter('a')!;
    void second.ready.then(() => started.push('second'));
    void third.ready.then(() => started.push('third'));
    expect(bound.enter('a')).toBeNull();
    expect(bound.load('a')).toEqual({ running: 1, waiting: 2 });
    // Another member is not affected.
    const other = bound.enter('b')!;
    await other.ready;
    expect(bound.load('b')).toEqual({ running: 1, waiting: 0 });
    // A waiting call given up leaves the queue; the next one in order starts when the running one ends.
    second.leave();
    first.leave();
    await third.ready;
    expect(started).toEqual(['third']);
    expect(bound.load('a')).toEqual({ running: 1, waiting: 0 });
    third.leave();
    third.leave(); // idempotent
    other.leave();
    expect(bound.load('a')).toEqual({ running: 0, waiting: 0 });
    expect(bound.enter('a')).not.toBeNull();
  });
});

describe("a member's queued call starts on a later turn", () => {
  it('so what other members had pending in the turn that freed the slot runs first', async () => {
    // A member whose queue ran call after call in one turn of the event loop kept every other
    // member's next step (an answer read, a file stat) waiting behind all of them.
    const bound = new MemberConcurrency({ inFlight: 1, queued: 4, retryAfterSeconds: 1 });
    const order: string[] = [];
    const running = bound.enter('flooder')!;
    const queued = bound.enter('flooder')!;
    void queued.ready.then(() => order.push('queued call'));
    await new Promise((resolve) => setImmediate(resolve));
    setImmediate(() => order.push("another member's step"));
    running.leave();
    await queued.ready;
    expect(order).toEqual(["another member's step", 'queued call']);
    // It is counted as running at once: a call given up before it starts frees the slot.
    expect(bound.load('flooder')).toEqual({ running: 1, waiting: 0 });
    queued.leave();
    expect(bound.load('flooder')).toEqual({ running: 0, waiting: 0 });
  });
});

describe('the bound on a real server', () => {
  let library: string;
  let home: string;
  let server: HttpServerHandle;
  let bound: MemberConcurrency;
  let flooder: string;
  let other: string;

  beforeAll(async () => {
    library = copyFixtureLibrary();
    home = tempDir('bourdon-bound-home-');
    const registry = new FederationRegistry(path.join(home, 'federation.yaml'), { warn: () => {} });
    flooder = registry.add('flooder', { tier: 'trusted' }).token;
    other = registry.add('other', { tier: 'trusted' }).token;
    const store = new LibraryStore(library, { warn: () => {} });
    bound = new MemberConcurrency({ inFlight: 1, queued: 1, retryAfterSeconds: 2 });
    server = await runHttpServer(
      () => createMcpServer(store, { fallbackCaller: UNKNOWN_CALLER, auditPath: null, warn: () => {} }),
      { port: 0, registry, memberConcurrency: bound, warn: () => {} },
    );
  });
  afterAll(async () => {
    await server?.close();
    fs.rmSync(library, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  const post = (token: string) =>
    fetch(server.url, { method: 'POST', headers: mcpHeaders(token), body: TOOLS_LIST_BODY });

  it('a member over its bound gets 429 with Retry-After; another member is served; freed, it is served again', async () => {
    // The flooder's running and waiting calls, held by the test.
    const running = bound.enter('flooder')!;
    const waiting = bound.enter('flooder')!;
    const refused = await post(flooder);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(await refused.json()).toEqual({ error: 'too many concurrent calls from this member; retry later' });
    const served = await post(other);
    expect(served.status).toBe(200);
    waiting.leave();
    running.leave();
    expect((await post(flooder)).status).toBe(200);
    expect(bound.load('flooder')).toEqual({ running: 0, waiting: 0 });
  });

  it('a call that waits runs once the running one ends', async () => {
    const running = bound.enter('flooder')!;
    const queued = post(flooder);
    // The request is counted as waiting before it runs.
    while (bound.load('flooder').waiting === 0) await new Promise((resolve) => setImmediate(resolve));
    running.leave();
    expect((await queued).status).toBe(200);
  });
});
