/**
 * Trust over the real HTTP transport, end to end: a spawned `bourdon serve --transport http`,
 * members administered with the real CLI while it runs. A quarantined member is held to its
 * grants; a revoked or rotated-away token gets 401 on the very next request, without
 * restart; a tier change applies at once; and no token or hash reaches the server's stderr,
 * any response body or the audit log. Needs a build (dist/).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../src/core/trust/registry.js';
import { runCli } from './helpers/cli.js';
import { copyFixtureLibrary, tempDir } from './helpers/fixtures.js';
import { mcpHeaders, rawRequest, startHttpServe, type ServedHttp } from './helpers/http.js';
import { at } from './helpers/items.js';

let library: string;
let home: string;
let server: ServedHttp;
const tokens: string[] = [];
const bodies: string[] = [];
const env = () => ({ BOURDON_HOME: home, BOURDON_LIBRARY: library, BOURDON_LOCAL_NAME: 'fixture-machine' });

let nextId = 1;
/** One stateless 2025-era tools/call (no initialize needed); the JSON-RPC answer or the HTTP status. */
async function callTool(
  token: string,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ status: number; payload?: unknown }> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: nextId++,
    method: 'tools/call',
    params: { name, arguments: args },
  });
  const response = await rawRequest(server.url, { headers: mcpHeaders(token), body });
  bodies.push(response.body);
  if (response.status !== 200) return { status: response.status };
  const text = response.headers['content-type']?.includes('text/event-stream')
    ? (/^data: (.*)$/m.exec(response.body)?.[1] ?? '')
    : response.body;
  const message = JSON.parse(text) as { result?: { content: { text: string }[] } };
  return {
    status: 200,
    payload: message.result ? (JSON.parse(at(message.result.content, 0).text) as unknown) : message,
  };
}

beforeAll(async () => {
  library = copyFixtureLibrary();
  home = tempDir('bourdon-home-');
  const added = await runCli(['agent', 'add', 'openclaw', '--grant', 'cursor'], { env: env() });
  tokens.push(added.stdout.trim());
  // A second member keeps auth configured after openclaw is revoked (with none left: 503).
  const other = await runCli(['agent', 'add', 'laptop', '--tier', 'trusted'], { env: env() });
  tokens.push(other.stdout.trim());
  server = await startHttpServe(['serve', '--transport', 'http', '--port', '0'], env());
});
afterAll(async () => {
  if (server) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  fs.rmSync(library, { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
});

describe('a running HTTP server and its members', () => {
  it('holds a quarantined member to its grants and its tier', async () => {
    const token = at(tokens, 0);
    expect(await callTool(token, 'list_agents')).toEqual({ status: 200, payload: { agents: ['cursor'] } });
    expect((await callTool(token, 'get_cross_agent_summary', { project: 'Bourdon' })).payload).toEqual({
      error: 'access denied',
      op: 'get_cross_agent_summary',
      agent: 'openclaw',
      tier: 'quarantined',
      detail: "tier 'quarantined' may not call this tool",
    });
    const found = (await callTool(token, 'find_entity', { name: 'Home Finances', include_private: true })).payload as {
      matches: unknown[];
    };
    expect(found.matches).toEqual([]);
  });

  it('applies a grant and a tier change on the next request', async () => {
    const token = at(tokens, 0);
    expect((await runCli(['grant', 'openclaw', 'codex'], { env: env() })).code).toBe(0);
    expect((await callTool(token, 'list_agents')).payload).toEqual({ agents: ['codex', 'cursor'] });
    expect((await runCli(['agent', 'set-tier', 'openclaw', 'trusted'], { env: env() })).code).toBe(0);
    const summary = (await callTool(token, 'get_cross_agent_summary', { project: 'Bourdon' })).payload as Record<
      string,
      unknown
    >;
    expect(summary.error).toBeUndefined();
    expect((await runCli(['agent', 'set-tier', 'openclaw', 'quarantined'], { env: env() })).code).toBe(0);
    expect((await callTool(token, 'get_cross_agent_summary', { project: 'Bourdon' })).payload).toMatchObject({
      error: 'access denied',
    });
  });

  it('rejects a rotated-away token, then a revoked one, on the next request, without restart', async () => {
    const rotated = await runCli(['agent', 'rotate', 'openclaw'], { env: env() });
    const fresh = rotated.stdout.trim();
    tokens.push(fresh);
    expect((await callTool(at(tokens, 0), 'list_agents')).status).toBe(401);
    expect((await callTool(fresh, 'list_agents')).status).toBe(200);
    expect((await runCli(['revoke', 'openclaw'], { env: env() })).code).toBe(0);
    expect((await callTool(fresh, 'list_agents')).status).toBe(401);
    expect((await callTool(at(tokens, 1), 'list_agents')).status).toBe(200); // other members unaffected
    expect(server.child.exitCode).toBeNull(); // the same process all along
  });

  it('never lets a token or a hash reach stderr, a response or the audit log', async () => {
    expect((await callTool('bdn_' + 'f'.repeat(48), 'list_agents')).status).toBe(401);
    const audit = fs.readFileSync(path.join(home, 'audit.jsonl'), 'utf8');
    expect(audit.split('\n').filter(Boolean).length).toBeGreaterThanOrEqual(8);
    const everything = [server.stderr(), server.stdout(), audit, ...bodies].join('\n');
    for (const token of tokens) {
      expect(everything).not.toContain(token);
      expect(everything).not.toContain(token.slice(4, 24));
      expect(everything).not.toContain(hashToken(token).slice(0, 20));
    }
    expect(everything).not.toMatch(/[0-9a-f]{40}/);
  });
});
