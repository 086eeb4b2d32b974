/**
 * The judged search queries (test/fixtures/search, a copy of ../shared/search: its README says
 * how they are judged), run through the real binary (`bourdon search … --json`) and through
 * search_memory with a real MCP client on a spawned server: one of `expect_any` among the first
 * `within` results, nothing in `forbid` anywhere in the answer.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { callJson, stdioClient, type StdioClient } from './helpers/mcp.js';
import { BIN, readJson, REPO_ROOT, tempDir } from './helpers/fixtures.js';

const SEARCH_DIR = path.join(REPO_ROOT, 'test', 'fixtures', 'search');
const LIBRARY = path.join(SEARCH_DIR, 'library');

interface Expected {
  kind: string;
  name?: string;
  agent?: string;
  action?: string;
  title?: string;
}
interface JudgedQuery {
  query: string;
  access_level: string;
  within: number;
  expect_any?: Expected[];
  forbid?: Expected[];
}
type Result = Record<string, unknown> & { kind: string };

const { queries } = readJson<{ queries: JudgedQuery[] }>(path.join(SEARCH_DIR, 'queries.json'));

function matches(result: Result, expected: Expected): boolean {
  if (expected.kind === 'any') return true;
  if (result.kind !== expected.kind) return false;
  const lower = (value: unknown) => String(value ?? '').toLowerCase();
  switch (expected.kind) {
    case 'entity':
      return lower(result.name) === lower(expected.name);
    case 'session':
      return (
        result.agent === expected.agent &&
        (result.key_actions as string[]).some((action) => lower(action).includes(lower(expected.action)))
      );
    case 'note':
      return result.agent === expected.agent && result.title === expected.title;
    default:
      return false;
  }
}

/** What is wrong with one answer to one judged query, or null when it passes. */
function judge(query: JudgedQuery, answer: { results?: Result[] }): string | null {
  const results = answer.results;
  if (!Array.isArray(results)) return `no results list: ${JSON.stringify(answer).slice(0, 200)}`;
  const top = results.slice(0, query.within);
  if (query.expect_any && !query.expect_any.some((expected) => top.some((result) => matches(result, expected))))
    return `none of ${JSON.stringify(query.expect_any)} in the first ${query.within}: ${JSON.stringify(
      top.map((result) => [result.kind, result.name ?? result.agent, result.title ?? '']),
    )}`;
  for (const forbidden of query.forbid ?? []) {
    const found = results.find((result) => matches(result, forbidden));
    if (found) return `forbidden ${JSON.stringify(forbidden)} answered: ${JSON.stringify(found).slice(0, 200)}`;
  }
  return null;
}

describe('the judged search queries', () => {
  const home = tempDir('bourdon-search-home-');

  it.each(queries.map((query) => [`${query.query} (${query.access_level})`, query] as const))(
    'bourdon search %s',
    async (_label, query) => {
      const run = await runCli(
        ['search', query.query, '--access-level', query.access_level, '--json', '--library', LIBRARY],
        { env: { BOURDON_HOME: home } },
      );
      expect(run.code, run.stderr).toBe(0);
      const answer = JSON.parse(run.stdout) as { query: string; access_level: string; results: Result[] };
      expect(answer.query).toBe(query.query);
      expect(answer.access_level).toBe(query.access_level);
      expect(judge(query, answer)).toBeNull();
    },
  );

  describe('through search_memory on a spawned server', () => {
    let server: StdioClient;
    beforeAll(async () => {
      server = await stdioClient({
        args: [BIN, 'serve', '--library', LIBRARY],
        env: { PATH: process.env.PATH ?? '', BOURDON_HOME: tempDir('bourdon-search-serve-') },
      });
    });
    afterAll(async () => {
      await server?.client.close();
    });

    it('lists search_memory after the engine’s fifteen tools', async () => {
      const { tools } = await server.client.listTools();
      expect(tools).toHaveLength(16);
      const tool = tools.at(-1)!;
      expect(tool.name).toBe('search_memory');
      expect(tool.title).toBeTruthy();
      expect(tool.annotations?.readOnlyHint).toBe(true);
      expect(tool.outputSchema).toBeTruthy();
    });

    it.each(queries.map((query) => [`${query.query} (${query.access_level})`, query] as const))(
      'search_memory %s',
      async (_label, query) => {
        const answer = (await callJson(server.client, 'search_memory', {
          query: query.query,
          access_level: query.access_level,
        })) as { results: Result[] };
        expect(judge(query, answer)).toBeNull();
      },
    );
  });
});
