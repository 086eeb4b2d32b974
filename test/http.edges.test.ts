/**
 * Issue 14's HTTP edges, each over a real server on a loopback port: a BOM-prefixed batch,
 * an absolute-form request target, the connection after a 401, slow headers, a short legacy
 * token, and the failed-auth limit.
 */
import fs from 'node:fs';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNKNOWN_CALLER } from '../src/core/trust/caller.js';
import { LibraryStore } from '../src/core/store/library.js';
import { BindRefusedError, runHttpServer, type HttpServerHandle, type HttpServerOptions } from '../src/mcp/http.js';
import { addressKey } from '../src/mcp/http/address.js';
import { FailedAuthLimiter } from '../src/mcp/http/auth.js';
import { createMcpServer } from '../src/mcp/server.js';
import { FederationRegistry } from '../src/core/trust/registry.js';
import { copyFixtureLibrary, tempDir } from './helpers/fixtures.js';
import path from 'node:path';
import { TOOLS_LIST_BODY, mcpHeaders, rawRequest } from './helpers/http.js';

const TOKEN = 'edge-legacy-token-0123456789abcdef0123';
let library: string;
let store: LibraryStore;
const warnings: string[] = [];
const handles: HttpServerHandle[] = [];

async function start(options: HttpServerOptions = {}): Promise<HttpServerHandle> {
  const handle = await runHttpServer(
    () => createMcpServer(store, { fallbackCaller: UNKNOWN_CALLER, auditPath: null, warn: (m) => warnings.push(m) }),
    { port: 0, registry: null, legacyToken: TOKEN, warn: (m) => warnings.push(m), ...options },
  );
  handles.push(handle);
  return handle;
}

/** Writes raw bytes on a fresh socket; resolves with what came back and whether the server closed it in time. */
function rawExchange(
  port: number,
  send: (socket: net.Socket) => void,
  waitMs: number,
  localAddress?: string,
): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port, localAddress });
    let text = '';
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, closed });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', (error) => (settled ? undefined : reject(error)));
    socket.on('connect', () => send(socket));
  });
}

function statusOf(text: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
}

beforeAll(() => {
  library = copyFixtureLibrary();
  store = new LibraryStore(library, { warn: () => {} });
});
afterAll(async () => {
  await Promise.all(handles.map((handle) => handle.close()));
  expect(warnings.join('\n')).not.toContain(TOKEN);
  fs.rmSync(library, { recursive: true, force: true });
});

describe('a JSON-RPC batch behind a byte-order mark', () => {
  it('is refused like any batch (400, −32600), with one BOM or several', async () => {
    const server = await start();
    const batch = JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
    ]);
    for (const body of [`\ufeff${batch}`, `\ufeff\ufeff${batch}`]) {
      const answer = await rawRequest(server.url, {
        headers: mcpHeaders(TOKEN, { host: `127.0.0.1:${server.port}` }),
        body,
      });
      expect(answer.status).toBe(400);
      expect(answer.json()).toMatchObject({ error: { code: -32600 } });
    }
    // A single request behind a BOM is still served.
    const single = await rawRequest(server.url, {
      headers: mcpHeaders(TOKEN, { host: `127.0.0.1:${server.port}` }),
      body: `\ufeff${TOOLS_LIST_BODY}`,
    });
    expect(single.status).toBe(200);
  });
});

describe('an absolute-form request target', () => {
  it('POST http://evil.com/mcp with a valid Host and token is 400, not 500, and logs nothing', async () => {
    const server = await start();
    const before = warnings.length;
    const body = TOOLS_LIST_BODY;
    const answer = await rawExchange(
      server.port,
      (socket) =>
        socket.write(
          `POST http://evil.com/mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAuthorization: Bearer ${TOKEN}\r\n` +
            `Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
            `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        ),
      3_000,
    );
    expect(statusOf(answer.text)).toBe(400);
    expect(answer.text).toContain('bad request target');
    expect(warnings.slice(before)).toEqual([]);
  });
});

