/**
 * The HTTP transport (spec §10), started for real on an ephemeral loopback port and driven
 * by the SDK v2 client in each protocol era, plus raw requests for every control.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { McpServer, ProtocolError } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { UNKNOWN_CALLER } from '../src/core/trust/caller.js';
import { LibraryStore } from '../src/core/store/library.js';
import { FederationRegistry } from '../src/core/trust/registry.js';
import {
  BindRefusedError,
  bearerToken,
  isLoopbackAddress,
  isLoopbackHost,
  makeHostCheck,
  parseHostHeader,
  runHttpServer,
  type HttpServerHandle,
  type HttpServerOptions,
} from '../src/mcp/http.js';
import { createMcpServer } from '../src/mcp/server.js';
import { copyFixtureLibrary, tempDir } from './helpers/fixtures.js';
import {
  ERA_MODES,
  TOOLS_LIST_BODY,
  callJson,
  httpClient,
  mcpHeaders,
  rawRequest,
  rpcMessage,
} from './helpers/http.js';
import { linkedClient } from './helpers/mcp.js';
import { at } from './helpers/items.js';

// 32 characters or more: a non-loopback bind refuses a shorter legacy token.
const LEGACY_TOKEN = 'legacy-shared-secret-0123456789abcdef';
/** A private row of the conformance library (claude-code's "Home Finances"). */
const PRIVATE_ENTITY = 'Home Finances';
/** A team row. */
const TEAM_ENTITY = 'ILTT';

let library: string;
let home: string;
let auditPath: string;
let registryPath: string;
let store: LibraryStore;
let tokens: { alice: string; bob: string; carol: string };
const warnings: string[] = [];
const handles: HttpServerHandle[] = [];

function l6Factory() {
  return () => createMcpServer(store, { fallbackCaller: UNKNOWN_CALLER, auditPath, warn: (m) => warnings.push(m) });
}

async function start(options: HttpServerOptions = {}, factory = l6Factory()): Promise<HttpServerHandle> {
  const handle = await runHttpServer(factory, {
    port: 0,
    registry: new FederationRegistry(registryPath, { warn: (m) => warnings.push(m) }),
    legacyToken: LEGACY_TOKEN,
    warn: (m) => warnings.push(m),
    ...options,
  });
  handles.push(handle);
  return handle;
}

function hostHeader(handle: HttpServerHandle): string {
  return `127.0.0.1:${handle.port}`;
}

function matchNames(payload: Record<string, unknown>): string[] {
  return (payload.matches as { name: string }[]).map((match) => match.name);
}

beforeAll(() => {
  library = copyFixtureLibrary();
  home = tempDir('bourdon-http-home-');
  auditPath = path.join(home, 'audit.jsonl');
  registryPath = path.join(home, 'federation.yaml');
  store = new LibraryStore(library, { warn: () => {} });
  const admin = new FederationRegistry(registryPath);
  tokens = {
    alice: admin.add('alice', { tier: 'trusted' }).token,
    bob: admin.add('bob', { tier: 'quarantined', grants: ['claude-code'] }).token,
    carol: admin.add('carol', { tier: 'trusted' }).token,
  };
});

