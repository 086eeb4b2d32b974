/** HTTP test helpers: real MCP clients in each protocol era, and raw requests for the controls. */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { spawnUntil } from './cli.js';
import { FederationRegistry } from '../../src/core/trust/registry.js';
import { BIN, tempDir } from './fixtures.js';
import { at } from './items.js';

export type EraMode = 'legacy' | 'auto' | { pin: '2026-07-28' };
export const ERA_MODES: { label: string; mode: EraMode; version: string }[] = [
  { label: 'legacy (handshake, 2025-11-25)', mode: 'legacy', version: '2025-11-25' },
  { label: 'auto (negotiates 2026-07-28)', mode: 'auto', version: '2026-07-28' },
  { label: 'pinned 2026-07-28', mode: { pin: '2026-07-28' }, version: '2026-07-28' },
];

/** A connected SDK v2 client over HTTP; `token` goes in `Authorization: Bearer`. */
export async function httpClient(url: string, mode: EraMode, token?: string): Promise<Client> {
  const client = new Client({ name: 'bourdon-http-test', version: '1.0.0' }, { versionNegotiation: { mode } });
  const headers: Record<string, string> = token === undefined ? {} : { Authorization: `Bearer ${token}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** Calls `tool` on the server at `url` as the bearer of `token`, and parses the first text item (the engine's JSON). */
export async function callOverHttp(
  url: string,
  token: string,
  tool: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const client = await httpClient(url, 'auto', token);
  try {
    const result = await client.callTool({ name: tool, arguments: args });
    return JSON.parse(at(result.content as { text: string }[], 0, 'a content item').text) as Record<string, unknown>;
  } finally {
    await client.close();
  }
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  json(): unknown;
}

/**
 * One raw HTTP request (node:http, so Host and Origin can be anything). The body is sent
 * with a Content-Length unless `chunked` is set.
 */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; chunked?: boolean } = {},
): Promise<RawResponse> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...options.headers };
    if (options.body !== undefined && !options.chunked) headers['content-length'] = Buffer.byteLength(options.body);
    // `host: ''` means: send no Host header at all.
    const setHost = headers.host !== '';
    if (!setHost) delete headers.host;
    const req = http.request(
      {
        host: target.hostname.replace(/^\[|\]$/g, ''),
        port: target.port,
        path: target.pathname,
        method: options.method ?? 'POST',
        headers,
        setHost,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) as unknown });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (options.body !== undefined) {
      if (options.chunked) {
        // Several writes without a length: the server has to count as it reads.
        const buffer = Buffer.isBuffer(options.body) ? options.body : Buffer.from(options.body);
        const step = 256 * 1024;
        for (let offset = 0; offset < buffer.length; offset += step) req.write(buffer.subarray(offset, offset + step));
      } else {
        req.write(options.body);
      }
    }
    req.end();
  });
}

/** The headers a handshake-era MCP client sends with a POST. */
export function mcpHeaders(token?: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    ...extra,
  };
}

/** A handshake-era `tools/list` request body (stateless: no initialize needed). */
export const TOOLS_LIST_BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

/** Parses the JSON-RPC message out of a JSON or single-event SSE body. */
export function rpcMessage(body: string): Record<string, unknown> {
  const trimmed = body.trim();
  if (trimmed.startsWith('{')) return JSON.parse(trimmed) as Record<string, unknown>;
  const data = trimmed
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim())
    .join('');
  return JSON.parse(data) as Record<string, unknown>;
}

/** Calls a tool and parses its single TextContent as JSON. */
export async function callJson(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text: string }[];
  return JSON.parse(at(content, 0, 'a content item').text) as Record<string, unknown>;
}

/** A spawned `bourdon serve --transport http`, once it said where it listens. */
export interface ServedHttp {
  child: ChildProcess;
  url: string;
  /** The stderr line that named the URL (the startup line). */
  startup: string;
  /** What it wrote on stderr so far. */
  stderr(): string;
  /** What it wrote on stdout so far (an HTTP server writes nothing there). */
  stdout(): string;
  /** Settles with the exit code when the process has exited. */
  exited: Promise<number | null>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Spawns the real binary (`bin`: `bourdon` unless another, such as `bourdon-l6-server`) with
 * `args` (a command line that serves over HTTP) and resolves once its stderr names the URL it
 * listens on; rejects when it exits first, or says nothing of it within 30 s (then it is killed).
 */
export async function startHttpServe(
  args: string[],
  env: Record<string, string | undefined>,
  bin: string = BIN,
): Promise<ServedHttp> {
  const served = await spawnUntil(args, env, {
    stream: 'stderr',
    pattern: /^.*listening on (http:\/\/\S+\/mcp).*$/m,
    timeoutMs: 30_000,
    bin,
  });
  return {
    child: served.child,
    url: served.match[1]!,
    startup: served.match[0],
    stderr: served.stderr,
    stdout: served.stdout,
    exited: served.exited,
    stop: async () => {
      served.child.kill('SIGTERM');
      return served.exited;
    },
  };
}

/**
 * `bourdon serve --transport http` on `library` with one peer, `name` at `url`; the peer's token
 * variable (BOURDON_PEER_<NAME>) holds a placeholder, which the tests' stand-in peers never check.
 */
export function startHttpServeWithPeer(
  library: string,
  home: string,
  peer: { name: string; url: string },
): Promise<ServedHttp> {
  const tokenEnv = `BOURDON_PEER_${peer.name.toUpperCase()}`;
  const peersFile = path.join(home, 'peers.yaml');
  fs.writeFileSync(peersFile, `peers:\n  - {name: ${peer.name}, url: "${peer.url}", token_env: ${tokenEnv}}\n`);
  return startHttpServe(
    ['serve', '--transport', 'http', '--port', '0', '--library', library, '--peers-config', peersFile],
    { BOURDON_HOME: home, [tokenEnv]: 'not-checked-by-the-test-peer' },
  );
}

/**
 * A temp root holding a one-agent library (codex, which knows Bourdon) and a private home with
 * its member registry: what a served library under attack or load starts from.
 */
export function oneAgentLibrary(prefix: string): {
  root: string;
  library: string;
  home: string;
  registry: FederationRegistry;
} {
  const root = tempDir(prefix);
  const library = path.join(root, 'library');
  const home = path.join(root, 'home');
  fs.mkdirSync(path.join(library, 'agents'), { recursive: true });
  fs.mkdirSync(home, { mode: 0o700 });
  fs.writeFileSync(
    path.join(library, 'agents', 'codex.l5.yaml'),
    "spec_version: '0.1'\nagent: {id: codex, type: code-assistant}\nknown_entities:\n  - {name: Bourdon, type: project, tags: [local]}\n",
  );
  return { root, library, home, registry: new FederationRegistry(path.join(home, 'federation.yaml')) };
}

/** A port on this machine that refuses connections: bound once, then closed. */
export async function deadPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
