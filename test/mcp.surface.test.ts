/**
 * The self-describing surface, proved with the official clients: the TypeScript SDK client
 * (which validates every non-error result's structuredContent against the tool's outputSchema)
 * over stdio (the real binary) and streamable HTTP, and the Python `mcp` client
 * (ClientSession.call_tool validates the same way) over both. Every tool is listed with its
 * title and annotations and called on the conformance library, refusals included: no client
 * raises a validation error, every refusal is `isError` with the engine's text first, and what
 * the engine would have ignored or not found is said in a second text item.
 *
 * The Python half needs the `mcp` package: BOURDON_TEST_PYTHON names a python that has it, else
 * `python3` if it has it, else the suite installs it with pip into a cached virtual environment
 * (helpers/python-mcp.ts); when pip cannot, those tests are skipped, saying why in one line.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LibraryStore } from '../src/core/store/library.js';
import { runHttpServer, type HttpServerHandle } from '../src/mcp/http.js';
import { createMcpServer } from '../src/mcp/server.js';
import { OPERATIONS } from '../src/core/operations/catalog.js';
import { BIN, caseFile, copyFixtureLibrary, REPO_ROOT, tempDir } from './helpers/fixtures.js';
import { httpClient } from './helpers/http.js';
import { callWithNotices } from './helpers/mcp.js';
import { pythonWithMcp } from './helpers/python-mcp.js';

type Case = { name: string; arguments: Record<string, unknown> };

/** Every conformance read case, then the writes and history tools, then refusals and notices. */
const CASES: Case[] = [
  ...caseFile('reads.json')
    .cases.filter((entry) => entry.kind === 'tool')
    .map((entry) => ({ name: entry.name, arguments: entry.arguments })),
  { name: 'compile_codex_turn', arguments: { prompt: 'Keep working on Bourdon' } },
  { name: 'list_notes', arguments: { since: '2026-01-01' } },
  { name: 'list_workstreams', arguments: {} },
  { name: 'commit_to_federation', arguments: { agent_id: 'codex', entities: [{ name: 'Surface', type: 'concept' }] } },
  { name: 'list_memory_versions', arguments: { agent_id: 'codex' } },
  { name: 'explain_memory_change', arguments: { agent_id: 'codex', version: 2 } },
  { name: 'rollback_agent_memory', arguments: { agent_id: 'codex', version: 1, reason: 'surface test' } },
  { name: 'search_memory', arguments: { query: 'bourdn', access_level: 'team' } },
];

/** Refusals: each answered `isError: true`, the engine's envelope as the first text item. */
const REFUSALS: Case[] = [
  { name: 'find_entity', arguments: { name: 'Bourdon', access_level: 'bogus' } },
  { name: 'explain_memory_change', arguments: { agent_id: 'codex', version: 999 } },
  { name: 'list_memory_versions', arguments: { agent_id: '../etc' } },
  { name: 'commit_to_federation', arguments: { agent_id: 'newcomer', entities: [{ name: 'X' }] } },
  { name: 'list_recent_work', arguments: { cursor: 'not-a-cursor' } },
  { name: 'search_memory', arguments: { query: 'x', kind: 'planet' } },
];

/** What the caller is told beside the engine's answer (the second text item). */
const NOTICES: [Case, RegExp][] = [
  [
    { name: 'list_recent_work', arguments: { since: 'garbage' } },
    /^since "garbage" is not a date .*the last 14 days were used$/,
  ],
  [
    { name: 'list_recent_work', arguments: { agent: 'codx' } },
    /^no agent "codx" in this library; did you mean codex\?$/,
  ],
  [
    { name: 'query_agent_memory', arguments: { agent: 'codx', topic: 'x' } },
    /^no agent "codx" in this library; did you mean codex\?$/,
  ],
];

const FEDERATED = new Set([
  'list_agents',
  'find_entity',
  'list_recent_work',
  'get_cross_agent_summary',
  'prepare_recognition_context',
  'list_notes',
  'list_workstreams',
  'search_memory',
]);

