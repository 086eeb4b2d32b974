/**
 * The openclaw participant's rules beyond the recorded cases: it is the one network source, so
 * besides the handshake (versions, authentication) these pin what a user relies on when the
 * instance is slow, hostile or misconfigured — the token sent only as a Bearer header and never
 * shown or written anywhere, a clear single line for a 401, a stalled server, an oversized
 * answer, a redirect to another host, bodies that are not JSON or not the right JSON, a refused
 * connection — and the staging of its manifest for review. Run through the real binary against
 * local servers (test/helpers/openclaw-fake.ts).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import * as yaml from 'js-yaml';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
/** A failed export exits 1, as the engine's exporters do (docs/errors.md); `--json` carries the code. */
const EXPORT_FAILED = 1;
import type { CliResult } from './helpers/cli.js';
import { runExportCli } from './helpers/export-cli.js';
import { tempDir } from './helpers/fixtures.js';
import { serveFakeOpenclaw, serveHandler, type FakeApi, type FakeInstance } from './helpers/openclaw-fake.mjs';
import { createContext } from '../src/core/context.js';
import { LibraryStore } from '../src/core/store/library.js';
import { callerFor } from '../src/core/trust/registry.js';
import { stageCommit } from '../src/core/writes/staging.js';
import { stageExport } from '../src/core/writes/export-stage.js';
import { openclawParticipant } from '../src/participants/openclaw/index.js';
import { participantChecks } from '../src/cli/participant-checks.js';
import { pyStr, truthy } from '../src/core/python-str.js';
import { isoInstant } from '../src/core/native/python-dates.js';
import { parsePythonJson } from '../src/participants/kit/python-json.js';
import { exportEnvironment } from './helpers/participant-cases.js';
import {
  authenticationOn,
  compareVersions,
  handshakeProblem,
  MAX_VERSION_CHARS,
  MIN_VERSION,
  versionNumbers,
} from '../src/participants/openclaw/handshake.js';
import { insecureProblem, isLoopbackHost } from '../src/participants/openclaw/settings.js';
import { InstanceClient } from '../src/participants/openclaw/http.js';
import { at } from './helpers/items.js';

const TOKEN = 'oc-secret-7f3a9c1e2b4d6f80';

const STATUS = { version: '2026.3.2', auth_enabled: true };
const SESSIONS = [
  { title: 'Plan the allotment', updated_at: '2026-04-29T18:20:00Z', projects: ['garden'] },
  { title: 'Read the boiler manual', date: '2026-04-20' },
];
const MEMORIES = [{ name: 'Allotment', type: 'project', summary: 'Raised beds.', tags: ['garden'] }];

function api(routes: FakeApi['routes'] = {}, requireToken: string | null = TOKEN): FakeApi {
  return {
    require_token: requireToken,
    routes: {
      '/api/status': { json: STATUS },
      '/api/sessions': { json: SESSIONS },
      '/api/memories': { json: MEMORIES },
      ...routes,
    },
  };
}

let root: string;
let home: string;
let library: string;
let bourdonHome: string;
const servers: FakeInstance[] = [];

