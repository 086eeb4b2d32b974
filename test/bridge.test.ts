/**
 * The stdio bridge, `bourdon serve --url <endpoint>`: a real HTTP server is spawned, then a
 * bridge over stdio as an MCP host spawns it; payloads through the bridge equal direct calls
 * (reads, resources, a commit), the bridge opens no library, its own --tools applies on top
 * of the server's, and a dead or refusing endpoint stops it at start with a clear message.
 * In-process: the 30 s budget (shortened), a handshake-era server with sessions (as the
 * Python engine is) and a server restart under the bridge.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILURES } from '../src/core/errors.js';
import * as z from 'zod';
import { LibraryStore } from '../src/core/store/library.js';
import { READ_TOOLS, profileFilter } from '../src/core/trust/profiles.js';
import { FederationRegistry } from '../src/core/trust/registry.js';
import { StdioBridge } from '../src/mcp/bridge.js';
import { runHttpServer } from '../src/mcp/http.js';
import { createMcpServer } from '../src/mcp/server.js';
import { runCli } from './helpers/cli.js';
import { BIN, REPO_ROOT, copyFixtureLibrary, tempDir } from './helpers/fixtures.js';
import { deadPort, httpClient, startHttpServe, type ServedHttp } from './helpers/http.js';
import { linkClient, stdioClient, type StdioClient } from './helpers/mcp.js';
import { only } from './helpers/items.js';

const TOKEN_ENV = 'BOURDON_PEER_BRIDGE_TEST';

/** Spawns `bourdon serve --url …` the way an MCP host does and connects to it over stdio. */
async function connectBridge(
  args: string[],
  env: Record<string, string>,
  mode: 'legacy' | 'auto' = 'legacy',
): Promise<StdioClient> {
  return stdioClient({ args: [BIN, 'serve', ...args], cwd: REPO_ROOT, env }, { name: 'bridge-host', mode });
}

function text(result: { content?: unknown }): string {
  const content = result.content as { type: string; text: string }[];
  const item = only(content, 'content item');
  expect(item.type).toBe('text');
  return item.text;
}

/** A port nothing listens on (bound, then released). */
let library: string;
let serverHome: string;
let bridgeHome: string;
let noLibrary: string;
let token: string;
let server: ServedHttp;

beforeAll(async () => {
  library = copyFixtureLibrary();
  serverHome = tempDir('bourdon-bridge-server-home-');
  bridgeHome = tempDir('bourdon-bridge-home-');
  noLibrary = path.join(tempDir('bourdon-bridge-nolib-'), 'must-not-exist');
  token = new FederationRegistry(path.join(serverHome, 'federation.yaml')).add('alice', { tier: 'trusted' }).token;
  server = await startHttpServe(['serve', '--transport', 'http', '--port', '0', '--library', library], {
    BOURDON_HOME: serverHome,
    BOURDON_LOCAL_NAME: 'bridge-test',
  });
});
afterAll(async () => {
  await server?.stop();
  for (const dir of [library, serverHome, bridgeHome, path.dirname(noLibrary)])
    fs.rmSync(dir, { recursive: true, force: true });
});

