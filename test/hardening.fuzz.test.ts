/**
 * Hostile arguments through a real MCP client: random shapes, huge and odd strings, nulls and
 * wrong types for every tool. Every call answers (a result or an error result), the server
 * keeps serving, nothing is written outside the library, and the library stays loadable.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LibraryStore } from '../src/core/store/library.js';
import { OPERATIONS as ALL_TOOLS } from '../src/core/operations/catalog.js';
import { FIXTURE_LIBRARY, tempDir } from './helpers/fixtures.js';
import { firstText, linkedClient, readJsonResource, type LinkedClient } from './helpers/mcp.js';
import { at } from './helpers/items.js';

const ARG_NAMES = [
  'agent',
  'topic',
  'name',
  'project',
  'prompt',
  'since',
  'cursor',
  'limit',
  'summary',
  'access_level',
  'include_private',
  'federation_hop',
  'agent_id',
  'agent_type',
  'mode',
  'entities',
  'sessions',
  'notes',
  'version',
  'against',
  'reason',
  'tag',
  'status',
  'cwd',
  'max_items',
  'max_chars',
  'instance',
  'role_narrative',
];

const hostileString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
  fc.constantFrom(
    '../x',
    '../../etc/passwd',
    '/etc/passwd',
    '%2e%2e%2fx',
    'a\u0000b',
    'con',
    '.',
    '..',
    '',
    ' ',
    'peer:x:y',
    'claude-code',
    'public',
    'private',
    'team',
    'merge',
    'replace',
    '2026-02-30',
    'eyJvZmZzZXQiOi0xfQ==',
    '\u202e',
    '🙂'.repeat(200),
  ),
  fc.nat({ max: 200_000 }).map((n) => 'x'.repeat(n)),
);
const hostileValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    hostileString,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    tie('list'),
    tie('object'),
  ),
  list: fc.array(tie('value'), { maxLength: 3 }),
  object: fc.dictionary(
    fc.oneof(fc.constantFrom('name', 'date', 'text', 'visibility', 'tags', '__proto__', 'constructor'), fc.string()),
    tie('value'),
    { maxKeys: 4 },
  ),
})).value;
const hostileArgs = fc.dictionary(fc.constantFrom(...ARG_NAMES), hostileValue, { maxKeys: 6 });

describe('fuzzing every tool through a real MCP client', () => {
  let parent: string;
  let library: string;
  let linked: LinkedClient;

  beforeAll(async () => {
    parent = tempDir('bourdon-fuzz-');
    library = path.join(parent, 'library');
    fs.cpSync(FIXTURE_LIBRARY, library, { recursive: true });
    const home = path.join(parent, 'home');
    linked = await linkedClient(library, { auditPath: path.join(home, 'audit.jsonl'), env: { BOURDON_HOME: home } });
  });
  afterAll(async () => {
    await linked.close();
    fs.rmSync(parent, { recursive: true, force: true });
  });

  it('every call answers and the server stays up', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ALL_TOOLS.map((tool) => tool.name)), hostileArgs, async (name, args) => {
        const result = await linked.client.callTool({ name, arguments: args as Record<string, unknown> });
        const content = result.content as { type: string; text: string }[];
        // The engine's text first; a second text item is a notice (an ignored argument, an unknown agent).
        expect(content.length === 1 || content.length === 2).toBe(true);
        for (const item of content) expect(item.type).toBe('text');
        if (!result.isError) expect(() => JSON.parse(at(content, 0).text)).not.toThrow();
      }),
      { numRuns: 400 },
    );
    const alive = await linked.client.callTool({ name: 'list_agents', arguments: {} });
    expect(JSON.parse(firstText(alive)).agents).toContain('claude-code');
  });

  it('well-typed but hostile arguments reach every handler, which answers with a payload', async () => {
    // Per tool: each argument drawn from hostile values its own schema accepts, so calls get
    // past validation and into the operations.
    const candidates = fc.oneof(
      hostileString,
      fc.integer({ min: -5, max: 500 }),
      fc.boolean(),
      fc.constant(null),
      fc.array(hostileValue, { maxLength: 3 }),
    );
    const perTool = ALL_TOOLS.map((tool) => {
      const shape = tool.input.shape as Record<string, { safeParse(value: unknown): { success: boolean } }>;
      const fields = Object.fromEntries(
        Object.entries(shape).map(([key, field]) => [
          key,
          candidates.filter((value) => field.safeParse(value).success),
        ]),
      );
      return fc
        .record(fields, { requiredKeys: [] })
        .filter((args) => tool.input.safeParse(args).success)
        .map((args) => [tool.name, args] as const);
    });
    await fc.assert(
      fc.asyncProperty(fc.oneof(...perTool), async ([name, args]) => {
        const result = await linked.client.callTool({ name, arguments: args as Record<string, unknown> });
        const payload = JSON.parse(firstText(result)) as Record<string, unknown>;
        expect(typeof payload).toBe('object');
        // A refusal is the engine's error payload, marked isError for hosts; an answer is not.
        expect(result.isError ?? false).toBe(typeof payload.error === 'string');
      }),
      { numRuns: 300 },
    );
  });

  it('resource URIs with traversal and junk are refused or empty, never a file outside', async () => {
    for (const id of ['..', '../x', '%2e%2e', '%2e%2e%2fetc', '%00', 'Bad%20Id', '%2Fetc%2Fpasswd', 'a'.repeat(300)]) {
      const payload = await readJsonResource(linked.client, `agent-library://agents/${id}/memory`).catch(
        (error: Error) => ({ protocolError: error.message }),
      );
      expect(JSON.stringify(payload)).toMatch(/invalid agent_id|agent not found|protocolError/);
    }
  });

  it('nothing was written outside the library, and the library still loads', () => {
    expect(fs.readdirSync(parent).sort()).toEqual(['home', 'library']);
    expect(fs.readdirSync(path.join(parent, 'home')).filter((file) => !file.startsWith('audit'))).toEqual([]);
    for (const entry of fs.readdirSync(library))
      expect(['agents', 'history', 'staging', '.bourdon.lock', '.bourdon.lock.lock']).toContain(entry);
    const snapshot = new LibraryStore(library, { warn: () => {} }).snapshot();
    expect(snapshot.broken.map((record) => record.id)).toEqual(['broken']);
    expect(snapshot.agents.length).toBeGreaterThanOrEqual(5);
  });
});