describe('slow and refused clients do not keep the socket', () => {
  it('after a 401 the server closes the connection, even with the body still owed', async () => {
    const server = await start();
    const answer = await rawExchange(
      server.port,
      (socket) =>
        socket.write(
          `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAuthorization: Bearer wrong\r\n` +
            `Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc"`,
        ),
      3_000,
    );
    expect(statusOf(answer.text)).toBe(401);
    expect(answer.text.toLowerCase()).toContain('connection: close');
    expect(answer.closed).toBe(true);
  });

  it('headers trickled one byte at a time are cut off at the header timeout', async () => {
    const server = await start({ headersTimeoutMs: 1_000 });
    const header = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nX-Slow: ${'a'.repeat(200)}`;
    let timer: NodeJS.Timeout | undefined;
    let offset = 0;
    const answer = await rawExchange(
      server.port,
      (socket) => {
        timer = setInterval(() => {
          if (offset < header.length && socket.writable) socket.write(header[offset++]!);
        }, 100);
      },
      6_000,
    );
    clearInterval(timer);
    expect(answer.closed).toBe(true);
    // Cut off by the server while the header was still arriving, not after the client finished.
    expect(offset).toBeLessThan(header.length);
  });
});

describe('a short legacy token', () => {
  it('refuses to start off loopback; on loopback it starts and warns, never showing the token', async () => {
    const short = 'a';
    await expect(start({ host: '0.0.0.0', legacyToken: short })).rejects.toThrow(BindRefusedError);
    await expect(start({ host: '0.0.0.0', legacyToken: 'x'.repeat(31) })).rejects.toThrow(
      /BOURDON_PEER_TOKEN_SERVER is 31 characters; bind '0\.0\.0\.0' is network-reachable and needs at least 32/,
    );
    const before = warnings.length;
    const loopback = await start({ legacyToken: 'short-loopback-token' });
    expect(loopback.authMode()).toBe('bearer');
    const warned = warnings.slice(before).join('\n');
    expect(warned).toContain('BOURDON_PEER_TOKEN_SERVER is 20 characters');
    expect(warned).not.toContain('short-loopback-token');
  });
});

describe('failed authentication is rate-limited per remote address', () => {
  const post = (server: HttpServerHandle, token: string, localAddress?: string) =>
    rawExchange(
      server.port,
      (socket) =>
        socket.write(
          `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAuthorization: Bearer ${token}\r\n` +
            `Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
            `Content-Length: ${Buffer.byteLength(TOOLS_LIST_BODY)}\r\nConnection: close\r\n\r\n${TOOLS_LIST_BODY}`,
        ),
      5_000,
      localAddress,
    );

  it('the default: 30 failures, then 429 with Retry-After for any token from that address', async () => {
    const server = await start();
    for (let attempt = 0; attempt < 30; attempt++)
      expect(statusOf((await post(server, `guess-${attempt}`)).text)).toBe(401);
    // One more guess is given back every 2 s, so on a slow machine a guess or two more may pass.
    let limited = await post(server, 'guess-30');
    for (let extra = 31; statusOf(limited.text) === 401 && extra < 40; extra++)
      limited = await post(server, `guess-${extra}`);
    expect(statusOf(limited.text)).toBe(429);
    expect(limited.text.toLowerCase()).toMatch(/retry-after: \d+/);
    // The right token is refused too while the address is limited: the answer must not confirm a guess.
    expect(statusOf((await post(server, TOKEN)).text)).toBe(429);
    // Another loopback address is the same caller network: it gets no fresh 30 tries (127.0.0.2
    // is loopback too, on Linux; each of 127/8 had its own bucket before issue 41).
    if (process.platform === 'linux') expect(statusOf((await post(server, 'guess-next', '127.0.0.2')).text)).toBe(429);
  });

  it("others' failures from the same address never lock out a token that verifies; guesses stay limited", async () => {
    const home = tempDir('bourdon-edge-home-');
    const registry = new FederationRegistry(path.join(home, 'federation.yaml'), { warn: () => {} });
    const member = registry.add('laptop', { tier: 'trusted' }).token;
    const server = await start({ registry, failedAuthLimit: { burst: 3, refillPerMinute: 1 } });
    // The legacy token verifies once before the flood; then a guesser on the same address empties the bucket.
    expect(statusOf((await post(server, TOKEN)).text)).toBe(200);
    for (let attempt = 0; attempt < 3; attempt++)
      expect(statusOf((await post(server, `guess-${attempt}`)).text)).toBe(401);
    const limited = await post(server, 'guess-3');
    expect(statusOf(limited.text)).toBe(429);
    expect(limited.text.toLowerCase()).toMatch(/retry-after: \d+/);
    // A member's token (never used before) and the legacy token that verified are served, every time.
    for (let call = 0; call < 5; call++) {
      expect(statusOf((await post(server, member)).text)).toBe(200);
      expect(statusOf((await post(server, TOKEN)).text)).toBe(200);
    }
    // Guesses are still refused unchecked: a near-miss of the legacy token, and a member-shaped guess.
    expect(statusOf((await post(server, `${TOKEN.slice(0, -1)}4`)).text)).toBe(429);
    expect(statusOf((await post(server, `bdn_${'0'.repeat(48)}`)).text)).toBe(429);
    // A revoked member is refused like any bad token, even though it verified before.
    registry.revoke('laptop');
    expect(statusOf((await post(server, member)).text)).toBe(429);
  });

  it('the bucket refills: after the wait a valid token is served again', async () => {
    const server = await start({ failedAuthLimit: { burst: 2, refillPerMinute: 60 } });
    expect(statusOf((await post(server, 'wrong-1')).text)).toBe(401);
    expect(statusOf((await post(server, 'wrong-2')).text)).toBe(401);
    expect(statusOf((await post(server, TOKEN)).text)).toBe(429);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(statusOf((await post(server, TOKEN)).text)).toBe(200);
  });
});

