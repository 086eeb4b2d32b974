/**
 * Issue 43: every failure is a code from one table (src/core/errors.ts FAILURES, docs/errors.md),
 * and each adapter shows it from the code alone. One table of cases drives the codes through the
 * real binary (exit status; `--json`: `{error, code}` on stdout, or the tool's own payload where
 * the engine answers the failure as data), the page over HTTP (its status, the header still
 * there) and a real MCP client (isError; the engine's bytes where it has an error payload, the
 * code named where it has none). And the `no-message-regex` mark: nothing in src decides by
 * reading an error's message text.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../src/core/context.js';
import { ERROR_CODES, FAILURES, type ErrorCode } from '../src/core/errors.js';
import { lockFileSync } from '../src/core/fs/gate.js';
import { configPaths } from '../src/core/store/config.js';
import { LibraryStore } from '../src/core/store/library.js';
import { OPERATOR, type Caller } from '../src/core/trust/caller.js';
import { startUiServer } from '../src/ui/server.js';
import { runCli } from './helpers/cli.js';
import { runInPty, stripAnsi } from './helpers/pty.js';
import { demoLibrary } from './helpers/demo.js';
import { BIN, REPO_ROOT, tempDir } from './helpers/fixtures.js';
import { foreignLock, withoutLockWait } from './helpers/foreign-lock.js';
import { callWithNotices, linkedClient, stdioClient, type LinkedClient } from './helpers/mcp.js';
import { rawRequest, startUi } from './helpers/ui.js';

let library: string;
let home: string;

type Adapter = 'CLI' | 'page' | 'MCP';
/** The codes a case below drives through each adapter: docs/errors.md's "where each code can arise" must say `driven` for exactly these. */
const DRIVEN: Record<Adapter, Set<ErrorCode>> = { CLI: new Set(), page: new Set(), MCP: new Set() };

/** A test that drives `code` through `adapter`, recorded in DRIVEN. */
function drive(adapter: Adapter, code: ErrorCode, title: string, fn: () => Promise<void>, timeoutMs?: number): void {
  DRIVEN[adapter].add(code);
  it(`${code}: ${title}`, fn, timeoutMs);
}
/** A note above the default (public) level, added by the binary: note show refuses it as not visible. */
let teamNote: string;

const cli = (args: string[], env: Record<string, string> = {}) =>
  runCli([...args], {
    env: { BOURDON_HOME: home, BOURDON_LIBRARY: library, NO_COLOR: '1', ...env },
    timeoutMs: 60_000,
  });

beforeAll(async () => {
  ({ library, home } = await demoLibrary('bourdon-failure-codes'));
  const added = await cli(['note', 'add', 'codex', 'Team-only: the watch build slips', '--visibility', 'team']);
  expect(added.code, added.stderr).toBe(0);
  const listed = await cli(['list-notes', '--agent', 'codex', '--since', '30d', '--access-level', 'team', '--json']);
  const notes = (JSON.parse(listed.stdout) as { notes: { text: string }[] }).notes;
  teamNote = `codex:${notes.length}`;
}, 120_000);