beforeEach(() => {
  root = tempDir('bourdon-openclaw-');
  home = path.join(root, 'home');
  library = path.join(root, 'library');
  bourdonHome = path.join(root, 'config');
  fs.mkdirSync(home);
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function instance(spec: FakeApi): Promise<FakeInstance> {
  const served = await serveFakeOpenclaw(spec);
  servers.push(served);
  return served;
}

async function handler(fn: Parameters<typeof serveHandler>[0]): Promise<FakeInstance> {
  const served = await serveHandler(fn);
  servers.push(served);
  return served;
}

function bourdon(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  return runExportCli({ home, bourdonHome, library }, args, env);
}

const out = () => path.join(root, 'out.l5.yaml');
const stagedFile = () => path.join(library, 'staging', 'openclaw', 'openclaw.l5.yaml');

/** Exactly one line on stderr, no stack trace. */
function oneLine(stderr: string): string {
  const lines = stderr.trimEnd().split('\n');
  expect(lines, stderr).toHaveLength(1);
  expect(stderr).not.toMatch(/^\s+at /m);
  return at(lines, 0, 'line');
}

/** Every file under `dir` (none when it does not exist), as text. */
function filesUnder(dir: string): Record<string, string> {
  const found: Record<string, string> = {};
  if (!fs.existsSync(dir)) return found;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    found[full] = fs.readFileSync(full, 'latin1');
  }
  return found;
}

function nothingWritten(): void {
  expect(fs.existsSync(out())).toBe(false);
  expect(fs.existsSync(path.join(library, 'staging'))).toBe(false);
}

describe('openclaw: the handshake rules', () => {
  it('reads the version as the engine does: leading digits of each piece, any script, a shorter prefix older', () => {
    expect(versionNumbers('2026.1.29-beta')).toEqual([2026, 1, 29]);
    expect(versionNumbers('2026.1x.5')).toEqual([2026, 1, 5]);
    expect(versionNumbers('2026.beta.5')).toEqual([2026]);
    expect(versionNumbers('v2026.3')).toEqual([]);
    expect(versionNumbers('٢٠٢٦.١.٢٩')).toEqual([2026, 1, 29]);
    expect(versionNumbers('𝟐𝟎𝟐𝟔.𝟏.𝟐𝟗')).toEqual([2026, 1, 29]);
    expect(compareVersions([2026, 1], MIN_VERSION)).toBeLessThan(0);
    expect(compareVersions([2026, 1, 28, 9], MIN_VERSION)).toBeLessThan(0);
    expect(compareVersions([2026, 1, 29], MIN_VERSION)).toBe(0);
    expect(compareVersions([2026, 1, 29, 0], MIN_VERSION)).toBeGreaterThan(0);
    expect(compareVersions([2027], MIN_VERSION)).toBeGreaterThan(0);
  });

  it('takes the first non-blank version string, trimmed; refuses old, unnumbered and missing versions', () => {
    const on = { auth_enabled: true };
    expect(handshakeProblem({ ...on, version: '  2026.2.0 ' })).toEqual({ version: '2026.2.0' });
    expect(handshakeProblem({ ...on, version: 2027, openclaw_version: ' ', app_version: '2026.1.29' })).toEqual({
      version: '2026.1.29',
    });
    expect(handshakeProblem({ ...on, version: '2026.1' }).problem).toMatch(/older than 2026\.1\.29/);
    expect(handshakeProblem({ ...on, version: 'v2026.3' }).problem).toMatch(/names no release number/);
    expect(handshakeProblem(on).problem).toMatch(/no version/);
  });

  it('decides authentication by the first key present, by Python truthiness, then auth.enabled', () => {
    expect(authenticationOn({ auth_enabled: 'false' })).toBe(true);
    expect(authenticationOn({ auth_enabled: 1 })).toBe(true);
    for (const off of [0, false, null, '', [], {}]) expect(authenticationOn({ auth_enabled: off })).toBe(false);
    expect(authenticationOn({ auth_enabled: false, authEnabled: true })).toBe(false);
    expect(authenticationOn({ authEnabled: [1] })).toBe(true);
    expect(authenticationOn({ auth: { enabled: true } })).toBe(true);
    expect(authenticationOn({ auth: { enabled: 0 } })).toBe(false);
    expect(authenticationOn({ auth: true })).toBe(false);
    expect(authenticationOn({})).toBe(false);
  });
});

describe('openclaw export: the handshake, through the binary', () => {
  it('refuses an older instance with one line naming the version it needs, writing nothing', async () => {
    const server = await instance(api({ '/api/status': { json: { version: '2026.1.28', auth_enabled: true } } }));
    const result = await bourdon(['openclaw', 'export', '--out', out()], {
      OPENCLAW_URL: server.url,
      OPENCLAW_TOKEN: TOKEN,
    });
    expect(result.code).toBe(EXPORT_FAILED);
    expect(oneLine(result.stderr)).toMatch(/handshake refused: OpenClaw 2026\.1\.28 is older than 2026\.1\.29/);
    expect(server.requests.map((request) => request.path)).toEqual(['/api/status']);
    nothingWritten();
  });

  it('refuses an instance without authentication', async () => {
    const server = await instance(api({ '/api/status': { json: { version: '2026.3.0', auth_enabled: 0 } } }, null));
    const result = await bourdon(['openclaw', 'export'], { OPENCLAW_URL: server.url });
    expect(result.code).toBe(EXPORT_FAILED);
    expect(oneLine(result.stderr)).toMatch(/handshake refused: the instance runs without authentication/);
    nothingWritten();
  });
});

describe('openclaw export: the token', () => {
  it('is sent as a Bearer header on every request and appears in no output, log, audit line or file', async () => {
    const server = await instance(
      api({ '/api/memories': { json: [...MEMORIES, { name: 'Echo', summary: 'plain text' }] } }),
    );
    const env = { OPENCLAW_URL: server.url, OPENCLAW_TOKEN: TOKEN };
    const staged = await bourdon(['openclaw', 'export', '--json'], env);
    expect(staged.code, staged.stderr).toBe(0);
    const printed = await bourdon(['openclaw', 'export', '--out', out(), '--print'], env);
    expect(printed.code, printed.stderr).toBe(0);
    const dry = await bourdon(['openclaw', 'export', '--dry-run', '--json', '--print'], env);
    expect(dry.code, dry.stderr).toBe(0);
    expect(server.requests.length).toBeGreaterThanOrEqual(9);
    for (const request of server.requests) expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);

    const files = { ...filesUnder(library), ...filesUnder(bourdonHome), ...filesUnder(path.dirname(out())) };
    expect(Object.keys(files)).toContain(stagedFile());
    expect(Object.keys(files)).toContain(path.join(bourdonHome, 'audit.jsonl'));
    expect(files[path.join(bourdonHome, 'audit.jsonl')]).toMatch(/"op":"stage"/);
    for (const [file, text] of Object.entries(files)) expect(text, file).not.toContain(TOKEN);
    for (const result of [staged, printed, dry]) {
      expect(result.stdout).not.toContain(TOKEN);
      expect(result.stderr).not.toContain(TOKEN);
    }
  });

  it('a refused token is named in one line, its value never shown', async () => {
    const server = await instance(api());
    const wrong = 'oc-wrong-token-5e8d2a1c9b7f';
    const result = await bourdon(['openclaw', 'export', '--out', out()], {
      OPENCLAW_URL: server.url,
      OPENCLAW_TOKEN: wrong,
    });
    expect(result.code).toBe(EXPORT_FAILED);
    const line = oneLine(result.stderr);
    expect(line).toMatch(/HTTP 401: the instance refused the token in OPENCLAW_TOKEN/);
    expect(result.stderr + result.stdout).not.toContain(wrong);
    nothingWritten();
  });

  it('a missing token on an instance that wants one: one line saying to set OPENCLAW_TOKEN', async () => {
    const server = await instance(api());
    const result = await bourdon(['openclaw', 'export', '--json'], { OPENCLAW_URL: server.url });
    expect(result.code).toBe(EXPORT_FAILED);
    expect(JSON.parse(result.stdout).error).toMatch(/HTTP 401: the instance wants its API token in OPENCLAW_TOKEN/);
    nothingWritten();
  });

  it('is never a flag, and a token that cannot be a header value is refused without echoing it', async () => {
    const flagged = await bourdon(['openclaw', 'export', '--token', TOKEN]);
    expect(flagged.code).toBe(2);
    const server = await instance(api());
    const spaced = 'two words secret';
    const result = await bourdon(['openclaw', 'export'], { OPENCLAW_URL: server.url, OPENCLAW_TOKEN: spaced });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/OPENCLAW_TOKEN holds a space/);
    expect(result.stderr).not.toContain(spaced);
    expect(server.requests).toEqual([]);
  });

  it('a URL carrying credentials is refused before any request, the password not shown', async () => {
    const server = await instance(api());
    const url = server.url.replace('http://', 'http://me:hunter2pass@');
    const result = await bourdon(['openclaw', 'export', '--url', url]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/carries credentials/);
    expect(result.stderr).not.toContain('hunter2pass');
    expect(server.requests).toEqual([]);
  });
});