describe('bourdon serve --url: a stdio bridge to a running HTTP server', () => {
  let bridge: Awaited<ReturnType<typeof connectBridge>>;
  let direct: Client;
  beforeAll(async () => {
    // The bridge's own environment names a library and a config dir: it must use neither.
    bridge = await connectBridge(['--url', server.url, '--token-env', TOKEN_ENV], {
      [TOKEN_ENV]: token,
      BOURDON_HOME: bridgeHome,
      BOURDON_LIBRARY: noLibrary,
    });
    direct = await httpClient(server.url, 'auto', token);
  });
  afterAll(async () => {
    await bridge?.client.close();
    await direct?.close();
  });

  it('says where it forwards on stderr, never the token', () => {
    expect(bridge.stderr()).toMatch(
      /bridging stdio to http:\/\/127\.0\.0\.1:\d+\/mcp \(bourdon-l6 [\d.]+, MCP 2026-07-28; tools: all, 16 offered; token: from BOURDON_PEER_BRIDGE_TEST\)/,
    );
    expect(bridge.stderr()).not.toContain(token);
  });

  it('lists the same tools (names, descriptions, input schemas) and resource templates as the server', async () => {
    const [viaBridge, viaDirect] = await Promise.all([bridge.client.listTools(), direct.listTools()]);
    expect(viaBridge.tools).toEqual(viaDirect.tools);
    expect(viaBridge.tools).toHaveLength(16);
    const [bridgeTemplates, directTemplates] = await Promise.all([
      bridge.client.listResourceTemplates(),
      direct.listResourceTemplates(),
    ]);
    expect(bridgeTemplates.resourceTemplates).toEqual(directTemplates.resourceTemplates);
    expect((await bridge.client.listResources()).resources).toEqual((await direct.listResources()).resources);
  });

  it('answers reads with the same payloads as direct calls', async () => {
    const calls: [string, Record<string, unknown>][] = [
      ['list_agents', {}],
      ['find_entity', { name: 'bdn' }],
      ['find_entity', { name: 'ILTT', access_level: 'team' }],
      ['query_agent_memory', { agent: 'claude-code', topic: 'bourdon' }],
      ['list_recent_work', { since: '2026-01-01', limit: 5 }],
      ['get_cross_agent_summary', { project: 'Bourdon', access_level: 'team' }],
      ['list_notes', {}],
      ['export_agents', {}],
      ['list_memory_versions', { agent_id: 'codex' }],
    ];
    for (const [name, args] of calls) {
      const [viaBridge, viaDirect] = await Promise.all([
        bridge.client.callTool({ name, arguments: args }),
        direct.callTool({ name, arguments: args }),
      ]);
      const bridged = JSON.parse(text(viaBridge)) as Record<string, unknown>;
      const straight = JSON.parse(text(viaDirect)) as Record<string, unknown>;
      // export_agents stamps the time it was made; everything else must match to the byte.
      if (name === 'export_agents') {
        delete bridged.generated_at;
        delete straight.generated_at;
      }
      expect(bridged, name).toEqual(straight);
      if (name !== 'export_agents') expect(text(viaBridge), name).toBe(text(viaDirect));
      expect(viaBridge.isError, name).toBe(viaDirect.isError);
    }
    for (const uri of [
      'agent-library://agents',
      'agent-library://agents/codex/memory',
      'agent-library://entities/Bourdon',
    ]) {
      const [viaBridge, viaDirect] = await Promise.all([
        bridge.client.readResource({ uri }),
        direct.readResource({ uri }),
      ]);
      expect(viaBridge.contents, uri).toEqual(viaDirect.contents);
    }
  });

  it("forwards a commit: the same payload as a direct commit, written to the server's library as the token's member", async () => {
    const commit = (agent: string) => ({
      agent_id: agent,
      agent_type: 'note-capture',
      entities: [{ name: 'Bridge Roadmap', type: 'draft', summary: 'through the bridge' }],
      sessions: [{ date: '2026-06-05', cwd: '/notes', key_actions: ['Wrote roadmap'] }],
    });
    const bridged = JSON.parse(
      text(await bridge.client.callTool({ name: 'commit_to_federation', arguments: commit('bridge-bot') })),
    );
    const straight = JSON.parse(
      text(await direct.callTool({ name: 'commit_to_federation', arguments: commit('direct-bot') })),
    );
    const comparable = (payload: Record<string, unknown>, agent: string) =>
      JSON.parse(
        JSON.stringify({ ...payload, last_updated: '<t>' })
          .split(agent)
          .join('<agent>'),
      ) as unknown;
    expect(comparable(bridged, 'bridge-bot')).toEqual(comparable(straight, 'direct-bot'));
    expect(bridged.entities_added).toBe(1);
    expect(bridged.path).toBe(path.join(library, 'agents', 'bridge-bot.l5.yaml'));
    expect(fs.existsSync(path.join(library, 'agents', 'bridge-bot.l5.yaml'))).toBe(true);
    const found = JSON.parse(
      text(await direct.callTool({ name: 'find_entity', arguments: { name: 'bridge roadmap' } })),
    );
    expect(found.matches[0].agents).toEqual(['bridge-bot', 'direct-bot']);
    // The server audited it, as the member whose token the bridge carries.
    const audit = fs.readFileSync(path.join(serverHome, 'audit.jsonl'), 'utf8');
    expect(audit).toContain('"agent":"alice","op":"commit_to_federation","namespace":"bridge-bot","decision":"allow"');
    expect(audit).not.toContain('"decision":"deny"');
  });

  it('relays errors as the server gives them: unknown tool −32602, bad arguments an error result, unknown resource', async () => {
    await expect(bridge.client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown tool: no_such_tool'),
    });
    const [viaBridge, viaDirect] = await Promise.all([
      bridge.client.callTool({ name: 'find_entity', arguments: { name: 42 } }),
      direct.callTool({ name: 'find_entity', arguments: { name: 42 } }),
    ]);
    expect(viaBridge.isError).toBe(true);
    expect(viaBridge.content).toEqual(viaDirect.content);
    await expect(bridge.client.readResource({ uri: 'agent-library://nothing' })).rejects.toMatchObject({
      code: -32602,
    });
  });

  it('holds no library: nothing at its BOURDON_LIBRARY or BOURDON_HOME, and --library is refused', async () => {
    expect(fs.existsSync(noLibrary)).toBe(false);
    expect(fs.readdirSync(bridgeHome)).toEqual([]);
    const refused = await runCli(['serve', '--url', server.url, '--library', library], { env: { [TOKEN_ENV]: token } });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`--library=${library} cannot also be provided when using --url`);
    const peers = await runCli(['serve', '--url', server.url, '--transport=http', '--federate'], {
      env: { [TOKEN_ENV]: token },
    });
    expect(peers.code).toBe(2);
    expect(peers.stderr).toContain('--transport=http cannot also be provided when using --url');
    const tokenAlone = await runCli(['serve', '--token-env', TOKEN_ENV]);
    expect(tokenAlone.code).toBe(2);
    expect(tokenAlone.stderr).toContain('must be provided when using --token-env: --url');
  });

  it("its own --tools applies on top of the server's: --tools read hides and refuses writes before they reach the server", async () => {
    // This host negotiates the protocol era (2026-07-28 on stdio), the first bridge's did not.
    const readOnly = await connectBridge(
      [`--url=${server.url}`, '--tools', 'read', '--token-env', TOKEN_ENV],
      { [TOKEN_ENV]: token, BOURDON_HOME: bridgeHome },
      'auto',
    );
    expect(readOnly.client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    try {
      expect((await readOnly.client.listTools()).tools.map((tool) => tool.name)).toEqual([...READ_TOOLS]);
      const before = fs.readFileSync(path.join(serverHome, 'audit.jsonl'), 'utf8');
      for (const name of ['commit_to_federation', 'rollback_agent_memory']) {
        const result = await readOnly.client.callTool({
          name,
          arguments: { agent_id: 'codex', agent_type: 'other', version: 1 },
        });
        expect(JSON.parse(text(result))).toEqual({ error: 'tool not offered on this connection', tool: name });
      }
      await expect(readOnly.client.callTool({ name: 'nope', arguments: {} })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Unknown tool: nope'),
      });
      expect(fs.readFileSync(path.join(serverHome, 'audit.jsonl'), 'utf8')).toBe(before); // never forwarded
      expect(readOnly.stderr()).toContain('tools: read, 14 offered');
    } finally {
      await readOnly.client.close();
    }
  });
});