/** A port something already listens on: a page started there cannot listen. */
async function takenPort(): Promise<{ port: number; close: () => Promise<void> }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('no port');
  return { port: address.port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** The environment that loads test/helpers/plant-fault.mjs into a real bourdon process. */
function planted(plant: string, extra: Record<string, string> = {}): Record<string, string> {
  const preload = path.join(REPO_ROOT, 'test', 'helpers', 'plant-fault.mjs');
  return { NODE_OPTIONS: `--import=${preload}`, BOURDON_PLANT: plant, ...extra };
}

/**
 * A commit over MCP that the library refuses: isError with the engine's payload (no code added:
 * commit_to_federation answers its failures as data), the live manifest unchanged.
 */
async function expectCommitRefused(client: Client, error: RegExp): Promise<void> {
  const live = path.join(library, 'agents', 'codex.l5.yaml');
  const before = fs.readFileSync(live, 'utf8');
  const { payload, isError } = await callWithNotices(client, 'commit_to_federation', {
    agent_id: 'codex',
    agent_type: 'code-assistant',
    entities: [{ name: 'Never Written' }],
  });
  expect(isError).toBe(true);
  expect(payload).toEqual({ error: expect.stringMatching(error), agent_id: 'codex', mode: 'merge' });
  expect(fs.readFileSync(live, 'utf8')).toBe(before);
}

interface CliCase {
  code: ErrorCode;
  what: string;
  args: () => string[] | Promise<string[]>;
  /** The engine answers this failure as data: --json prints the tool's payload, without `code`. */
  payload?: boolean;
}

const CLI_CASES: CliCase[] = [
  { code: 'usage', what: 'a mistyped flag', args: () => ['find', 'x', '--limt', '3'] },
  { code: 'usage', what: 'a missing argument', args: () => ['query', 'codex'] },
  { code: 'not_found', what: 'no such agent', args: () => ['query', 'nosuch-agent', 'x'] },
  { code: 'not_found', what: 'no such note', args: () => ['note', 'show', 'codex:999'], payload: true },
  {
    code: 'not_visible',
    what: 'a note above the level asked for',
    args: () => ['note', 'show', teamNote],
    payload: true,
  },
  {
    code: 'invalid_input',
    what: 'a cursor no listing made',
    args: () => ['recent', '--cursor', 'garbage'],
    payload: true,
  },
  { code: 'not_found', what: 'no such version', args: () => ['diff', 'codex', '999'] },
  {
    code: 'conflict',
    what: 'a peer that already exists',
    args: () => ['peers', 'add', 'twin', 'http://127.0.0.1:9/mcp'],
  },
  {
    code: 'source_unreadable',
    what: 'an input file that cannot be read',
    args: () => ['commit', 'codex', '--file', path.join(home, 'no-such-input.yaml')],
  },
];

describe('the CLI: exit status and --json from the code', () => {
  beforeAll(async () => {
    const first = await cli(['peers', 'add', 'twin', 'http://127.0.0.1:9/mcp']);
    expect(first.code, first.stderr).toBe(0);
  }, 60_000);

  for (const row of CLI_CASES) {
    drive(
      'CLI',
      row.code,
      `${row.what} exits ${FAILURES[row.code].exit}, the same with --json`,
      async () => {
        const args = await row.args();
        const human = await cli(args);
        expect(human.code, human.stderr).toBe(FAILURES[row.code].exit);
        expect(human.stdout).toBe('');
        expect(
          human.stderr
            .trim()
            .split('\n')
            .filter((line) => !line.includes('warning:')),
        ).toHaveLength(1);
        const json = await cli([...args, '--json']);
        expect(json.code, json.stderr).toBe(FAILURES[row.code].exit);
        const printed = JSON.parse(json.stdout) as { error: unknown; code?: unknown };
        expect(typeof printed.error).toBe('string');
        if (row.payload) expect(printed.code, 'the tool payload, as the engine answers it').toBeUndefined();
        else expect(printed).toEqual({ error: printed.error, code: row.code });
      },
      60_000,
    );
  }

  drive(
    'CLI',
    'unavailable',
    'a page whose port is taken exits 12',
    async () => {
      const taken = await takenPort();
      try {
        const json = await cli(['ui', '--port', String(taken.port), '--json']);
        expect(json.code, json.stderr).toBe(FAILURES.unavailable.exit);
        expect(JSON.parse(json.stdout)).toMatchObject({ code: 'unavailable' });
      } finally {
        await taken.close();
      }
    },
    60_000,
  );

  drive(
    'CLI',
    'busy',
    'a peers file another process is editing exits 8 (try again)',
    async () => {
      const release = lockFileSync(configPaths({ BOURDON_HOME: home }).peers);
      try {
        const json = await cli(['peers', 'add', 'other', 'http://127.0.0.1:9/mcp', '--json']);
        expect(json.code, json.stderr).toBe(FAILURES.busy.exit);
        expect(JSON.parse(json.stdout)).toMatchObject({ code: 'busy', error: expect.stringContaining('try again') });
      } finally {
        release();
      }
    },
    60_000,
  );

  drive(
    'CLI',
    'peer_unreachable',
    'a bridge to a server nobody runs exits 9',
    async () => {
      const closed = await takenPort();
      await closed.close();
      const json = await cli(['serve', '--url', `http://127.0.0.1:${closed.port}/mcp`, '--json']);
      expect(json.code, json.stderr).toBe(FAILURES.peer_unreachable.exit);
      expect(JSON.parse(json.stdout)).toMatchObject({ code: 'peer_unreachable' });
    },
    60_000,
  );

  drive(
    'CLI',
    'peer_refused',
    'a bridge to a server that answers 401 exits 10',
    async () => {
      const refusing = http.createServer((_req, res) => res.writeHead(401).end('no'));
      await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
      const address = refusing.address();
      if (!address || typeof address !== 'object') throw new Error('no port');
      try {
        const json = await cli(['serve', '--url', `http://127.0.0.1:${address.port}/mcp`, '--json']);
        expect(json.code, json.stderr).toBe(FAILURES.peer_refused.exit);
        expect(JSON.parse(json.stdout)).toMatchObject({ code: 'peer_refused' });
      } finally {
        refusing.closeAllConnections();
        await new Promise((resolve) => refusing.close(resolve));
      }
    },
    60_000,
  );

  drive(
    'CLI',
    'cancelled',
    'Ctrl-C at a confirmation prompt exits 130 and changes nothing',
    async () => {
      const history = async () =>
        (JSON.parse((await cli(['history', 'codex', '--json'])).stdout) as { versions: unknown[] }).versions.length;
      const before = await history();
      const result = await runInPty(
        ['rollback', 'codex', '1'],
        [{ expect: 'Restore codex to version 1', send: '\u0003' }],
        { env: { BOURDON_HOME: home, BOURDON_LIBRARY: library, NO_COLOR: '1' } },
      );
      expect(result.unanswered).toEqual([]);
      expect(result.code, stripAnsi(result.output)).toBe(FAILURES.cancelled.exit);
      expect(stripAnsi(result.output)).toContain('nothing was changed');
      expect(await history()).toBe(before);
    },
    60_000,
  );

  it("an audited write that fails leaves one line: the code's decision, the code leading its detail", async () => {
    const audit = configPaths({ BOURDON_HOME: home }).audit;
    const before = fs.existsSync(audit) ? fs.readFileSync(audit, 'utf8').split('\n').length : 1;
    const refused = await cli(['commit', 'codex', '--file', path.join(home, 'missing-rows.yaml')]);
    expect(refused.code).toBe(FAILURES.source_unreadable.exit);
    const added = fs
      .readFileSync(audit, 'utf8')
      .trimEnd()
      .split('\n')
      .slice(before - 1);
    expect(added).toHaveLength(1);
    expect(JSON.parse(added[0]!)).toMatchObject({
      op: 'commit_to_federation',
      decision: FAILURES.source_unreadable.audit,
      detail: expect.stringMatching(/^source_unreadable: cannot read /),
    });
  }, 60_000);

  it('every refusal and failure above is told apart: no two codes share a status', () => {
    const statuses = ERROR_CODES.map((code) => FAILURES[code].exit);
    expect(new Set(statuses).size).toBe(ERROR_CODES.length);
    expect(FAILURES.usage.exit).toBe(2);
    expect(FAILURES.access_denied.exit).toBe(3);
  });
});

describe('the page: HTTP status from the code, the header and a way back still there', () => {
  let ui: Awaited<ReturnType<typeof startUiServer>>;
  let prefix: string;
  let cookie: string;
  beforeAll(async () => {
    const store = new LibraryStore(library, { warn: () => {} });
    // As `bourdon ui` makes it: the config paths of this home (a rollback audits there first).
    const config = configPaths({ BOURDON_HOME: home });
    const ctx = createContext(store, { caller: OPERATOR, warn: () => {}, env: {}, config });
    ui = await startUiServer({ ctx, auditPath: config.audit, port: 0 });
    const url = new URL(ui.url);
    prefix = url.pathname.replace(/\/$/, '');
    const signIn = await rawRequest(ui.port, { path: `${url.pathname}${url.search}` });
    expect(signIn.status).toBe(303);
    cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
  });
  afterAll(() => ui.close());

  const PAGE_CASES: { code: ErrorCode; what: string; path: string }[] = [
    { code: 'not_found', what: 'the history of no such agent', path: '/history?agent=nosuch-agent' },
    { code: 'not_found', what: 'an unknown version to roll back to', path: '/history/confirm?agent=codex&version=999' },
    { code: 'invalid_input', what: 'an invalid agent id', path: '/history/confirm?agent=Bad%20Id!&version=1' },
    { code: 'invalid_input', what: 'staging for an invalid agent id', path: '/staging/confirm?agent=..%2Fetc' },
  ];
  for (const row of PAGE_CASES) {
    drive('page', row.code, `${row.what} answers ${FAILURES[row.code].http}`, async () => {
      const page = await rawRequest(ui.port, { path: `${prefix}${row.path}`, headers: { Cookie: cookie } });
      expect(page.status).toBe(FAILURES[row.code].http);
      expect(page.body).toContain('<nav aria-label="Views">');
      expect(page.body).toContain('role="alert"');
    });
  }

  drive(
    'page',
    'source_unreadable',
    'a library whose agents folder is a file answers 503, the header still there',
    async () => {
      const broken = tempDir('bourdon-failure-codes-page-');
      fs.writeFileSync(path.join(broken, 'agents'), 'a file where the agents folder should be\n');
      const store = new LibraryStore(broken, { warn: () => {} });
      const brokenUi = await startUiServer({
        ctx: createContext(store, { caller: OPERATOR, warn: () => {}, env: {} }),
        auditPath: path.join(home, 'audit.jsonl'),
        port: 0,
      });
      try {
        const url = new URL(brokenUi.url);
        const signIn = await rawRequest(brokenUi.port, { path: `${url.pathname}${url.search}` });
        const session = String(signIn.headers['set-cookie']).split(';')[0]!;
        const page = await rawRequest(brokenUi.port, {
          path: `${url.pathname.replace(/\/$/, '')}/history?agent=codex`,
          headers: { Cookie: session },
        });
        expect(page.body).toMatch(/role="alert">cannot read [^<]*agents: part of the path is a file/);
        expect(page.status).toBe(FAILURES.source_unreadable.http);
        expect(page.body).toContain('<nav aria-label="Views">');
      } finally {
        await brokenUi.close();
      }
    },
  );

  /** A form's POST from this page (its origin, the session's cookie). */
  const postForm = (action: string, body: string) =>
    rawRequest(ui.port, {
      method: 'POST',
      path: `${prefix}${action}`,
      headers: {
        Cookie: cookie,
        Origin: `http://127.0.0.1:${ui.port}`,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body,
    });
  /** The session's form token, from a confirmation page. */
  const formToken = async () => {
    const confirm = await rawRequest(ui.port, {
      path: `${prefix}/history/confirm?agent=codex&version=1`,
      headers: { Cookie: cookie },
    });
    return /name="csrf" value="([0-9a-f]+)"/.exec(confirm.body)![1]!;
  };
  const liveCodex = () => fs.readFileSync(path.join(library, 'agents', 'codex.l5.yaml'), 'utf8');

  drive(
    'page',
    'conflict',
    'a promotion whose staged writes changed since review answers 409 on the staging page, nothing promoted',
    async () => {
      const staged = path.join(library, 'staging', 'laptop', 'codex.l5.yaml');
      fs.mkdirSync(path.dirname(staged), { recursive: true });
      fs.writeFileSync(staged, 'agent: {id: codex}\nknown_entities:\n- {name: Staged Later}\n');
      const live = liveCodex();
      try {
        const posted = await postForm(
          '/staging/promote',
          `csrf=${await formToken()}&agent=codex&digest=${'0'.repeat(64)}`,
        );
        expect(posted.status).toBe(FAILURES.conflict.http);
        expect(posted.headers.location).toBeUndefined();
        expect(posted.body).toMatch(
          /class="flash error"[^>]*>the staged writes for &#39;codex&#39; \(or the live manifest they merge into\) changed since they were reviewed; nothing was promoted/,
        );
        expect(posted.body).toContain('<nav aria-label="Views">');
        expect(liveCodex()).toBe(live);
      } finally {
        fs.rmSync(path.join(library, 'staging', 'laptop'), { recursive: true, force: true });
      }
    },
  );

  drive(
    'page',
    'busy',
    'a rollback while another writer holds the library answers 429 on the history page, nothing changed',
    async () => {
      const csrf = await formToken();
      const live = liveCodex();
      const release = foreignLock(library);
      try {
        await withoutLockWait(async () => {
          const posted = await postForm('/history/rollback', `csrf=${csrf}&agent=codex&version=1`);
          expect(posted.status).toBe(FAILURES.busy.http);
          expect(posted.body).toMatch(/class="flash error"[^>]*>the library is busy: pid 1 on another-host holds /);
          expect(posted.body).toContain('<nav aria-label="Views">');
        });
        expect(liveCodex()).toBe(live);
        // The rollback was audited before it was tried; the line after it says it did not happen.
        const trail = fs
          .readFileSync(configPaths({ BOURDON_HOME: home }).audit, 'utf8')
          .trimEnd()
          .split('\n');
        expect(trail.slice(-2).map((line) => JSON.parse(line) as { decision: string; detail: string })).toEqual([
          expect.objectContaining({ decision: 'allow', detail: 'restore version 1' }),
          expect.objectContaining({ decision: 'fail', detail: expect.stringMatching(/^busy: the library is busy/) }),
        ]);
      } finally {
        release();
      }
    },
  );

  drive('page', 'unavailable', 'a rollback whose lock folder cannot be made answers 503, nothing changed', async () => {
    const csrf = await formToken();
    const live = liveCodex();
    const lock = path.join(library, '.bourdon.lock');
    fs.writeFileSync(lock, 'a file where the lock folder goes\n');
    try {
      const posted = await postForm('/history/rollback', `csrf=${csrf}&agent=codex&version=1`);
      expect(posted.status).toBe(FAILURES.unavailable.http);
      expect(posted.body).toMatch(/class="flash error"[^>]*>cannot take the library lock /);
      expect(liveCodex()).toBe(live);
    } finally {
      fs.rmSync(lock, { force: true });
    }
  });

  drive('page', 'invalid_input', 'a rollback to version zero answers 400 and says why', async () => {
    const posted = await postForm('/history/rollback', `csrf=${await formToken()}&agent=codex&version=0`);
    expect(posted.status).toBe(FAILURES.invalid_input.http);
    expect(posted.body).toMatch(/class="flash error"[^>]*>the version must be a positive whole number/);
  });

  it('a view that works answers 200', async () => {
    const page = await rawRequest(ui.port, { path: `${prefix}/history?agent=codex`, headers: { Cookie: cookie } });
    expect(page.status).toBe(200);
  });
});

describe('MCP: the engine bytes where it has an error payload, the code where it has none', () => {
  let linked: LinkedClient;
  let quarantined: LinkedClient;
  beforeAll(async () => {
    linked = await linkedClient(library);
    const visitor: Caller = { agent_id: 'visitor', tier: 'quarantined', grants: ['visitor'], ceiling: 'team' };
    quarantined = await linkedClient(library, { fallbackCaller: visitor });
  });
  afterAll(async () => {
    await linked.close();
    await quarantined.close();
  });

  const MCP_CASES: {
    code: ErrorCode;
    what: string;
    client: () => LinkedClient;
    tool: string;
    args: Record<string, unknown>;
    payload: Record<string, unknown>;
  }[] = [
    {
      code: 'not_found',
      what: 'no such version',
      client: () => linked,
      tool: 'explain_memory_change',
      args: { agent_id: 'codex', version: 999 },
      payload: { agent_id: 'codex', version: 999, against: null },
    },
    {
      code: 'invalid_input',
      what: 'an invalid agent id',
      client: () => linked,
      tool: 'list_memory_versions',
      args: { agent_id: '../etc' },
      payload: { agent_id: '../etc', versions: [] },
    },
    {
      code: 'access_denied',
      what: 'a quarantined caller rolling back',
      client: () => quarantined,
      tool: 'rollback_agent_memory',
      args: { agent_id: 'codex', version: 1 },
      payload: { error: 'access denied', op: 'rollback_agent_memory', agent: 'visitor', tier: 'quarantined' },
    },
  ];
  for (const row of MCP_CASES) {
    drive('MCP', row.code, `${row.what} is isError with the engine's payload, no code added`, async () => {
      const { payload, isError } = await callWithNotices(row.client().client, row.tool, row.args);
      expect(isError).toBe(true);
      expect(payload).toMatchObject(row.payload);
      expect(payload).not.toHaveProperty('code');
    });
  }

  drive('MCP', 'unavailable', "a write whose lock folder cannot be made: isError, the engine's payload", async () => {
    const lock = path.join(library, '.bourdon.lock');
    fs.writeFileSync(lock, 'a file where the lock folder goes\n');
    try {
      await expectCommitRefused(linked.client, /^cannot take the library lock .*part of the path is a file/);
    } finally {
      fs.rmSync(lock, { force: true });
    }
  });

  drive('MCP', 'busy', "a write while another writer holds the library: isError, the engine's payload", async () => {
    const release = foreignLock(library);
    try {
      await withoutLockWait(() =>
        expectCommitRefused(linked.client, /^the library is busy: pid 1 on another-host holds .*; try again$/),
      );
    } finally {
      release();
    }
  });

  drive('MCP', 'usage', 'arguments of the wrong type are isError, the SDK naming the input', async () => {
    const result = await linked.client.callTool({
      name: 'explain_memory_change',
      arguments: { agent_id: 'codex', version: 'three' },
    });
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]!.text).toMatch(/Input validation error/);
  });

  drive(
    'MCP',
    'source_unreadable',
    'a thrown failure (the library is not a folder) is isError and names its code',
    async () => {
      const notALibrary = path.join(tempDir('bourdon-failure-codes-file-'), 'library');
      fs.writeFileSync(notALibrary, 'a file, not a library\n');
      const broken = await linkedClient(notALibrary);
      try {
        const result = await broken.client.callTool({ name: 'find_entity', arguments: { name: 'x' } });
        expect(result.isError).toBe(true);
        const text = (result.content as { text: string }[])[0]!.text;
        const answer = JSON.parse(text) as { error: string; code: ErrorCode };
        expect(answer).toEqual({ error: expect.any(String), code: 'source_unreadable' });
      } finally {
        await broken.close();
      }
    },
  );
});