afterAll(async () => {
  await Promise.all(handles.map((handle) => handle.close()));
  // No token, legacy or member, ever reaches a log line.
  const logged = warnings.join('\n');
  for (const secret of [LEGACY_TOKEN, ...Object.values(tokens)]) expect(logged).not.toContain(secret);
  fs.rmSync(library, { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
});

describe('both protocol eras on one endpoint', () => {
  let server: HttpServerHandle;
  beforeAll(async () => {
    server = await start();
  });

  for (const era of ERA_MODES) {
    for (const who of ['member', 'legacy token'] as const) {
      it(`${era.label}: lists and calls tools with the ${who}`, async () => {
        const token = who === 'member' ? tokens.alice : LEGACY_TOKEN;
        const client = await httpClient(server.url, era.mode, token);
        try {
          expect(client.getNegotiatedProtocolVersion()).toBe(era.version);
          const { tools } = await client.listTools();
          expect(tools.map((tool) => tool.name)).toContain('find_entity');
          const payload = await callJson(client, 'find_entity', { name: TEAM_ENTITY, access_level: 'team' });
          expect(matchNames(payload)).toEqual([TEAM_ENTITY]);
          // A loopback operator (or trusted member) is not capped: private rows are there.
          const privatePayload = await callJson(client, 'find_entity', { name: PRIVATE_ENTITY, include_private: true });
          expect(matchNames(privatePayload)).toEqual([PRIVATE_ENTITY]);
        } finally {
          await client.close();
        }
      });
    }
  }

  it('every era lists the same tools', async () => {
    const lists = [];
    for (const era of ERA_MODES) {
      const client = await httpClient(server.url, era.mode, tokens.alice);
      lists.push((await client.listTools()).tools.map((tool) => tool.name));
      await client.close();
    }
    expect(lists[1]).toEqual(lists[0]);
    expect(lists[2]).toEqual(lists[0]);
  });

  it('the identity reaches the handlers: audit lines name the member, quarantine applies', async () => {
    for (const era of ERA_MODES) {
      const client = await httpClient(server.url, era.mode, tokens.bob);
      const denied = await callJson(client, 'get_cross_agent_summary', { project: 'Bourdon' });
      expect(denied).toMatchObject({ error: 'access denied', agent: 'bob', tier: 'quarantined' });
      await client.close();
    }
    const lines = fs
      .readFileSync(auditPath, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, string>);
    expect(lines.some((line) => line.agent === 'alice' && line.op === 'find_entity')).toBe(true);
    expect(lines.some((line) => line.agent === 'operator' && line.op === 'find_entity')).toBe(true);
    expect(lines.filter((line) => line.agent === 'bob' && line.decision === 'deny')).toHaveLength(3);
    expect(lines.some((line) => line.agent === 'unknown')).toBe(false);
  });

  it('concurrent requests never see each other’s identity', async () => {
    const operator = await httpClient(server.url, 'auto', LEGACY_TOKEN);
    const bob = await httpClient(server.url, 'legacy', tokens.bob);
    const calls = Array.from({ length: 20 }, (_, index) =>
      index % 2 === 0
        ? callJson(operator, 'get_cross_agent_summary', { project: 'Bourdon' }).then(
            (payload) => ['operator', payload] as const,
          )
        : callJson(bob, 'get_cross_agent_summary', { project: 'Bourdon' }).then((payload) => ['bob', payload] as const),
    );
    for (const [who, payload] of await Promise.all(calls)) {
      if (who === 'bob') expect(payload.error).toBe('access denied');
      else expect(payload.error).toBeUndefined();
    }
    await Promise.all([operator.close(), bob.close()]);
  });

  it('a raw handshake-era call and a raw 2026-07-28 call, one POST each', async () => {
    const legacy = await rawRequest(server.url, {
      headers: mcpHeaders(tokens.alice, { host: hostHeader(server) }),
      body: TOOLS_LIST_BODY,
    });
    expect(legacy.status).toBe(200);
    expect((rpcMessage(legacy.body).result as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
    const modernBody = JSON.stringify({
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: {
        name: 'find_entity',
        arguments: { name: TEAM_ENTITY, access_level: 'team' },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    });
    const modern = await rawRequest(server.url, {
      headers: mcpHeaders(tokens.alice, {
        host: hostHeader(server),
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'find_entity',
      }),
      body: modernBody,
    });
    expect(modern.status).toBe(200);
    expect(modern.headers['content-type']).toContain('application/json');
    const message = rpcMessage(modern.body) as { id: number; result: { content: { text: string }[] } };
    expect(message.id).toBe(9);
    expect(matchNames(JSON.parse(at(message.result.content, 0).text) as Record<string, unknown>)).toEqual([
      TEAM_ENTITY,
    ]);
  });
});

describe('a handshake-era peer, as the Python engine’s client talks', () => {
  // mcp's streamablehttp_client: initialize, notifications/initialized, an optional GET for a
  // server stream (405 here, which it tolerates), then tools/call; each POST on its own.
  for (const version of ['2025-03-26', '2025-06-18', '2025-11-25']) {
    it(`protocol ${version}: initialize, initialized, GET 405, tools/call`, async () => {
      const server = await start();
      const headers = mcpHeaders(tokens.alice, { host: hostHeader(server) });
      const init = await rawRequest(server.url + '/', {
        headers,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'mcp', version: '1.9.0' } },
        }),
      });
      expect(init.status).toBe(200);
      const result = rpcMessage(init.body).result as { protocolVersion: string; serverInfo: { name: string } };
      expect(result.protocolVersion).toBe(version);
      expect(result.serverInfo.name).toBe('bourdon-l6');
      const after = { ...headers, 'mcp-protocol-version': version };
      const initialized = await rawRequest(server.url, {
        headers: after,
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      });
      expect(initialized.status).toBe(202);
      expect((await rawRequest(server.url, { method: 'GET', headers: after })).status).toBe(405);
      const call = await rawRequest(server.url, {
        headers: after,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'find_entity', arguments: { name: TEAM_ENTITY, access_level: 'team', federation_hop: 1 } },
        }),
      });
      expect(call.status).toBe(200);
      const content = (rpcMessage(call.body).result as { content: { text: string }[] }).content;
      expect(matchNames(JSON.parse(at(content, 0).text) as Record<string, unknown>)).toEqual([TEAM_ENTITY]);
    });
  }
});