describe('openclaw export: a slow, large or redirecting instance', () => {
  it('a server that accepts and never answers: the export ends at the timeout with one line, writing nothing', async () => {
    const server = await handler(() => {
      // Never answers: the request stays open until the client gives up.
    });
    const result = await bourdon(['openclaw', 'export', '--timeout', '0.5', '--out', out()], {
      OPENCLAW_URL: server.url,
    });
    expect(result.code).toBe(EXPORT_FAILED);
    expect(oneLine(result.stderr)).toMatch(/\/api\/status did not answer within 0\.5 s/);
    nothingWritten();
  });

  it('a stall after the handshake fails the export too: no partial manifest is staged', async () => {
    const server = await handler((request, response) => {
      if (request.url === '/api/status') {
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.end(JSON.stringify(STATUS));
      }
      // /api/sessions: headers, then nothing more.
      else response.writeHead(200, { 'Content-Type': 'application/json' }).write('[');
    });
    const result = await bourdon(['openclaw', 'export'], {
      OPENCLAW_URL: server.url,
      BOURDON_OPENCLAW_TIMEOUT: '0.5',
    });
    expect(result.code).toBe(EXPORT_FAILED);
    expect(oneLine(result.stderr)).toMatch(/\/api\/sessions did not answer within 0\.5 s/);
    nothingWritten();
  });

  it('an answer over the size cap is refused, declared or streamed', async () => {
    const server = await handler((request, response) => {
      if (request.url === '/api/status') {
        response.writeHead(200, { 'Content-Type': 'application/json' });
        return response.end(JSON.stringify(STATUS));
      }
      // No Content-Length: chunks until the client hangs up.
      response.writeHead(200, { 'Content-Type': 'application/json' });
      const chunk = Buffer.alloc(16 * 1024, 0x20);
      const pump = () => {
        while (!response.destroyed && response.write(chunk));
        if (!response.destroyed) response.once('drain', pump);
      };
      response.on('close', () => response.removeAllListeners('drain'));
      pump();
    });
    const streamed = await bourdon(['openclaw', 'export', '--out', out()], {
      OPENCLAW_URL: server.url,
      BOURDON_OPENCLAW_MAX_BYTES: '65536',
    });
    expect(streamed.code).toBe(EXPORT_FAILED);
    expect(oneLine(streamed.stderr)).toMatch(/\/api\/sessions answered more than 65536 bytes .*refused/);
    nothingWritten();

    const declared = await instance(api({ '/api/status': { json: { ...STATUS, padding: 'x'.repeat(2000) } } }, null));
    const result = await bourdon(['openclaw', 'export'], {
      OPENCLAW_URL: declared.url,
      BOURDON_OPENCLAW_MAX_BYTES: '1024',
    });
    expect(result.code).toBe(EXPORT_FAILED);
    expect(oneLine(result.stderr)).toMatch(/handshake refused: \/api\/status answered more than 1024 bytes/);
  });

  it('a body of many chunks is read byte for byte, its length declared or not, or declared and cut short', async () => {
    // 300 kB of every byte value, written 7 kB at a time: many reads, none on a boundary.
    const body = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 256));
    const server = await handler((request, response) => {
      const declared = request.url !== '/chunked';
      response.writeHead(200, declared ? { 'Content-Length': String(body.length) } : {});
      const sent = request.url === '/cut' ? body.subarray(0, 100_000) : body;
      for (let at = 0; at < sent.length; at += 7_000) response.write(sent.subarray(at, at + 7_000));
      if (request.url === '/cut') response.destroy();
      else response.end();
    });
    const client = (): InstanceClient =>
      new InstanceClient({ baseUrl: server.url, connectTimeoutMs: 5_000, timeoutMs: 10_000, maxBytes: 1_000_000 });
    for (const route of ['/declared', '/chunked']) {
      const answer = await client().get(route);
      expect(answer.status).toBe(200);
      expect(answer.body.equals(body)).toBe(true);
    }
    await expect(client().get('/cut')).rejects.toThrow(/the answer was cut off|ECONNRESET|socket hang up/);
  });

  it('a redirect to another host is not followed (the token is never sent there); one on the same origin is', async () => {
    const elsewhere = await instance(api({}, null));
    // localhost is another origin than 127.0.0.1, though the same machine.
    const away = elsewhere.url.replace('127.0.0.1', 'localhost');
    const server = await handler((request, response) => {
      if (request.url === '/api/status') {
        response.writeHead(302, { Location: `${away}/api/status` });
        return response.end();
      }
      response.writeHead(404).end();
    });
    const result = await bourdon(['openclaw', 'export', '--out', out()], {
      OPENCLAW_URL: server.url,
      OPENCLAW_TOKEN: TOKEN,
    });
    expect(result.code).toBe(EXPORT_FAILED);
    expect(oneLine(result.stderr)).toMatch(/redirects to another origin \(http:\/\/localhost:\d+\); not followed/);
    expect(elsewhere.requests).toEqual([]);
    nothingWritten();

    const moved = await handler((request, response) => {
      const routes: Record<string, unknown> = {
        '/v2/status': STATUS,
        '/api/sessions': SESSIONS,
        '/api/memories': MEMORIES,
      };
      if (request.url === '/api/status') return response.writeHead(301, { Location: '/v2/status' }).end();
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(routes[request.url ?? '']));
    });
    const followed = await bourdon(['openclaw', 'export', '--out', out()], {
      OPENCLAW_URL: moved.url,
      OPENCLAW_TOKEN: TOKEN,
    });
    expect(followed.code, followed.stderr).toBe(0);
    expect(moved.requests.slice(0, 2).map((request) => request.headers.authorization)).toEqual([
      `Bearer ${TOKEN}`,
      `Bearer ${TOKEN}`,
    ]);
  });

  it('a refused connection: one line, nothing written', async () => {
    const closed = await handler(() => {});
    const url = closed.url;
    await servers.pop()!.close();
    const result = await bourdon(['openclaw', 'export', '--out', out()], { OPENCLAW_URL: url });
    expect(result.code).toBe(EXPORT_FAILED);
    expect(oneLine(result.stderr)).toMatch(/handshake refused: connection refused at http:\/\/127\.0\.0\.1:\d+/);
    nothingWritten();
  });

  it('a connection cut before the answer: one line naming the system code, unreachable as every remote call', async () => {
    const server = await handler((request) => {
      request.socket.destroy();
    });
    const result = await bourdon(['openclaw', 'export', '--out', out()], { OPENCLAW_URL: server.url });
    expect(result.code).toBe(EXPORT_FAILED);
    expect(oneLine(result.stderr)).toBe(
      `bourdon: openclaw: handshake refused: the network dropped the connection to ${server.url} before it answered (ECONNRESET)`,
    );
    const json = await bourdon(['openclaw', 'export', '--out', out(), '--json'], { OPENCLAW_URL: server.url });
    expect(json.code).toBe(EXPORT_FAILED);
    expect(JSON.parse(json.stdout)).toMatchObject({ code: 'peer_unreachable' });
    nothingWritten();
  });
});