describe('faults no input can cause, planted in the real processes: a bug, a lock taken mid-write', () => {
  drive('CLI', 'internal', 'a bug exits 1 with one line saying so, no stack; --json names internal', async () => {
    const human = await cli(['agents'], planted('bug:/agents'));
    expect(human.code, human.stderr).toBe(FAILURES.internal.exit);
    expect(human.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^bourdon: cannot read .*agents: planted bug: .*\(a bug in bourdon: BOURDON_DEBUG=1 shows where; please report it\)$/,
      ),
    ]);
    const json = await cli(['agents', '--json'], planted('bug:/agents'));
    expect(json.code).toBe(FAILURES.internal.exit);
    expect(JSON.parse(json.stdout)).toEqual({ error: expect.stringContaining('planted bug'), code: 'internal' });
    expect(json.stderr).not.toMatch(/^\s+at /m);
  });

  drive('page', 'internal', 'a bug answers 500 inside the page, the header and navigation still there', async () => {
    const ui = await startUi(library, { BOURDON_HOME: home, ...planted('bug:/agents') });
    try {
      const signIn = await rawRequest(ui.port, { path: new URL(ui.url).pathname + new URL(ui.url).search });
      const session = String(signIn.headers['set-cookie']).split(';')[0]!;
      const page = await rawRequest(ui.port, { path: `${ui.prefix}/agents`, headers: { Cookie: session } });
      expect(page.status).toBe(FAILURES.internal.http);
      expect(page.body).toContain('<nav aria-label="Views">');
      expect(page.body).toMatch(/role="alert">cannot read [^<]*agents: planted bug/);
      expect(ui.stderr()).toMatch(/ui: cannot read .*planted bug/);
    } finally {
      await ui.stop();
    }
  });

  /** A real `bourdon serve` over stdio, the plant loaded, with a real client. */
  const servePlanted = (env: Record<string, string>) =>
    stdioClient(
      { args: [BIN, 'serve', '--library', library], env: { PATH: process.env.PATH ?? '', BOURDON_HOME: home, ...env } },
      { name: 'failure-codes' },
    );

  drive('MCP', 'internal', 'a bug is isError naming internal; the server goes on serving', async () => {
    const armed = path.join(tempDir('bourdon-failure-codes-armed-'), 'armed');
    const served = await servePlanted(planted('bug:/agents', { BOURDON_PLANT_ARMED: armed }));
    const extra = path.join(library, 'agents', 'not-a-manifest.txt');
    try {
      fs.writeFileSync(armed, '');
      fs.writeFileSync(extra, 'the agents folder changed: the server lists it again\n');
      const result = await served.client.callTool({ name: 'find_entity', arguments: { name: 'x' } });
      expect(result.isError).toBe(true);
      const answer = JSON.parse((result.content as { text: string }[])[0]!.text) as unknown;
      expect(answer).toEqual({ error: expect.stringContaining('planted bug'), code: 'internal' });
      fs.rmSync(armed);
      const after = await served.client.callTool({ name: 'find_entity', arguments: { name: 'x' } });
      expect(after.isError).toBeFalsy();
    } finally {
      fs.rmSync(extra, { force: true });
      await served.client.close();
    }
  });

  drive('MCP', 'conflict', "a lock taken by another process mid-write: isError, the engine's payload", async () => {
    const served = await servePlanted(planted(`steal-lock:${library}`));
    try {
      await expectCommitRefused(served.client, /^lost the library lock .* to another process; nothing was written$/);
    } finally {
      await served.client.close();
      fs.rmSync(path.join(library, '.bourdon.lock'), { recursive: true, force: true });
    }
  });
});