describe('authentication', () => {
  let server: HttpServerHandle;
  beforeAll(async () => {
    server = await start();
  });
  const post = (handle: HttpServerHandle, authorization?: string) =>
    rawRequest(handle.url, {
      headers: {
        ...mcpHeaders(undefined, { host: hostHeader(handle) }),
        ...(authorization === undefined ? {} : { authorization }),
      },
      body: TOOLS_LIST_BODY,
    });

  it('no token, an empty bearer, a wrong token: 401, and the answer never says which', async () => {
    const answers = await Promise.all([
      post(server),
      post(server, 'Bearer '),
      post(server, 'Bearer     '),
      post(server, 'Bearer'),
      post(server, 'Basic YWxpY2U6eA=='),
      post(server, 'Bearer not-a-token'),
      post(server, `Bearer ${LEGACY_TOKEN}x`),
      post(server, `Bearer ${tokens.alice.slice(0, -1)}`),
    ]);
    for (const answer of answers) {
      expect(answer.status).toBe(401);
      expect(answer.headers['www-authenticate']).toMatch(/^Bearer/);
    }
    expect(new Set(answers.map((answer) => answer.body)).size).toBe(1);
  });

  it('the SDK client without a token cannot connect (every era)', async () => {
    for (const era of ERA_MODES) {
      await expect(httpClient(server.url, era.mode)).rejects.toThrow();
    }
  });

  it('the bearer scheme is case-insensitive and surrounding spaces do not matter', async () => {
    expect((await post(server, `bearer ${tokens.alice}`)).status).toBe(200);
    expect((await post(server, `BEARER   ${LEGACY_TOKEN}  `)).status).toBe(200);
  });

  it('a revoked member is refused on its next request, without restart; a rotated token replaces the old', async () => {
    expect((await post(server, `Bearer ${tokens.carol}`)).status).toBe(200);
    const admin = new FederationRegistry(registryPath);
    admin.revoke('carol');
    expect((await post(server, `Bearer ${tokens.carol}`)).status).toBe(401);
    const rotated = admin.rotate('alice').token;
    expect((await post(server, `Bearer ${tokens.alice}`)).status).toBe(401);
    expect((await post(server, `Bearer ${rotated}`)).status).toBe(200);
    tokens.alice = rotated;
  });

  it('an empty legacy token is unset: it never matches the empty bearer', async () => {
    const emptyLegacy = await start({ legacyToken: '' });
    expect((await post(emptyLegacy, 'Bearer ')).status).toBe(401);
    expect((await post(emptyLegacy, 'Bearer')).status).toBe(401);
    const fromEnv = await start({ legacyToken: undefined, env: { BOURDON_PEER_TOKEN_SERVER: '' } });
    expect((await post(fromEnv, 'Bearer ')).status).toBe(401);
    expect((await post(fromEnv, `Bearer ${tokens.bob}`)).status).toBe(200);
  });

  it('the legacy token is read from BOURDON_PEER_TOKEN_SERVER and makes the caller the operator', async () => {
    const fromEnv = await start({ legacyToken: undefined, env: { BOURDON_PEER_TOKEN_SERVER: 'env-token-abc' } });
    const client = await httpClient(fromEnv.url, 'auto', 'env-token-abc');
    expect(await callJson(client, 'get_cross_agent_summary', { project: 'Bourdon' })).not.toHaveProperty('error');
    await client.close();
  });

  it('no auth configured at all: 503 on every request, whatever the method or token', async () => {
    const emptyRegistry = path.join(tempDir('bourdon-http-empty-'), 'federation.yaml');
    const unconfigured = await start({ registry: new FederationRegistry(emptyRegistry), legacyToken: '' });
    expect(unconfigured.authMode()).toBe('unconfigured');
    expect(unconfigured.describe()).toContain('503');
    for (const authorization of [undefined, 'Bearer ', `Bearer ${tokens.bob}`]) {
      const answer = await post(unconfigured, authorization);
      expect(answer.status).toBe(503);
      expect(answer.json()).toHaveProperty('error');
    }
    const get = await rawRequest(unconfigured.url, { method: 'GET', headers: { host: hostHeader(unconfigured) } });
    expect(get.status).toBe(503);
    // Registering a member later turns auth on without a restart.
    const issued = new FederationRegistry(emptyRegistry).add('dave', { tier: 'trusted' });
    expect((await post(unconfigured, `Bearer ${issued.token}`)).status).toBe(200);
    expect(unconfigured.authMode()).toBe('bearer');
  });

  it('--allow-unauthenticated on loopback: no token needed, the caller is the operator (every era)', async () => {
    const open = await start({ allowUnauthenticated: true, registry: null, legacyToken: '' });
    expect(open.describe()).toContain('--allow-unauthenticated');
    for (const era of ERA_MODES) {
      const client = await httpClient(open.url, era.mode);
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      expect(
        matchNames(await callJson(client, 'find_entity', { name: PRIVATE_ENTITY, include_private: true })),
      ).toEqual([PRIVATE_ENTITY]);
      await client.close();
    }
  });
});