describe('openclaw export: answers that are not what they should be', () => {
  it('a status that is not JSON, or not an object: refused in one line', async () => {
    const html = await instance(api({ '/api/status': { text: '<html>login</html>' } }, null));
    const result = await bourdon(['openclaw', 'export'], { OPENCLAW_URL: html.url });
    expect(result.code).toBe(EXPORT_FAILED);
    expect(oneLine(result.stderr)).toMatch(/handshake refused: \/api\/status answered a body that is not JSON/);
    const list = await instance(api({ '/api/status': { json: ['2026.3.2'] } }, null));
    const listed = await bourdon(['openclaw', 'export'], { OPENCLAW_URL: list.url });
    expect(listed.code).toBe(EXPORT_FAILED);
    expect(oneLine(listed.stderr)).toMatch(/handshake refused: \/api\/status reports no version/);
    nothingWritten();
  });

  it('wrong-typed or broken lists and fields are skipped with a warning each; the rest is exported', async () => {
    const server = await handler((request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      if (request.url === '/api/status') return response.end(JSON.stringify(STATUS));
      if (request.url === '/api/sessions')
        return response.end(
          JSON.stringify({
            sessions: [
              { title: 'Kept', date: '2026-04-28', projects: { not: 'a list' } },
              { title: 'Also kept', date: '2026-04-27', projects: 7 },
            ],
          }),
        );
      // Invalid UTF-8 in the memories body.
      response.end(Buffer.from([0x5b, 0x22, 0xff, 0xfe, 0x22, 0x5d]));
    });
    const result = await bourdon(['openclaw', 'export', '--out', out()], { OPENCLAW_URL: server.url });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toMatch(/^\s+at /m);
    const warnings = result.stderr.trimEnd().split('\n');
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toMatch(/the projects of the session of 2026-04-28 is an object, not a list; skipped/);
    expect(warnings[1]).toMatch(/the projects of the session of 2026-04-27 is a number, not a list; skipped/);
    expect(warnings[2]).toMatch(/\/api\/memories answered a body that is not UTF-8; no memories read/);
    const doc = yaml.load(fs.readFileSync(out(), 'utf8')) as Record<string, unknown>;
    expect(doc.recent_sessions).toEqual([
      { date: '2026-04-28', key_actions: ['Kept'] },
      { date: '2026-04-27', key_actions: ['Also kept'] },
    ]);
    expect(doc.known_entities).toEqual([]);

    const numbers = await instance(
      api({ '/api/sessions': { json: 42 }, '/api/memories': { json: { memories: 5 } } }, null),
    );
    const typed = await bourdon(['openclaw', 'export', '--out', out()], { OPENCLAW_URL: numbers.url });
    expect(typed.code, typed.stderr).toBe(0);
    expect(typed.stderr).toMatch(/\/api\/sessions answered a number where a list of sessions belongs/);
    expect(typed.stderr).toMatch(/\/api\/memories answered a number where a list of memories belongs/);
  });

  it('an HTTP error on a list route reads none of it, as the engine does, with a warning', async () => {
    const server = await instance(api({ '/api/memories': { status: 500, json: { error: 'boom' } } }, null));
    const result = await bourdon(['openclaw', 'export', '--out', out()], { OPENCLAW_URL: server.url });
    expect(result.code, result.stderr).toBe(0);
    expect(oneLine(result.stderr)).toMatch(/\/api\/memories answered HTTP 500; no memories read/);
    const doc = yaml.load(fs.readFileSync(out(), 'utf8')) as Record<string, unknown>;
    expect((doc.recent_sessions as unknown[]).length).toBe(2);
    expect(doc.known_entities).toEqual([]);
  });
});