describe('docs/errors.md', () => {
  it('lists every code with its exit and HTTP status, as the table in core says', () => {
    const doc = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'errors.md'), 'utf8');
    for (const code of ERROR_CODES) {
      const row = doc.split('\n').find((line) => line.startsWith(`| \`${code}\` `));
      expect(row, code).toBeDefined();
      const cells = row!.split('|').map((cell) => cell.trim());
      expect(cells[3], `${code} exit`).toBe(String(FAILURES[code].exit));
      expect(cells[4], `${code} HTTP`).toBe(String(FAILURES[code].http));
    }
  });

  it('says where each code can arise: "driven" for exactly the codes a case above drives, per adapter', () => {
    const doc = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'errors.md'), 'utf8');
    const section = doc.split('## Where each code can arise')[1]!.split('\n## ')[0]!;
    const ADAPTERS: Adapter[] = ['CLI', 'page', 'MCP'];
    const header = section.split('\n').find((line) => line.startsWith('| code |'))!;
    expect(header.split('|').map((cell) => cell.trim())).toEqual(['', 'code', ...ADAPTERS, '']);
    const documented: Record<Adapter, ErrorCode[]> = { CLI: [], page: [], MCP: [] };
    for (const code of ERROR_CODES) {
      const row = section.split('\n').find((line) => line.startsWith(`| \`${code}\` `));
      expect(row, code).toBeDefined();
      const cells = row!
        .split('|')
        .map((cell) => cell.trim())
        .slice(2, 5);
      for (const [at, cell] of cells.entries()) {
        expect(['driven', '—', 'not driven'], `${code} ${ADAPTERS[at]}`).toContain(cell);
        if (cell === 'driven') documented[ADAPTERS[at]!].push(code);
      }
    }
    for (const adapter of ADAPTERS) expect(documented[adapter], adapter).toEqual([...DRIVEN[adapter]].sort(byTable));
  });
});