describe('binds', () => {
  const noAuth = () => ({
    registry: new FederationRegistry(path.join(tempDir('bourdon-http-none-'), 'federation.yaml')),
    legacyToken: '',
  });

  it('a non-loopback bind without auth refuses to start', async () => {
    for (const host of ['0.0.0.0', '::', '192.0.2.10', 'example.com']) {
      await expect(start({ host, ...noAuth() })).rejects.toThrow(BindRefusedError);
    }
    await expect(start({ host: '0.0.0.0', ...noAuth() })).rejects.toThrow(
      /refusing to start: bind '0.0.0.0' is network-reachable but no auth is configured/,
    );
  });

  it('--allow-unauthenticated on a non-loopback host refuses to start, even with auth configured', async () => {
    await expect(start({ host: '0.0.0.0', allowUnauthenticated: true })).rejects.toThrow(BindRefusedError);
    await expect(start({ host: '0.0.0.0', allowUnauthenticated: true })).rejects.toThrow(
      /--allow-unauthenticated with non-loopback bind '0.0.0.0'/,
    );
  });

  it('loopback binds start without auth (and then answer 503)', async () => {
    const handle = await start({ host: 'localhost', ...noAuth() });
    expect(handle.authMode()).toBe('unconfigured');
  });

  it('a port already in use is one clear error', async () => {
    const first = await start();
    await expect(start({ port: first.port })).rejects.toThrow(/port is in use/);
  });

  it('recognises loopback hosts and addresses', () => {
    for (const host of ['localhost', 'LOCALHOST', '127.0.0.1', '127.9.8.7', '::1', '[::1]', '::ffff:127.0.0.1'])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of [
      '0.0.0.0',
      '::',
      '10.0.0.1',
      '192.168.1.2',
      'example.com',
      'localhost.example.com',
      '::ffff:10.0.0.1',
    ]) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
    for (const address of ['127.0.0.1', '127.0.0.2', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1'])
      expect(isLoopbackAddress(address), address).toBe(true);
    for (const address of [undefined, '', '10.1.2.3', '192.0.2.2', '::ffff:192.0.2.2', 'fe80::1', '::'])
      expect(isLoopbackAddress(address), String(address)).toBe(false);
  });
});

describe('request controls', () => {
  let server: HttpServerHandle;
  beforeAll(async () => {
    server = await start({
      allowedHosts: ['mcp.example.org', 'proxy.example.org:8443'],
      allowedOrigins: ['https://app.example.org'],
    });
  });
  const post = (headers: Record<string, string>, body: string | Buffer = TOOLS_LIST_BODY, chunked = false) =>
    rawRequest(server.url, {
      headers: mcpHeaders(tokens.bob, { host: hostHeader(server), ...headers }),
      body,
      chunked,
    });

  it('Host: the loopback names and the bound address on the served port, plus --allowed-host', async () => {
    const ok = [
      `127.0.0.1:${server.port}`,
      `localhost:${server.port}`,
      `LocalHost:${server.port}`,
      `[::1]:${server.port}`,
      'mcp.example.org',
      `mcp.example.org:${server.port}`,
      'proxy.example.org:8443',
    ];
    for (const host of ok) expect((await post({ host })).status, host).toBe(200);
    const misdirected = [
      'evil.example',
      `evil.example:${server.port}`,
      `127.0.0.1:${server.port + 1}`,
      'localhost',
      `mcp.example.org:${server.port + 1}`,
      'proxy.example.org',
      `127.0.0.1.nip.io:${server.port}`,
    ];
    for (const host of misdirected) {
      const answer = await post({ host });
      expect(answer.status, host).toBe(421);
    }
    // No Host at all: Node's HTTP/1.1 parser refuses it before we see it.
    expect((await post({ host: '' })).status).toBe(400);
  });

  it('Origin: absent or listed passes; anything else is 403', async () => {
    expect((await post({ origin: 'https://app.example.org' })).status).toBe(200);
    expect((await post({ origin: 'https://app.example.org/' })).status).toBe(200);
    for (const origin of [
      'https://evil.example',
      'http://app.example.org',
      'null',
      `http://localhost:${server.port}`,
    ]) {
      expect((await post({ origin })).status, origin).toBe(403);
    }
  });

  it('anything but POST is 405', async () => {
    for (const method of ['GET', 'DELETE', 'PUT', 'PATCH', 'OPTIONS']) {
      const answer = await rawRequest(server.url, {
        method,
        headers: mcpHeaders(tokens.bob, { host: hostHeader(server) }),
      });
      expect(answer.status, method).toBe(405);
      expect(answer.headers.allow).toBe('POST');
    }
  });

  it('bodies over 1 MiB are 413, declared or streamed; just under passes', async () => {
    const oversize = Buffer.alloc(1024 * 1024 + 1, 0x20);
    expect((await post({}, oversize)).status).toBe(413);
    const streamed = Buffer.alloc(2 * 1024 * 1024, 0x20);
    expect((await post({}, streamed, true)).status).toBe(413);
    const padded = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} }).padEnd(
      1024 * 1024 - 10,
      ' ',
    );
    expect((await post({}, padded)).status).toBe(200);
  });

  it('a JSON-RPC batch is 400', async () => {
    const batch = JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
    ]);
    const answer = await post({}, batch);
    expect(answer.status).toBe(400);
    expect(answer.json()).toMatchObject({ error: { code: -32600 } });
  });

  it('paths other than /mcp are 404', async () => {
    const answer = await rawRequest(server.url.replace('/mcp', '/other'), {
      headers: mcpHeaders(tokens.bob, { host: hostHeader(server) }),
      body: TOOLS_LIST_BODY,
    });
    expect(answer.status).toBe(404);
  });

  it('parses Host headers and bearer headers strictly', () => {
    expect(parseHostHeader('[::1]:80')).toEqual({ name: '::1', port: 80 });
    expect(parseHostHeader('Example.COM')).toEqual({ name: 'example.com', port: null });
    expect(parseHostHeader('example.com:99999')).toBeNull();
    expect(parseHostHeader('[::1')).toBeNull();
    const check = makeHostCheck('127.0.0.1', 80, []);
    expect(check('localhost')).toBe(true); // no port means 80
    expect(check(undefined)).toBe(false);
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('Bearer ')).toBeNull();
    expect(bearerToken('Bearerabc')).toBeNull();
    expect(bearerToken(undefined)).toBeNull();
  });
});