describe('openclaw export: staging for review', () => {
  it('without --out the manifest is staged, `staging list` shows it and `staging promote` makes it live', async () => {
    const server = await instance(api());
    const env = { OPENCLAW_URL: server.url, OPENCLAW_TOKEN: TOKEN };
    const staged = await bourdon(['openclaw', 'export'], env);
    expect(staged.code, staged.stderr).toBe(0);
    expect(staged.stdout).toMatch(/^staged openclaw: 1 entity, 2 sessions → .*staging\/openclaw\/openclaw\.l5\.yaml/);
    expect(staged.stdout).toMatch(/bourdon staging promote openclaw/);
    expect(fs.existsSync(path.join(library, 'agents', 'openclaw.l5.yaml'))).toBe(false);
    const doc = yaml.load(fs.readFileSync(stagedFile(), 'utf8')) as Record<string, unknown>;
    expect((doc.agent as Record<string, unknown>).instance).toBe(server.url);

    const again = await bourdon(['openclaw', 'export'], env);
    expect(again.stdout).toMatch(/^unchanged openclaw: .*already staged at/);

    const listed = await bourdon(['staging', 'list', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({
        caller: 'openclaw',
        agent_id: 'openclaw',
        entities: 1,
        sessions: 2,
        path: stagedFile(),
      }),
    ]);
    const promoted = await bourdon(['staging', 'promote', 'openclaw', '--yes']);
    expect(promoted.code, promoted.stderr).toBe(0);
    expect(fs.existsSync(stagedFile())).toBe(false);
    const live = yaml.load(fs.readFileSync(path.join(library, 'agents', 'openclaw.l5.yaml'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect((live.known_entities as { name: string }[]).map((entity) => entity.name)).toEqual(['Allotment']);
  });

  it('after a promotion, the same rows are unchanged: nothing is staged again', async () => {
    const server = await instance(api());
    const env = { OPENCLAW_URL: server.url, OPENCLAW_TOKEN: TOKEN };
    expect(JSON.parse((await bourdon(['openclaw', 'export', '--json'], env)).stdout)).toMatchObject({
      outcome: 'staged',
      written: true,
      staged: true,
    });
    const promoted = await bourdon(['staging', 'promote', 'openclaw', '--yes']);
    expect(promoted.code, promoted.stderr).toBe(0);
    const livePath = path.join(library, 'agents', 'openclaw.l5.yaml');

    const again = await bourdon(['openclaw', 'export'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(
      new RegExp(`^unchanged openclaw: 1 entity, 2 sessions; ${livePath} already holds them`),
    );
    expect(fs.existsSync(stagedFile())).toBe(false);
    const all = await bourdon(['export-all', '--json'], env);
    const run = (JSON.parse(all.stdout) as { results: { agent_id: string }[] }).results.find(
      (entry) => entry.agent_id === 'openclaw',
    );
    expect(run).toMatchObject({ outcome: 'unchanged', written: false, staged: false });
    expect(fs.existsSync(stagedFile())).toBe(false);
    expect((await bourdon(['staging', 'list', '--json'])).stdout.trim()).toBe('[]');

    // A row the live manifest does not hold is staged for review again.
    const changed = await instance(
      api({ '/api/memories': { json: [...MEMORIES, { name: 'Boiler', summary: 'Serviced in April.' }] } }),
    );
    const restaged = await bourdon(['export-all'], { OPENCLAW_URL: changed.url, OPENCLAW_TOKEN: TOKEN });
    expect(restaged.stdout).toMatch(/^staged\s+openclaw: 2 entities, 2 sessions, for review$/m);
    expect(fs.existsSync(stagedFile())).toBe(true);
  });

  it('--help says where the manifest goes without --out', async () => {
    const help = await bourdon(['openclaw', 'export', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toMatch(/staged at <library>\/staging\/openclaw\/openclaw\.l5\.yaml/);
    expect(help.stdout).toMatch(/OPENCLAW_TOKEN/);
    expect(help.stdout).not.toMatch(/--token/);
  });
});

describe("stageExport: a new export replaces its previous staged one, never the member's own staged rows", () => {
  it('keeps rows OpenClaw staged through commit_to_federation, drops rows only its previous export wrote', async () => {
    fs.mkdirSync(path.join(library, 'agents'), { recursive: true });
    const store = new LibraryStore(library, { warn: () => {} });
    const audit = path.join(bourdonHome, 'audit.jsonl');
    const operator = createContext(store, { warn: () => {}, env: {} });
    const member = createContext(store, {
      caller: callerFor('openclaw', { tier: 'quarantined', grants: [] }),
      warn: () => {},
      env: {},
    });
    const exported = (names: string[]) => ({
      spec_version: '0.1',
      agent: { id: 'openclaw', type: 'other', instance: 'http://127.0.0.1:8080' },
      last_updated: '2026-05-01T12:00:00Z',
      known_entities: names.map((name) => ({ name, type: 'topic', summary: '' })),
      recent_sessions: [],
    });
    const request = (names: string[]) => ({
      agentId: 'openclaw',
      actor: 'participant:openclaw',
      manifest: exported(names),
      auditPath: audit,
      detail: `${names.length} entities`,
    });
    const namesStaged = () =>
      (
        (yaml.load(fs.readFileSync(stagedFile(), 'utf8')) as Record<string, unknown>).known_entities as {
          name: string;
        }[]
      ).map((entity) => entity.name);

    await stageExport(operator, request(['Old export row']));
    await stageCommit(member, { agent_id: 'openclaw', entities: [{ name: 'Staged by the member', summary: 'mine' }] });
    const second = await stageExport(operator, request(['Fresh export row']));
    expect(second.written).toBe(true);
    expect(second.kept.entities).toBe(1);
    expect(namesStaged().sort()).toEqual(['Fresh export row', 'Staged by the member']);
    const same = await stageExport(operator, request(['Fresh export row']));
    expect(same.written).toBe(false);
  });
});

describe('openclaw sources (doctor, export-all)', () => {
  it('found when the instance answers (even 401, without sending the token), not when nothing listens', async () => {
    const server = await instance(api());
    const env = (url: string) => exportEnvironment(home, { env: { OPENCLAW_URL: url, OPENCLAW_TOKEN: TOKEN } });
    expect(await openclawParticipant.sources(env(`${server.url}/`))).toEqual([
      { name: 'instance', path: server.url, found: true },
    ]);
    expect(server.requests.map((request) => request.headers.authorization)).toEqual([undefined]);
    const closed = await handler(() => {});
    const url = closed.url;
    await servers.pop()!.close();
    expect(await openclawParticipant.sources(env(url))).toEqual([{ name: 'instance', path: url, found: false }]);
  });

  it('doctor reports an answering instance as found and readable (a URL is not a file to check)', async () => {
    const server = await instance(api());
    const checks = await participantChecks({ HOME: home, OPENCLAW_URL: server.url });
    const check = checks.find((item) => item.id === 'participant:openclaw');
    expect(check).toMatchObject({ verdict: 'ok', details: [`found    instance: ${server.url}`] });
  });

  it('a URL with credentials is not found, and shown without them', async () => {
    const sources = await openclawParticipant.sources(
      exportEnvironment(home, { env: { OPENCLAW_URL: 'http://me:hunter2pass@127.0.0.1:9/' } }),
    );
    const source = at(sources, 0, 'source');
    expect(source.found).toBe(false);
    expect(source.problem).toMatch(/carries credentials/);
    expect(JSON.stringify(source)).not.toContain('hunter2pass');
  });
});

describe('openclaw values as Python reads them (checked against python3)', () => {
  it('str() of JSON values — floats, exponents, big integers, NaN/Infinity, nested — and their truthiness', () => {
    const numbers = ['1', '-0', '2.0', '2.5', '-0.0', '0.0', '1e16', '1E-5', '0.0001', '1e15', '100.0', '0.1'];
    numbers.push('123456789012345678.0', '12345678901234567890', '-9007199254740993', '1e400', '-1e400', '5e-324');
    numbers.push('1.7976931348623157e308', '3.14159265358979', '1e22', '123e-2', 'NaN', 'Infinity', '-Infinity');
    const documents = [...numbers, '[1.0, "a", null, true, {"k": 2.50}]', '{"a": [1e3, "it\'s"], "b": {}}', '[]'];
    documents.push('"1.5 inside a string"', '{"__proto__": 1.5}', '[0.0, 0, "", [], {}]');
    const script =
      'import json,sys\nout=[]\nfor t in json.load(sys.stdin):\n' +
      '  v=json.loads(t)\n  out.append([str(v), bool(v), [bool(x) for x in v] if isinstance(v, list) else None])\n' +
      'print(json.dumps(out))\n';
    const run = spawnSync('python3', ['-c', script], { input: JSON.stringify(documents), encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const expected = JSON.parse(run.stdout) as unknown[];
    const ours = documents.map((text) => {
      const value = parsePythonJson(text);
      return [pyStr(value), truthy(value), Array.isArray(value) ? value.map(truthy) : null];
    });
    expect(ours).toEqual(expected);
  });

  it('refuses what Python refuses', () => {
    for (const text of ['01', '[1,]', '{"a" 1}', '1.', '.5', '[1.5', '"\\u00"', '\ufeff[]', 'nan', "{'a': 1}"])
      expect(() => parsePythonJson(text), text).toThrow(SyntaxError);
  });

  it('reads dates as datetime.fromisoformat does, naive as UTC', () => {
    const samples = ['2026-04-20', '2026-04-19T23:59:59Z', '2026-04-21T01:00:00+05:00', '2026-04-19T22:00:00-03:00'];
    samples.push('last tuesday', '2026-04-20 10:00:00.5', '20260420T1000', '2026-W16-1T12:30+0130', '0099-01-01');
    samples.push('2026-04-20T10:00:00.123456-00:30', '2026-04-20T25:00', '2026-02-30', '2026-04-20T10:00:00+24:00');
    const script =
      'import json,sys\nfrom datetime import datetime, timezone\nout=[]\nfor v in json.load(sys.stdin):\n' +
      '  try:\n    d=datetime.fromisoformat(v.replace("Z","+00:00"))\n' +
      '    out.append(round((d if d.tzinfo else d.replace(tzinfo=timezone.utc)).timestamp()*1000, 3))\n' +
      '  except ValueError: out.append(None)\nprint(json.dumps(out))\n';
    const run = spawnSync('python3', ['-c', script], { input: JSON.stringify(samples), encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const ours = samples.map((sample) => {
      const at = isoInstant(sample);
      return at === undefined ? null : Math.round(at * 1000) / 1000;
    });
    expect(ours).toEqual(JSON.parse(run.stdout));
  });
});

describe('openclaw export: an instance that echoes the token', () => {
  it('the token it sends back (version, memory, session) is in no staged file, export copy, --print or --json', async () => {
    const server = await instance(
      api({
        '/api/status': { json: { ...STATUS, version: `2026.3.2+${TOKEN}` } },
        '/api/memories': {
          json: [{ name: `Echo ${TOKEN}`, summary: `the key is ${TOKEN}`, tags: [TOKEN, 'garden'] }],
        },
        '/api/sessions': { json: [{ title: `logged in with ${TOKEN}`, date: '2026-04-29', projects: [TOKEN] }] },
      }),
    );
    const env = { OPENCLAW_URL: server.url, OPENCLAW_TOKEN: TOKEN };
    const staged = await bourdon(['openclaw', 'export', '--json'], env);
    expect(staged.code, staged.stderr).toBe(0);
    const printed = await bourdon(['openclaw', 'export', '--dry-run', '--json', '--print'], env);
    expect(printed.code, printed.stderr).toBe(0);
    const out1 = await bourdon(['openclaw', 'export', '--out', out(), '--print'], env);
    expect(out1.code, out1.stderr).toBe(0);
    const files = { ...filesUnder(library), ...filesUnder(bourdonHome), ...filesUnder(path.dirname(out())) };
    expect(Object.keys(files)).toContain(stagedFile());
    expect(Object.keys(files).some((file) => file.includes(`${path.sep}.exports${path.sep}`))).toBe(true);
    for (const [file, text] of Object.entries(files)) expect(text, file).not.toContain(TOKEN);
    for (const result of [staged, printed, out1]) expect(result.stdout + result.stderr).not.toContain(TOKEN);
    // What was around the token is kept; the token itself reads [redacted].
    const doc = yaml.load(JSON.parse(printed.stdout).yaml) as Record<string, unknown>;
    expect(doc.capabilities).toEqual(['openclaw 2026.3.2+[redacted]']);
    expect(doc.known_entities).toEqual([
      expect.objectContaining({ name: 'Echo [redacted]', summary: 'the key is [redacted]' }),
    ]);
  });
});

describe('openclaw export: the version an instance reports', () => {
  it('is written into capabilities without escapes or secret values, and cut: never 2 MB of it', async () => {
    const key = 'AKIAZ7Q4M2XK9PLR3TQW';
    const version = `2026.3.2 \u001b]0;owned\u0007\u001b[2J build ${key} ${'x'.repeat(2 * 1024 * 1024)}`;
    const server = await instance(api({ '/api/status': { json: { ...STATUS, version } } }, null));
    const result = await bourdon(['openclaw', 'export', '--out', out()], { OPENCLAW_URL: server.url });
    expect(result.code, result.stderr).toBe(0);
    const written = fs.readFileSync(out(), 'utf8');
    expect(written.length).toBeLessThan(4096);
    expect(written).not.toContain(key);
    expect(written).not.toContain('\u001b');
    const doc = yaml.load(written) as Record<string, unknown>;
    const capability = at(doc.capabilities as string[], 0, 'capability');
    expect(capability).toMatch(/^openclaw 2026\.3\.2 \]0;owned \[2J build \[redacted\] x+…$/);
    expect([...capability.slice('openclaw '.length)]).toHaveLength(MAX_VERSION_CHARS);
    // An old version is named in the refusal as cleaned: one short line.
    const old = await instance(
      api({ '/api/status': { json: { ...STATUS, version: `2026.1.1 ${key} ${'y'.repeat(100_000)}` } } }, null),
    );
    const refusedOld = await bourdon(['openclaw', 'export', '--out', out()], { OPENCLAW_URL: old.url });
    expect(refusedOld.code).toBe(EXPORT_FAILED);
    const line = oneLine(refusedOld.stderr);
    expect(line).not.toContain(key);
    expect(line.length).toBeLessThan(400);
  });
});

describe('openclaw export: one total timeout', () => {
  it('a chain of slow same-origin redirects ends at the total timeout, not a fresh one per hop', async () => {
    let hop = 0;
    const server = await handler((_request, response) => {
      // Each answer a little later, each a redirect to the next address on the same origin.
      const next = `/api/status/hop${++hop}`;
      setTimeout(() => response.writeHead(302, { Location: next }).end(), 200);
    });
    const result = await bourdon(['openclaw', 'export', '--out', out()], {
      OPENCLAW_URL: server.url,
      BOURDON_OPENCLAW_TIMEOUT: '0.5',
    });
    expect(result.code).toBe(EXPORT_FAILED);
    expect(oneLine(result.stderr)).toMatch(
      /did not answer within 0\.5 s \(the timeout, --timeout, bounds the whole export\)/,
    );
    expect(server.requests.length).toBeLessThanOrEqual(3);
    nothingWritten();
  });
});

describe('openclaw export: answers deep or large', () => {
  it('tags nested 2,500 deep are skipped with one warning; the rest of the memory is exported', async () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 2500; i++) deep = [deep];
    const server = await instance(
      api(
        {
          '/api/memories': {
            json: [
              { name: 'Deep', summary: 'kept', tags: [deep] },
              { name: 'Flat', tags: ['garden'] },
            ],
          },
        },
        null,
      ),
    );
    const result = await bourdon(['openclaw', 'export', '--out', out()], { OPENCLAW_URL: server.url });
    expect(result.code, result.stderr).toBe(0);
    expect(oneLine(result.stderr)).toBe(
      'bourdon: openclaw: /api/memories: 1 field nested more than 32 levels deep skipped',
    );
    const doc = yaml.load(fs.readFileSync(out(), 'utf8')) as Record<string, unknown>;
    expect(doc.known_entities).toEqual([
      { name: 'Deep', type: 'topic', summary: 'kept' },
      { name: 'Flat', type: 'topic', summary: '', tags: ['garden'] },
    ]);
  });

  it('lists of thousands, read a batch at a time: the rows and warnings of the whole list; one broken element refuses it all', async () => {
    // 3,000 sessions (about 300 KB, many batches): a title holding the cut's own `}, {`, a float in
    // the projects; 3,000 memories with a field 40 lists deep at the 2,000th (read whole from
    // there: the batches read so far are dropped), a float tag each.
    let deep: unknown = 'bottom';
    for (let i = 0; i < 40; i++) deep = [deep];
    const sessions = Array.from({ length: 3000 }, (_, n) => ({
      title: n === 7 ? 'braces }, { in 7' : `session ${n}`,
      updated_at: `2026-04-${String((n % 28) + 1).padStart(2, '0')}T10:00:00Z`,
      projects: [`p${n % 5}`, 'FLOAT'],
    }));
    const memories = Array.from({ length: 3000 }, (_, n) => ({
      name: `Memory ${n}`,
      summary: `word ${n}`,
      tags: n === 2000 ? [deep] : ['t', 'FLOAT'],
    }));
    const text = (value: unknown) => JSON.stringify(value).replaceAll('"FLOAT"', '2.0');
    const good = await instance(
      api(
        {
          '/api/sessions': { text: text({ sessions }) },
          '/api/memories': { text: `[\n${memories.map(text).join(',\n')}\n]` },
        },
        null,
      ),
    );
    const result = await bourdon(['openclaw', 'export', '--out', out()], { OPENCLAW_URL: good.url });
    expect(result.code, result.stderr).toBe(0);
    expect(oneLine(result.stderr)).toBe(
      'bourdon: openclaw: /api/memories: 1 field nested more than 32 levels deep skipped',
    );
    const doc = yaml.load(fs.readFileSync(out(), 'utf8')) as Record<string, unknown>;
    const recent = doc.recent_sessions as { date: string; project_focus: string[]; key_actions: string[] }[];
    expect(recent).toHaveLength(50);
    expect(recent[7]).toEqual({
      date: '2026-04-08T10:00:00Z',
      project_focus: ['p2', '2.0'],
      key_actions: ['braces }, { in 7'],
    });
    const entities = doc.known_entities as { name: string; tags?: string[] }[];
    expect(entities).toHaveLength(100);
    expect(entities[99]).toEqual({ name: 'Memory 99', type: 'topic', summary: 'word 99', tags: ['t', '2.0'] });

    // The last session broken: no session read, as when the list is read whole.
    const broken = await instance(
      api({ '/api/sessions': { text: text({ sessions }).replace(/\}\]\}$/, ']}') } }, null),
    );
    const refused = await bourdon(['openclaw', 'export', '--out', out()], { OPENCLAW_URL: broken.url });
    expect(refused.code, refused.stderr).toBe(0);
    expect(oneLine(refused.stderr)).toMatch(/\/api\/sessions answered a body that is not JSON; no sessions read$/);
    expect((yaml.load(fs.readFileSync(out(), 'utf8')) as Record<string, unknown>).recent_sessions).toEqual([]);
  });

  it('a valid 9 MB status (a long string full of escapes) passes the handshake', async () => {
    const status = { ...STATUS, notes: 'a \\ "quoted" line\n'.repeat(500_000) };
    const server = await instance(api({ '/api/status': { json: status } }, null));
    const result = await bourdon(['openclaw', 'export', '--out', out()], { OPENCLAW_URL: server.url });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect((yaml.load(fs.readFileSync(out(), 'utf8')) as Record<string, unknown>).capabilities).toEqual([
      'openclaw 2026.3.2',
    ]);
  });
});

describe('openclaw export: the token over plain http', () => {
  const remote = 'http://openclaw.example:8080';
  const environment = (env: Record<string, string>) =>
    exportEnvironment(home, { env: { HOME: home, OPENCLAW_URL: remote, OPENCLAW_TOKEN: TOKEN, ...env } });

  it('to a host other than this machine: refused before any request unless --insecure (or its variable)', async () => {
    // No request may leave this process: any attempt is recorded and fails here.
    const attempts: string[] = [];
    const spy = vi.spyOn(http, 'request').mockImplementation((url: string | URL | http.RequestOptions) => {
      attempts.push(String(url));
      throw new Error('no network in tests');
    });
    try {
      await expect(openclawParticipant.export(environment({}))).rejects.toMatchObject({
        code: 'usage',
        message: `refusing to send OPENCLAW_TOKEN over plain http to openclaw.example:8080, which is not this machine: anyone on the way could read it. Use https://, or pass --insecure (BOURDON_OPENCLAW_INSECURE=1) to send it anyway`,
      });
      expect(attempts).toEqual([]);
      // The user's word lets it through (here to the recorded attempt).
      await expect(openclawParticipant.export(environment({ BOURDON_OPENCLAW_INSECURE: '1' }))).rejects.toThrow();
      expect(attempts).toEqual([`${remote}/api/status`]);
    } finally {
      spy.mockRestore();
    }
  });

  it('loopback hosts need no word; without a token nothing secret is sent', () => {
    for (const host of ['127.0.0.1', '127.8.9.10', 'localhost', '[::1]', '[::ffff:127.0.0.1]'])
      expect(insecureProblem(new URL(`http://${host}:8080`), TOKEN, {}), host).toBeUndefined();
    for (const host of ['10.0.0.2', 'openclaw.example', '[::2]', '0.0.0.0', '128.0.0.1'])
      expect(insecureProblem(new URL(`http://${host}:8080`), TOKEN, {}), host).toMatch(/refusing to send/);
    expect(insecureProblem(new URL('https://openclaw.example'), TOKEN, {})).toBeUndefined();
    expect(insecureProblem(new URL('http://openclaw.example'), undefined, {})).toBeUndefined();
    expect(insecureProblem(new URL('http://openclaw.example'), TOKEN, { BOURDON_OPENCLAW_INSECURE: '0' })).toMatch(
      /refusing/,
    );
    expect(isLoopbackHost('[::ffff:7f00:1]')).toBe(true);
  });

  it('--help names --insecure, and the switch is taken (here to this machine, where it changes nothing)', async () => {
    const help = await bourdon(['openclaw', 'export', '--help']);
    expect(help.stdout).toMatch(/--insecure/);
    const server = await instance(api());
    const result = await bourdon(['openclaw', 'export', '--insecure', '--out', out()], {
      OPENCLAW_URL: server.url,
      OPENCLAW_TOKEN: TOKEN,
    });
    expect(result.code, result.stderr).toBe(0);
  });
});

describe('openclaw export: a failed export leaves its audit line', () => {
  it('a refused handshake: one line, decision fail, the code and the reason; never the token', async () => {
    const server = await instance(
      api({ '/api/status': { json: { version: `2026.1.1-${TOKEN}`, auth_enabled: true } } }),
    );
    const result = await bourdon(['openclaw', 'export'], { OPENCLAW_URL: server.url, OPENCLAW_TOKEN: TOKEN });
    expect(result.code).toBe(EXPORT_FAILED);
    const audit = fs.readFileSync(path.join(bourdonHome, 'audit.jsonl'), 'utf8');
    expect(audit).not.toContain(TOKEN);
    const lines = audit
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual([
      expect.objectContaining({
        agent: 'participant:openclaw',
        op: 'stage',
        namespace: 'openclaw',
        decision: 'fail',
        detail: expect.stringMatching(
          /^peer_refused: openclaw: handshake refused: OpenClaw 2026\.1\.1-\[masked\] is older/,
        ),
      }),
    ]);
    nothingWritten();
  });
});