/** ERROR_CODES' order (the table's). */
const byTable = (a: ErrorCode, b: ErrorCode) => ERROR_CODES.indexOf(a) - ERROR_CODES.indexOf(b);

/**
 * Decides by an error's words: a string test (`.includes`, `.startsWith`, `.match`, …) on a
 * `.message`, or a regex `.test`/`.exec` of one, directly or through a variable set from one.
 */
function messageTests(source: string): string[] {
  const fromMessage = [...source.matchAll(/\b(?:const|let)\s+(\w+)\s*=[^;]*\.message\b/g)].map((m) => m[1]!);
  const subject = ['(?:\\w+\\.)*message\\b', ...fromMessage.map((name) => `\\b${name}\\b`)].join('|');
  const stringTest = new RegExp(`(?:${subject})\\s*\\.\\s*(?:includes|startsWith|endsWith|match|search)\\(`);
  const regexTest = new RegExp(`\\.(?:test|exec)\\(\\s*(?:${subject})`);
  return source.split('\n').filter((line) => stringTest.test(line) || regexTest.test(line));
}

describe('no-message-regex: nothing in src branches on an error message text', () => {
  it('the scan finds the forms it looks for', () => {
    expect(messageTests('if (/401/.test(error.message)) x();')).toHaveLength(1);
    expect(messageTests("if (err.message.includes('busy')) x();")).toHaveLength(1);
    expect(messageTests('const text = e.message;\nif (/bad port/.test(text)) y();')).toHaveLength(1);
    expect(messageTests('const line = describe(error);')).toHaveLength(0);
  });

  it('holds for every source file', () => {
    const found: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.name.endsWith('.ts')) {
          const relative = path.relative(REPO_ROOT, full).split(path.sep).join('/');
          for (const line of messageTests(fs.readFileSync(full, 'utf8'))) found.push(`${relative}: ${line.trim()}`);
        }
      }
    };
    walk(path.join(REPO_ROOT, 'src'));
    expect(found).toEqual([]);
  });
});
