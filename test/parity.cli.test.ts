/**
 * The CLI and the MCP tools call the same operations: `bourdon <command> --json` prints the
 * exact tool payload. Runs the reads.json and edge.json cases that have a matching command
 * through the real binary, each over the library its file names.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILURES } from '../src/core/errors.js';
import { runCli } from './helpers/cli.js';
import { caseFile, copyFixtureLibrary, normalise, type ConformanceCase } from './helpers/fixtures.js';
import { parseCalendarDay } from '../src/core/store/dates.js';

const reads = caseFile('reads.json');
const edge = caseFile('edge.json');
const ENV = { BOURDON_LOCAL_NAME: 'fixture-machine' };

function accessFlags(args: Record<string, unknown>): string[] {
  const out: string[] = [];
  if (typeof args.access_level === 'string') out.push('--access-level', args.access_level);
  if (args.include_private === true) out.push('--include-private');
  return out;
}

/** The command line for a tool case, or null when the CLI has no such form. */
function commandFor(testCase: ConformanceCase): string[] | null {
  const a = testCase.arguments;
  switch (testCase.name) {
    case 'list_agents':
      return ['agents'];
    case 'export_agents':
      return ['agents', '--export'];
    case 'find_entity':
      return ['find', String(a.name), ...accessFlags(a)];
    case 'query_agent_memory':
      // An agent with no manifest is an error on the command line (docs/cli.md), not "no matches".
      if (testCase.id === 'query_agent_memory.unknown_agent') return null;
      return ['query', String(a.agent), String(a.topic), ...accessFlags(a)];
    case 'get_cross_agent_summary':
      return ['summary', String(a.project), ...accessFlags(a)];
    case 'prepare_recognition_context':
      return ['recognize', String(a.prompt), ...accessFlags(a)];
    case 'get_deeper_context':
      return ['deeper-context', String(a.prompt), ...accessFlags(a)];
    case 'list_recent_work': {
      // The CLI validates --limit as an integer flag and a bad cursor is a failure (exit 1);
      // those cases are covered below and by the MCP parity test.
      if (a.cursor === 'not-a-cursor') return null;
      // An --agent naming no manifest is an error on the command line too (docs/cli.md).
      if (testCase.id === 'list_recent_work.unknown_agent') return null;
      // Out-of-range limits and unreadable days are usage errors on the command line (exit 2,
      // docs/cli.md; test/cli.terminal.test.ts); over MCP the engine's clamp and fallback stay.
      if (typeof a.limit === 'number' && (a.limit < 1 || a.limit > 100)) return null;
      if (typeof a.since === 'string' && !parseCalendarDay(a.since.trim())) return null;
      const out = ['recent'];
      if (typeof a.since === 'string') out.push(`--since=${a.since}`);
      if (typeof a.agent === 'string') out.push('--agent', a.agent);
      // Lax inputs (edge.j: limit "1", summary "true") are what a shell passes anyway.
      if (typeof a.limit === 'number' || typeof a.limit === 'string') out.push(`--limit=${a.limit}`);
      if (typeof a.cursor === 'string') out.push(`--cursor=${a.cursor}`);
      if (a.summary === true || a.summary === 'true') out.push('--summary');
      return [...out, ...accessFlags(a)];
    }
    default:
      return null;
  }
}

const runnableOf = (cases: ConformanceCase[]) =>
  cases.filter((testCase) => testCase.kind === 'tool' && commandFor(testCase) !== null);
const runnable = runnableOf(reads.cases);

/** Runs one case through the binary: exit 0, or 1 when the payload is an error (still printed under --json). */
async function expectCliPayload(testCase: ConformanceCase, library: string): Promise<void> {
  const result = await runCli([...commandFor(testCase)!, '--json', '--library', library], { env: ENV });
  const level = testCase.arguments.access_level;
  if (typeof level === 'string' && !['public', 'team', 'private'].includes(level)) {
    // edge.h: the CLI refuses an unsupported level while parsing its flags (a usage error, exit 2),
    // before any row is read: the same fail-closed answer, in the CLI's own form.
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout).error).toContain(`--access-level=${level}`);
    return;
  }
  const wantsError = typeof (testCase.expected as { error?: unknown }).error === 'string';
  expect(result.code, result.stderr).toBe(wantsError ? 1 : 0);
  const { actual, expected } = normalise(testCase, JSON.parse(result.stdout), library);
  for (const payload of [actual, expected] as { agents?: { parse_error: unknown }[] }[]) {
    for (const agent of Array.isArray(payload?.agents) ? payload.agents : []) {
      if (typeof agent === 'object' && agent && typeof agent.parse_error === 'string')
        agent.parse_error = '<parser message>';
    }
  }
  expect(actual).toEqual(expected);
}

describe('bourdon <command> --json prints the tool payload', () => {
  let library: string;
  beforeAll(() => {
    library = copyFixtureLibrary(reads.library);
  });
  afterAll(() => fs.rmSync(library, { recursive: true, force: true }));

  it('covers every read tool with a command', () => {
    const tools = new Set(runnable.map((testCase) => testCase.name));
    expect([...tools].sort()).toEqual(
      [
        'export_agents',
        'find_entity',
        'get_cross_agent_summary',
        'get_deeper_context',
        'list_agents',
        'list_recent_work',
        'prepare_recognition_context',
        'query_agent_memory',
      ].sort(),
    );
  });

  it.concurrent.each(runnable.map((testCase) => [testCase.id, testCase] as const))('%s', async (_id, testCase) => {
    await expectCliPayload(testCase, library);
  });

  it('a bad cursor is a one-line error, invalid input, with the payload under --json', async () => {
    const result = await runCli(['recent', '--cursor', 'not-a-cursor', '--json', '--library', library], { env: ENV });
    expect(result.code).toBe(FAILURES.invalid_input.exit);
    expect(JSON.parse(result.stdout).error).toBe("invalid cursor: 'not-a-cursor'");
    const human = await runCli(['recent', '--cursor', 'not-a-cursor', '--library', library], { env: ENV });
    expect(human.code).toBe(FAILURES.invalid_input.exit);
    expect(
      human.stderr
        .trim()
        .split('\n')
        .filter((line) => !line.includes('warning:')),
    ).toEqual(["bourdon: invalid cursor: 'not-a-cursor'"]);
  });
});

describe('edge.json: bourdon <command> --json over library-edge', () => {
  const edgeRunnable = runnableOf(edge.cases);
  let library: string;
  beforeAll(() => {
    library = copyFixtureLibrary(edge.library);
  });
  afterAll(() => fs.rmSync(library, { recursive: true, force: true }));

  it('runs the edge cases of every read tool with a command', () => {
    expect(edgeRunnable.length).toBeGreaterThan(25);
    expect(new Set(edgeRunnable.map((testCase) => testCase.name))).toEqual(
      new Set([
        'find_entity',
        'get_cross_agent_summary',
        'list_agents',
        'list_recent_work',
        'prepare_recognition_context',
        'query_agent_memory',
      ]),
    );
  });

  it.concurrent.each(edgeRunnable.map((testCase) => [testCase.id, testCase] as const))('%s', async (_id, testCase) => {
    await expectCliPayload(testCase, library);
  });
});