describe('bourdon serve --url that cannot serve', () => {
  it('a dead endpoint: exits non-zero at once with a clear message, nothing on stdout', async () => {
    const port = await deadPort();
    const result = await runCli(['serve', '--url', `http://127.0.0.1:${port}`], { env: { BOURDON_HOME: bridgeHome } });
    expect(result.code).toBe(FAILURES.peer_unreachable.exit);
    expect(result.stderr).toBe(
      `bourdon: cannot reach the Bourdon server at http://127.0.0.1:${port}/mcp: connection refused (is the server running?)\n`,
    );
    expect(result.stdout).toBe('');
  });

  it('a refused or missing token: exits 10 (peer refused) saying so, never printing the token', async () => {
    const wrong = await runCli(['serve', '--url', server.url, '--token-env', TOKEN_ENV], {
      env: { [TOKEN_ENV]: 'bdn_0123456789abcdef', BOURDON_HOME: bridgeHome },
    });
    expect(wrong.code).toBe(FAILURES.peer_refused.exit);
    expect(wrong.stderr).toContain(`refused the token in ${TOKEN_ENV} (401)`);
    expect(wrong.stderr).not.toContain('0123456789abcdef');
    const missing = await runCli(['serve', '--url', server.url], {
      env: { BOURDON_PEER_TOKEN: '', BOURDON_HOME: bridgeHome },
    });
    expect(missing.code).toBe(FAILURES.peer_refused.exit);
    expect(missing.stderr).toContain('asks for a token (401) and BOURDON_PEER_TOKEN is not set');
  });

  it('--token-env=<VAR> wins over BOURDON_PEER_TOKEN, which is used when no flag names another', async () => {
    const env = { BOURDON_PEER_TOKEN: 'bdn_00000000wrong', [TOKEN_ENV]: token, BOURDON_HOME: bridgeHome };
    // stdin closes at once: the bridge checks the server, says so, serves, and exits 0.
    const chosen = await runCli(['serve', `--url=${server.url}`, `--token-env=${TOKEN_ENV}`], { env });
    expect(chosen.code).toBe(0);
    expect(chosen.stderr).toContain(`token: from ${TOKEN_ENV}`);
    const fallback = await runCli(['serve', '--url', server.url], { env });
    expect(fallback.code).toBe(FAILURES.peer_refused.exit);
    expect(fallback.stderr).toContain('refused the token in BOURDON_PEER_TOKEN (401)');
  });

  it('refuses plain http to another machine and token variables outside BOURDON_PEER_* (usage, exit 2)', async () => {
    const remote = await runCli(['serve', '--url', 'http://example.com:7500/mcp'], {
      env: { BOURDON_HOME: bridgeHome },
    });
    expect(remote.code).toBe(2);
    expect(remote.stderr).toContain('http is allowed only on loopback');
    const badEnv = await runCli(['serve', '--url', server.url, '--token-env', 'HOME'], {
      env: { BOURDON_HOME: bridgeHome },
    });
    expect(badEnv.code).toBe(2);
    expect(badEnv.stderr).toContain('must be a BOURDON_PEER_* variable name');
  });

  it("sends this server's operator token (BOURDON_PEER_TOKEN_SERVER) only to a server on this machine", async () => {
    const secret = 'bdn_operator0123456789abcdef';
    const remote = await runCli(
      ['serve', '--url', 'https://desk.example:7500/mcp', '--token-env', 'BOURDON_PEER_TOKEN_SERVER'],
      { env: { BOURDON_PEER_TOKEN_SERVER: secret, BOURDON_HOME: bridgeHome } },
    );
    expect(remote.code).toBe(2);
    expect(remote.stderr).toContain('--token-env BOURDON_PEER_TOKEN_SERVER is refused for desk.example:7500');
    expect(remote.stderr).not.toContain(secret);
    // On loopback it is the operator reaching their own server: the bridge goes on to connect.
    const port = await deadPort();
    const local = await runCli(
      ['serve', '--url', `http://127.0.0.1:${port}`, '--token-env', 'BOURDON_PEER_TOKEN_SERVER'],
      { env: { BOURDON_PEER_TOKEN_SERVER: secret, BOURDON_HOME: bridgeHome } },
    );
    expect(local.code).toBe(FAILURES.peer_unreachable.exit);
    expect(local.stderr).toContain('cannot reach the Bourdon server');
  });
});

