/**
 * `bourdon serve --transport http` and `bourdon-l6-server` spawned for real, driven by the SDK
 * client and by the official MCP Inspector CLI (stdio and HTTP). Needs a build (npm test does it).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FAILURES } from '../src/core/errors.js';
import { FederationRegistry } from '../src/core/trust/registry.js';
import { runCli } from './helpers/cli.js';
import { BIN, REPO_ROOT, copyFixtureLibrary, tempDir } from './helpers/fixtures.js';
import { ERA_MODES, callJson, httpClient, startHttpServe, type ServedHttp } from './helpers/http.js';
import { installInspector, INSPECTOR_VERSION, type InspectorInstall } from './helpers/inspector.js';
import { at } from './helpers/items.js';

const L6_BIN = path.join(REPO_ROOT, 'bin', 'l6-server.js');
const LEGACY_TOKEN = 'e2e-legacy-token-9f8e7d';

/**
 * A spawned server (helpers/http.ts) whose stop also checks that it wrote nothing on stdout:
 * over HTTP, stdout is not the protocol, and nothing else belongs there.
 */
async function startServer(bin: string, args: string[], env: Record<string, string | undefined>): Promise<ServedHttp> {
  const served = await startHttpServe(args, env, bin);
  return {
    ...served,
    stop: async () => {
      const code = await served.stop();
      expect(served.stdout(), 'an HTTP server writes nothing on stdout').toBe('');
      return code;
    },
  };
}

let library: string;
let home: string;
let memberToken: string;