/** The hints each tool must declare (see docs/mcp-hosts.md). */
function expectedHints(name: string) {
  if (name === 'commit_to_federation')
    return { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };
  if (name === 'rollback_agent_memory')
    return { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
  return { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: FEDERATED.has(name) };
}

async function exercise(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual(OPERATIONS.map((operation) => operation.name).sort());
  for (const tool of tools) {
    expect(tool.title, tool.name).toMatch(/^\S.{2,60}$/);
    expect(tool.annotations, tool.name).toEqual(expectedHints(tool.name));
    expect(tool.outputSchema?.type, tool.name).toBe('object');
  }
  // Hosts see the levels; a page size is described as the server reads it (clamped, never refused).
  const inputOf = (name: string) => tools.find((tool) => tool.name === name)!.inputSchema.properties ?? {};
  expect(inputOf('find_entity').access_level).toMatchObject({ enum: ['public', 'team', 'private', null] });
  expect(inputOf('list_recent_work').limit).not.toHaveProperty('maximum');
  expect(inputOf('list_memory_versions').limit).not.toHaveProperty('maximum');
  // callWithNotices checks structuredContent against the text and isError against the payload;
  // the SDK client itself validates structuredContent against the listed outputSchema.
  for (const entry of CASES) {
    const { isError, notices } = await callWithNotices(client, entry.name, entry.arguments);
    expect(isError, `${entry.name} ${JSON.stringify(entry.arguments)}`).toBe(
      entry.name === 'list_recent_work' && entry.arguments.cursor === 'not-a-cursor',
    );
    // The conformance cases that name no agent (`nobody`) or no date are told so; nothing else is.
    if (notices !== null) expect(notices).toMatch(/^(since .* is not a date|no agent "nobody")/);
  }
  for (const entry of REFUSALS) {
    const { isError, payload } = await callWithNotices(client, entry.name, entry.arguments);
    expect(isError, entry.name).toBe(true);
    expect(payload).toHaveProperty('error');
  }
  for (const [entry, notice] of NOTICES) {
    const { isError, notices } = await callWithNotices(client, entry.name, entry.arguments);
    expect(isError).toBe(false);
    expect(notices).toMatch(notice);
  }
  const relative = await callWithNotices(client, 'list_recent_work', { since: '7d' });
  expect(relative.notices).toBeNull();
  expect(relative.payload).toMatchObject({ since: '7d' });
}

describe('the TypeScript SDK client lists and calls every tool without a validation error', () => {
  it('over stdio (the real binary)', async () => {
    const client = new Client({ name: 'surface-stdio', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'serve', '--library', copyFixtureLibrary()],
        env: { BOURDON_HOME: tempDir('bourdon-surface-home-') },
        stderr: 'ignore',
      }),
    );
    try {
      await exercise(client);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('over streamable HTTP', async () => {
    const store = new LibraryStore(copyFixtureLibrary(), { warn: () => {} });
    const served = await runHttpServer(() => createMcpServer(store, { warn: () => {}, auditPath: null }), {
      port: 0,
      allowUnauthenticated: true,
      warn: () => {},
    });
    const client = await httpClient(served.url, 'auto');
    try {
      await exercise(client);
    } finally {
      await client.close();
      await served.close();
    }
  }, 60_000);
});

const pythonMcp = await pythonWithMcp();
const python = 'python' in pythonMcp ? pythonMcp.python : null;
if ('unavailable' in pythonMcp)
  console.warn(`mcp.surface: ${pythonMcp.unavailable}; the Python client tests are skipped`);

type PythonReport = {
  tools: {
    name: string;
    title: string | null;
    annotations: Record<string, boolean> | null;
    has_output_schema: boolean;
  }[];
  calls: { name: string; is_error?: boolean; text?: string; notice?: string | null; exception: string | null }[];
};

describe.skipIf(!python)('the Python mcp client lists and calls every tool without a validation error', () => {
  let casesFile: string;
  let http: HttpServerHandle;
  const all = [...CASES, ...REFUSALS, ...NOTICES.map(([entry]) => entry)];

  beforeAll(async () => {
    casesFile = path.join(tempDir('bourdon-surface-py-'), 'cases.json');
    fs.writeFileSync(casesFile, JSON.stringify(all));
    const store = new LibraryStore(copyFixtureLibrary(), { warn: () => {} });
    http = await runHttpServer(() => createMcpServer(store, { warn: () => {}, auditPath: null }), {
      port: 0,
      allowUnauthenticated: true,
      warn: () => {},
    });
  });
  afterAll(async () => http?.close());

  const runPython = async (...transport: string[]): Promise<PythonReport> => {
    const script = path.join(REPO_ROOT, 'test', 'helpers', 'python-mcp-client.py');
    const { stdout } = await promisify(execFile)(python!, [script, casesFile, ...transport], {
      env: { ...process.env, BOURDON_HOME: tempDir('bourdon-surface-py-home-') },
      maxBuffer: 64 * 1024 * 1024,
    });
    return JSON.parse(stdout) as PythonReport;
  };

  const check = (report: PythonReport) => {
    expect(report.tools).toHaveLength(OPERATIONS.length);
    for (const tool of report.tools) {
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.annotations, tool.name).toEqual(expectedHints(tool.name));
      expect(tool.has_output_schema, tool.name).toBe(true);
    }
    expect(report.calls.filter((call) => call.exception)).toEqual([]);
    expect(report.calls.map((call) => call.name)).toEqual(all.map((entry) => entry.name));
    expect(new Set(report.calls.map((call) => call.name)).size).toBe(OPERATIONS.length);
    report.calls.forEach((call, index) => {
      const payload = JSON.parse(call.text!) as { error?: unknown };
      expect(call.is_error, `${call.name} ${JSON.stringify(all[index]?.arguments)}`).toBe(
        typeof payload.error === 'string',
      );
    });
    expect(report.calls.slice(-NOTICES.length).map((call) => call.notice)).toEqual(
      NOTICES.map(([, notice]) => expect.stringMatching(notice)),
    );
  };

  it('over stdio (the real binary)', async () => {
    check(await runPython('stdio', process.execPath, BIN, 'serve', '--library', copyFixtureLibrary()));
  }, 120_000);

  it('over streamable HTTP', async () => {
    check(await runPython('http', http.url));
  }, 120_000);
});