describe('the failed-auth limiter on its own', () => {
  it('keys by caller network: all loopback as one, IPv4 by /24, IPv6 by /64, IPv4-mapped as IPv4', () => {
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe(addressKey('2001:db8:1:2:bbbb::2'));
    expect(addressKey('2001:db8:1:3::1')).not.toBe(addressKey('2001:db8:1:2::1'));
    expect(addressKey('::ffff:192.0.2.7')).toBe('192.0.2.0/24');
    expect(addressKey('192.0.2.200')).toBe(addressKey('192.0.2.7'));
    expect(addressKey('192.0.3.7')).not.toBe(addressKey('192.0.2.7'));
    for (const loopback of ['127.0.0.2', '127.255.1.9', '::1', '::ffff:127.0.0.1'])
      expect(addressKey(loopback)).toBe(addressKey('127.0.0.1'));
    expect(addressKey(undefined)).toBe('');
  });

  it('gives back one attempt per interval, and forgets addresses beyond its bound', () => {
    let now = 0;
    const limiter = new FailedAuthLimiter({ burst: 3, refillPerMinute: 60 }, () => now);
    for (let i = 0; i < 3; i++) limiter.fail('a');
    expect(limiter.retryAfter('a')).toBe(1);
    expect(limiter.retryAfter('b')).toBe(0);
    now += 1_000;
    expect(limiter.retryAfter('a')).toBe(0);
    // 20 000 addresses failing once each: the table stays bounded, and a fresh address is free.
    for (let i = 0; i < 20_000; i++) limiter.fail(`10.${i >> 8}.${i & 255}.1`);
    expect(limiter.tracked).toBeLessThanOrEqual(10_000);
    expect(limiter.retryAfter('192.0.2.1')).toBe(0);
  });
});