describe('timeout', () => {
  /** A server with one slow tool: it waits until aborted, or 5 s. */
  function slowFactory() {
    return () => {
      const server = new McpServer({ name: 'slow', version: '1.0.0' });
      server.registerTool('slow', { inputSchema: z.object({}) }, async (_args, ctx) => {
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, 5_000);
          ctx.mcpReq.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve(undefined);
          });
        });
        return { content: [{ type: 'text', text: 'too late' }] };
      });
      return server;
    };
  }

  for (const era of ERA_MODES) {
    it(`${era.label}: a call not answered in time is JSON-RPC error -32603`, async () => {
      const server = await start({ timeoutMs: 300 }, slowFactory());
      const client = await httpClient(server.url, era.mode, LEGACY_TOKEN);
      const error = await client.callTool({ name: 'slow', arguments: {} }).then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as ProtocolError).code).toBe(-32603);
      expect((error as ProtocolError).message).toMatch(/timed out/);
      await client.close();
    });
  }
});

describe('the private-row ceiling for remote callers', () => {
  it('a caller judged remote never gets private rows, whatever it asks (operator and trusted member)', async () => {
    const server = await start({ isRemote: () => true });
    for (const token of [LEGACY_TOKEN, tokens.alice]) {
      for (const era of ERA_MODES) {
        const client = await httpClient(server.url, era.mode, token);
        expect(
          matchNames(await callJson(client, 'find_entity', { name: PRIVATE_ENTITY, include_private: true })),
        ).toEqual([]);
        expect(
          matchNames(await callJson(client, 'find_entity', { name: PRIVATE_ENTITY, access_level: 'private' })),
        ).toEqual([]);
        // Team rows are still served: the cap is team, not public.
        expect(matchNames(await callJson(client, 'find_entity', { name: TEAM_ENTITY, access_level: 'team' }))).toEqual([
          TEAM_ENTITY,
        ]);
        await client.close();
      }
    }
  });

  // The default decision reads the socket's remote address. 127.0.0.2 is loopback (whole 127/8).
  const canBind127002 = process.platform === 'linux';
  it.skipIf(!canBind127002)('a client connecting from 127.0.0.2 is loopback: not capped', async () => {
    const server = await start({ host: '127.0.0.2' });
    const client = await httpClient(server.url, 'auto', LEGACY_TOKEN);
    expect(matchNames(await callJson(client, 'find_entity', { name: PRIVATE_ENTITY, include_private: true }))).toEqual([
      PRIVATE_ENTITY,
    ]);
    await client.close();
  });

  // A real non-loopback source address: this machine's own LAN address, bound with auth on.
  const lan = Object.values(os.networkInterfaces())
    .flat()
    .find((info) => info && info.family === 'IPv4' && !info.internal)?.address;
  it.skipIf(!lan)(`a client connecting from a non-loopback address (${lan ?? 'none'}) is capped at team`, async () => {
    const server = await start({ host: lan });
    expect(server.describe()).toContain('never see private rows');
    for (const era of ERA_MODES) {
      const client = await httpClient(server.url, era.mode, LEGACY_TOKEN);
      expect(
        matchNames(await callJson(client, 'find_entity', { name: PRIVATE_ENTITY, include_private: true })),
      ).toEqual([]);
      expect(matchNames(await callJson(client, 'find_entity', { name: TEAM_ENTITY, access_level: 'team' }))).toEqual([
        TEAM_ENTITY,
      ]);
      await client.close();
    }
  });
});

describe('a handler with no identity fails closed', () => {
  it('the HTTP factory’s fallback caller is an unknown quarantined member', async () => {
    const { client, close } = await linkedClient(library, { fallbackCaller: UNKNOWN_CALLER });
    const payload = (await callJson(client, 'get_cross_agent_summary', { project: 'Bourdon' })) as Record<
      string,
      unknown
    >;
    expect(payload).toMatchObject({ error: 'access denied', agent: 'unknown', tier: 'quarantined' });
    await close();
  });
});