/** Connects a host client to a bridge's server in-process. */
function linkBridge(bridge: StdioBridge): Promise<Client> {
  return linkClient(bridge.createServer(), 'in-process-host');
}

describe('StdioBridge in-process', () => {
  it('gives up on a call after its budget (30 s in production) with an error result naming the wait', async () => {
    // The tool answers only when the test lets it, after the call has given up: the outcome
    // does not depend on how fast this machine is. Connecting has its own, generous budget.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow = () => {
      const mcp = new McpServer({ name: 'slow', version: '1' });
      mcp.registerTool('list_agents', { inputSchema: z.object({}) }, async () => {
        await held;
        return { content: [{ type: 'text', text: '{}' }] };
      });
      return mcp;
    };
    const upstream = await runHttpServer(slow, {
      port: 0,
      allowUnauthenticated: true,
      legacyToken: null,
      registry: null,
      warn: () => {},
    });
    const bridge = new StdioBridge({ url: upstream.url, timeoutMs: 400, connectTimeoutMs: 30_000, warn: () => {} });
    try {
      expect((await bridge.start()).tools).toBe(1);
      const client = await linkBridge(bridge);
      const result = await client.callTool({ name: 'list_agents', arguments: {} });
      release();
      expect(result.isError).toBe(true);
      expect(JSON.parse(text(result))).toEqual({
        error: `no answer from the Bourdon server at ${upstream.url} within 400 ms`,
      });
      await client.close();
    } finally {
      release();
      await bridge.close();
      await upstream.close();
    }
  });

  it("the server's own profile holds under a bridge that offers everything", async () => {
    const store = new LibraryStore(library, { warn: () => {} });
    const upstream = await runHttpServer(
      () => createMcpServer(store, { auditPath: null, warn: () => {}, toolFilter: profileFilter('read') }),
      {
        port: 0,
        allowUnauthenticated: true,
        legacyToken: null,
        registry: null,
        warn: () => {},
      },
    );
    const bridge = new StdioBridge({ url: upstream.url, warn: () => {} });
    try {
      expect((await bridge.start()).tools).toBe(READ_TOOLS.length);
      const client = await linkBridge(bridge);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([...READ_TOOLS]);
      const refused = await client.callTool({
        name: 'commit_to_federation',
        arguments: { agent_id: 'x', agent_type: 'other' },
      });
      expect(JSON.parse(text(refused))).toEqual({
        error: 'tool not offered on this connection',
        tool: 'commit_to_federation',
      });
      await client.close();
    } finally {
      await bridge.close();
      await upstream.close();
    }
  });

  it('bridges a handshake-era server with sessions (as the Python engine is), and survives its restart', async () => {
    const store = new LibraryStore(library, { warn: () => {} });
    // One transport per session, as a stateful server keeps them; a restart forgets them all.
    let sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
    let sessionsMade = 0;
    const upstream = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [key, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(key, value);
      const id = headers.get('mcp-session-id');
      let transport = id ? sessions.get(id) : undefined;
      if (id && !transport) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}');
        return;
      }
      if (!transport) {
        const fresh = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => crypto.randomUUID(),
          enableJsonResponse: true,
          onsessioninitialized: (sessionId) => {
            sessions.set(sessionId, fresh);
            sessionsMade++;
          },
        });
        await createMcpServer(store, { auditPath: null, warn: () => {} }).connect(fresh);
        transport = fresh;
      }
      const response = await transport.handleRequest(
        new Request(`http://${req.headers.host}${req.url}`, {
          method: req.method,
          headers,
          body: chunks.length ? Buffer.concat(chunks) : undefined,
        }),
      );
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(upstream.address() as net.AddressInfo).port}/mcp`;
    const bridge = new StdioBridge({ url, warn: () => {} });
    try {
      const info = await bridge.start();
      expect(info.protocolVersion).toBe('2025-11-25');
      const client = await linkBridge(bridge);
      const agents = JSON.parse(text(await client.callTool({ name: 'list_agents', arguments: {} })));
      expect(agents.agents).toContain('codex');
      sessions = new Map(); // the server restarts: the bridge's session is gone
      const again = JSON.parse(text(await client.callTool({ name: 'list_agents', arguments: {} })));
      expect(again).toEqual(agents);
      expect(sessionsMade).toBe(2); // a new session was made and the call was answered
      await client.close();
    } finally {
      await bridge.close();
      await new Promise<void>((resolve) => upstream.close(() => resolve()));
    }
  });

  it('a server that goes away mid-session: an error result, then it answers again once the server is back', async () => {
    const lib = copyFixtureLibrary();
    const store = new LibraryStore(lib, { warn: () => {} });
    const factory = () => createMcpServer(store, { auditPath: null, warn: () => {} });
    let upstream = await runHttpServer(factory, {
      port: 0,
      allowUnauthenticated: true,
      legacyToken: null,
      registry: null,
      warn: () => {},
    });
    const port = upstream.port;
    const bridge = new StdioBridge({ url: upstream.url, timeoutMs: 5_000, warn: () => {} });
    try {
      await bridge.start();
      const client = await linkBridge(bridge);
      await upstream.close();
      const down = await client.callTool({ name: 'list_agents', arguments: {} });
      expect(down.isError).toBe(true);
      expect(JSON.parse(text(down)).error).toMatch(
        /^cannot reach the Bourdon server at http:\/\/127\.0\.0\.1:\d+\/mcp: (connection refused|the connection was closed by the server)/,
      );
      upstream = await runHttpServer(factory, {
        port,
        allowUnauthenticated: true,
        legacyToken: null,
        registry: null,
        warn: () => {},
      });
      expect(JSON.parse(text(await client.callTool({ name: 'list_agents', arguments: {} }))).agents).toContain('codex');
      await client.close();
    } finally {
      await bridge.close();
      await upstream.close();
      fs.rmSync(lib, { recursive: true, force: true });
    }
  });
});