beforeAll(() => {
  library = copyFixtureLibrary();
  home = tempDir('bourdon-e2e-http-');
  memberToken = new FederationRegistry(path.join(home, 'federation.yaml')).add('alice', { tier: 'trusted' }).token;
});
afterAll(() => {
  fs.rmSync(library, { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
});

describe('bourdon serve --transport http', () => {
  let server: ServedHttp;
  beforeAll(async () => {
    server = await startServer(BIN, ['serve', '--transport', 'http', '--port', '0', '--library', library], {
      BOURDON_HOME: home,
      BOURDON_PEER_TOKEN_SERVER: LEGACY_TOKEN,
    });
  });
  afterAll(async () => {
    if (server) await server.stop();
  });

  it('says on stderr where it listens and how callers authenticate, never a token', () => {
    expect(server.startup).toMatch(/^bourdon: serving .* over http: listening on http:\/\/127\.0\.0\.1:\d+\/mcp/);
    expect(server.startup).toContain('Authorization: Bearer <token>');
    expect(server.startup).toContain('registered member tokens');
    expect(server.startup).toContain('BOURDON_PEER_TOKEN_SERVER');
    expect(server.startup).toContain('2026-07-28');
    expect(server.stderr()).not.toContain(LEGACY_TOKEN);
    expect(server.stderr()).not.toContain(memberToken);
  });

  for (const era of ERA_MODES) {
    it(`${era.label}: a member token and the legacy token list and call tools`, async () => {
      for (const token of [memberToken, LEGACY_TOKEN]) {
        const client = await httpClient(server.url, era.mode, token);
        expect(client.getNegotiatedProtocolVersion()).toBe(era.version);
        expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('find_entity');
        const payload = await callJson(client, 'find_entity', { name: 'ILTT', access_level: 'team' });
        expect((payload.matches as unknown[]).length).toBe(1);
        await client.close();
      }
      await expect(httpClient(server.url, era.mode)).rejects.toThrow();
    });
  }

  it('stops cleanly on SIGTERM (exit 0)', async () => {
    const other = await startServer(BIN, ['serve', '--transport', 'http', '--port', '0', '--library', library], {
      BOURDON_HOME: home,
    });
    expect(await other.stop()).toBe(0);
  });
});

describe('unsafe binds refuse to start', () => {
  it('a non-loopback bind with no auth configured: exit 1, one line', async () => {
    const empty = tempDir('bourdon-e2e-noauth-');
    const result = await runCli(
      ['serve', '--transport', 'http', '--host', '0.0.0.0', '--port', '0', '--library', library],
      {
        env: { BOURDON_HOME: empty, BOURDON_PEER_TOKEN_SERVER: '' },
      },
    );
    expect(result.code).toBe(FAILURES.invalid_input.exit);
    // (The fixture library's broken manifest adds a warning line before it.)
    expect(result.stderr.split('\n').filter((line) => line.includes('refusing'))).toHaveLength(1);
    expect(result.stderr).toMatch(
      /^bourdon: refusing to start: bind '0\.0\.0\.0' is network-reachable but no auth is configured/m,
    );
  });

  it('--allow-unauthenticated on a non-loopback host: exit 1, even with auth configured', async () => {
    const result = await runCli(
      [
        'serve',
        '--transport',
        'http',
        '--host',
        '0.0.0.0',
        '--port',
        '0',
        '--allow-unauthenticated',
        '--library',
        library,
      ],
      { env: { BOURDON_HOME: home, BOURDON_PEER_TOKEN_SERVER: LEGACY_TOKEN } },
    );
    expect(result.code).toBe(FAILURES.invalid_input.exit);
    expect(result.stderr).toMatch(
      /^bourdon: refusing to start: --allow-unauthenticated with non-loopback bind '0\.0\.0\.0'/m,
    );
    expect(result.stderr).not.toContain(LEGACY_TOKEN);
  });

  it('bourdon-l6-server refuses the same way', async () => {
    const result = await runCli(
      ['--transport', 'http', '--host', '0.0.0.0', '--port', '0', '--allow-unauthenticated', '--library', library],
      {
        bin: L6_BIN,
        env: { BOURDON_HOME: home },
      },
    );
    expect(result.code).toBe(FAILURES.invalid_input.exit);
    expect(result.stderr).toContain('refusing to start');
  });
});

describe(`the MCP Inspector CLI (${INSPECTOR_VERSION})`, () => {
  let install: InspectorInstall;
  beforeAll(async () => {
    install = await installInspector();
  }, 180_000);
  beforeEach((context) => {
    if ('unavailable' in install) context.skip(`MCP Inspector not run: ${install.unavailable}`);
  });
  // Its catalog goes to the test's own folder, never ~/.mcp-inspector.
  const inspector = (args: string[]) =>
    runCli(['--cli', ...args], {
      bin: 'bin' in install ? install.bin : '',
      env: { BOURDON_HOME: home, MCP_CATALOG_PATH: path.join(home, 'inspector-catalog.json') },
      timeoutMs: 30_000,
    });

  it('over stdio: lists and calls tools on bourdon-l6-server', async () => {
    const list = await inspector(['node', L6_BIN, '--library', library, '--method', 'tools/list']);
    expect(list.code, list.stderr).toBe(0);
    const names = (JSON.parse(list.stdout) as { tools: { name: string }[] }).tools.map((tool) => tool.name);
    expect(names).toContain('find_entity');
    const call = await inspector([
      'node',
      L6_BIN,
      '--library',
      library,
      '--method',
      'tools/call',
      '--tool-name',
      'find_entity',
      '--tool-arg',
      'name=ILTT',
      '--tool-arg',
      'access_level=team',
    ]);
    expect(call.code, call.stderr).toBe(0);
    const result = JSON.parse(call.stdout) as { content: { text: string }[] };
    expect((JSON.parse(at(result.content, 0).text) as { matches: unknown[] }).matches).toHaveLength(1);
  });

  describe('over HTTP', () => {
    let open: ServedHttp;
    let authed: ServedHttp;
    beforeAll(async () => {
      // bourdon-l6-server with the Python flag names (a prefix, as argparse allows).
      open = await startServer(L6_BIN, ['--library', library, '--transport', 'http', '--port', '0', '--allow-unauth'], {
        BOURDON_HOME: home,
      });
      authed = await startServer(L6_BIN, ['--library', library, '--transport', 'http', '--port', '0'], {
        BOURDON_HOME: home,
        BOURDON_PEER_TOKEN_SERVER: LEGACY_TOKEN,
      });
    });
    afterAll(async () => {
      await Promise.all([open?.stop(), authed?.stop()]);
    });

    it('lists and calls tools on an --allow-unauthenticated loopback server', async () => {
      expect(open.startup).toContain('--allow-unauthenticated');
      const list = await inspector([open.url, '--transport', 'http', '--method', 'tools/list']);
      expect(list.code, list.stderr).toBe(0);
      expect(list.stdout).toContain('"find_entity"');
      const call = await inspector([
        open.url,
        '--transport',
        'http',
        '--method',
        'tools/call',
        '--tool-name',
        'find_entity',
        '--tool-arg',
        'name=Home Finances',
        '--tool-arg',
        'include_private=true',
      ]);
      expect(call.code, call.stderr).toBe(0);
      expect(call.stdout).toContain('Home Finances');
    });

    it('with a bearer token (member and legacy) it lists and calls tools; without one it gets 401', async () => {
      const denied = await inspector([authed.url, '--transport', 'http', '--method', 'tools/list']);
      expect(denied.code).not.toBe(0);
      expect(denied.stdout + denied.stderr).toMatch(/Bearer token|401|auth_required/);
      for (const token of [memberToken, LEGACY_TOKEN]) {
        const header = ['--header', `Authorization: Bearer ${token}`];
        const list = await inspector([authed.url, '--transport', 'http', ...header, '--method', 'tools/list']);
        expect(list.code, list.stderr).toBe(0);
        expect(list.stdout).toContain('"find_entity"');
        const call = await inspector([
          authed.url,
          '--transport',
          'http',
          ...header,
          '--method',
          'tools/call',
          '--tool-name',
          'find_entity',
          '--tool-arg',
          'name=ILTT',
          '--tool-arg',
          'access_level=team',
        ]);
        expect(call.code, call.stderr).toBe(0);
        expect(call.stdout).toContain('ILTT');
      }
      expect(authed.stderr()).not.toContain(memberToken);
    });
  });
});
