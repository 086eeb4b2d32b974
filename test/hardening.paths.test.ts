/**
 * Path safety (spec §2): an agent id or member id from outside — a tool argument, a resource
 * URI, a CLI argument — that could name a path (`..`, `/`, `%2e%2e`, an absolute path, a NUL
 * byte, a backslash…) is refused before any path is built, and nothing is created anywhere:
 * the whole temp tree (library, config dir, and the parent that `../` ids point into) is
 * byte-for-byte the same afterwards.
 *
 * Covered: every id-taking tool and the memory resource through a real MCP client; the core
 * staging and registry operations (NUL included); and the CLI commands commit, note add,
 * history, diff, rollback, staging promote/reject, agent add and grant — all hostile ids
 * through oclif in one helper process, and one per command through the real binary.
 * (A NUL byte cannot reach the CLI: the OS refuses it in an argument.)
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILURES } from '../src/core/errors.js';
import { commitToFederation } from './helpers/write-calls.js';
import { createContext } from '../src/core/context.js';
import { LibraryStore } from '../src/core/store/library.js';
import { callerFor, FederationRegistry } from '../src/core/trust/registry.js';
import { promoteStaged, rejectStaged, stageCommit } from '../src/core/writes/staging.js';
import { runCli, runCliBatch } from './helpers/cli.js';
import { copyFixtureLibrary, tempDir } from './helpers/fixtures.js';
import { callJson, linkedClient, readJsonResource, type LinkedClient } from './helpers/mcp.js';
import { at } from './helpers/items.js';

let parent: string;
let library: string;
let home: string;
let rows: string;

/** Every file and folder under `root`, with a hash of each file's bytes. */
function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const rel = path.relative(root, full);
      // The audit log is the one file a refusal writes: its line says what was refused (issue 41).
      if (entry.name === 'audit.jsonl') continue;
      if (entry.isDirectory()) {
        out[rel + '/'] = 'dir';
        walk(full);
      } else {
        out[rel] = crypto.createHash('sha256').update(fs.readFileSync(full)).digest('hex');
      }
    }
  };
  walk(root);
  return out;
}

/** Ids that could name a path; `parent` is the folder `../` ids would reach from the library. */
function hostileIds(withNul: boolean): string[] {
  const ids = [
    '..',
    '.',
    '../escape',
    '../../escape',
    '../../../escape',
    'x/../../escape',
    'agents/../../escape',
    path.join(parent, 'abs-escape'),
    '/etc/passwd',
    '%2e%2e',
    '%2e%2e%2fescape',
    '..%2f..%2fescape',
    '..\\escape',
    'C:\\escape',
    '.hidden',
    'escape.l5.yaml',
    'escape/',
    'Escape',
    ' escape',
    'escape\n',
    'a'.repeat(65),
  ];
  return withNul ? [...ids, 'a\u0000b', '\u0000', 'escape\u0000/../../x'] : ids;
}

beforeAll(async () => {
  parent = tempDir('bourdon-paths-');
  library = path.join(parent, 'library');
  home = path.join(parent, 'home');
  const copy = copyFixtureLibrary();
  fs.renameSync(copy, library);
  fs.mkdirSync(home);
  rows = path.join(parent, 'rows.json');
  fs.writeFileSync(rows, JSON.stringify({ entities: [{ name: 'Escaped' }] }));
  // Some state worth protecting: a version history and a member.
  const ctx = createContext(new LibraryStore(library, { warn: () => {} }), {
    warn: () => {},
    env: { BOURDON_HOME: home },
  });
  await commitToFederation(ctx, { agent_id: 'codex', entities: [{ name: 'Versioned' }] });
  new FederationRegistry(path.join(home, 'federation.yaml'), { warn: () => {} }).add('member', { grants: ['codex'] });
});
afterAll(() => fs.rmSync(parent, { recursive: true, force: true }));

describe('hostile ids through a real MCP client', () => {
  let linked: LinkedClient;
  beforeAll(async () => {
    linked = await linkedClient(library, { env: { BOURDON_HOME: home } });
  });
  afterAll(async () => linked.close());

  it('every id-taking tool refuses them (writes and history) or finds nothing (read filters); nothing is created', async () => {
    const before = tree(parent);
    for (const id of hostileIds(true)) {
      const refused = [
        ['commit_to_federation', { agent_id: id, agent_type: 'other', entities: [{ name: 'Escaped' }] }],
        ['commit_to_federation', { agent_id: id, agent_type: 'other', mode: 'replace' }],
        ['list_memory_versions', { agent_id: id }],
        ['explain_memory_change', { agent_id: id, version: 1 }],
        ['rollback_agent_memory', { agent_id: id, version: 1 }],
      ] as const;
      for (const [tool, args] of refused) {
        const payload = (await callJson(linked.client, tool, args)) as Record<string, unknown>;
        expect(payload.error, `${tool} ${JSON.stringify(id)}`).toMatch(/^invalid agent_id /);
      }
      // Read filters name no path at all: an id that is no agent matches nothing (D2).
      const filters = [
        ['query_agent_memory', { agent: id, topic: 'Bourdon' }, 'matches'],
        ['list_recent_work', { agent: id, since: '2000-01-01' }, 'sessions'],
        ['list_notes', { agent: id, since: '2000-01-01' }, 'notes'],
        ['list_workstreams', { agent: id }, 'workstreams'],
      ] as const;
      for (const [tool, args, list] of filters) {
        const payload = (await callJson(linked.client, tool, args)) as Record<string, unknown>;
        expect(payload[list], `${tool} ${JSON.stringify(id)}`).toEqual([]);
      }
    }
    expect(tree(parent)).toEqual(before);
  });

  it('the memory resource refuses them, encoded or raw; dot segments are resolved by the URI parser, never as a path', async () => {
    const before = tree(parent);
    // The ids that could steer a path: these must be refused by the id check, never looked up.
    // eslint-disable-next-line no-control-regex -- control characters are among the hazards
    const pathHazard = (id: string) => /[/\\\u0000-\u001f]|\.\./.test(id) || id !== id.trim();
    let validated = 0;
    let hazards = 0;
    for (const id of hostileIds(true)) {
      // `.` and `..` stay dot segments when encoded; the URI parser resolves them (no match).
      const payload = await readJsonResource(
        linked.client,
        `agent-library://agents/${encodeURIComponent(id)}/memory`,
      ).catch((error: Error) => ({
        protocolError: error.message,
      }));
      // Reads accept the engine's lenient ids (edge rule a) as lookups only: an id that is not a
      // path hazard but names no manifest is "not found"; it never reaches the file system.
      expect(JSON.stringify(payload), JSON.stringify(id)).toMatch(
        /^\{"error":"(invalid agent_id |agent not found: )|protocolError/,
      );
      if (!pathHazard(id) || id === '..') continue;
      hazards += 1;
      if (JSON.stringify(payload).includes('invalid agent_id')) validated += 1;
    }
    // `..` (and an encoded `/`) may instead be resolved away by the URI parser before any id check.
    expect(validated).toBeGreaterThanOrEqual(hazards - 2);
    for (const raw of [
      '%2e%2e',
      '%2E%2E%2Fescape',
      '..%2F..%2Fescape',
      '%00',
      'a%00b',
      '%2Fetc%2Fpasswd',
      '..%5Cescape',
    ]) {
      const payload = await readJsonResource(linked.client, `agent-library://agents/${raw}/memory`).catch(
        (error: Error) => ({ protocolError: error.message }),
      );
      expect(JSON.stringify(payload), raw).toMatch(/invalid agent_id|protocolError/);
    }
    // `agents/../x/memory` is normalised by the URI parser to `agents/x/memory` before matching:
    // it names the agent `x` (a valid id), not a file.
    expect(await readJsonResource(linked.client, 'agent-library://agents/../../escape/memory')).toEqual({
      error: 'agent not found: escape',
    });
    const entity = await readJsonResource(
      linked.client,
      `agent-library://entities/${encodeURIComponent('../../etc/passwd')}`,
    );
    expect(entity).toEqual([]);
    expect(tree(parent)).toEqual(before);
  });
});

describe('hostile ids through the core staging and registry operations', () => {
  it('are refused, NUL bytes included, and nothing is created', async () => {
    const before = tree(parent);
    const registry = new FederationRegistry(path.join(home, 'federation.yaml'), { warn: () => {} });
    const operator = createContext(new LibraryStore(library, { warn: () => {} }), {
      warn: () => {},
      env: { BOURDON_HOME: home },
    });
    for (const id of hostileIds(true)) {
      await expect(promoteStaged(operator, id), JSON.stringify(id)).rejects.toThrow(/^invalid agent_id /);
      await expect(rejectStaged(operator.store, id), JSON.stringify(id)).rejects.toThrow(/^invalid agent_id /);
      // A member whose own id is hostile (a hand-edited registry is refused whole, but the
      // operation must not trust its caller either).
      const member = createContext(operator.store, {
        warn: () => {},
        caller: callerFor(id, { tier: 'quarantined', grants: [] }),
      });
      expect(
        (await stageCommit(member, { agent_id: id, entities: [{ name: 'Escaped' }] })).error,
        JSON.stringify(id),
      ).toMatch(/^invalid agent_id /);
      expect(() => registry.add(id), JSON.stringify(id)).toThrow(/^invalid agent_id /);
      expect(() => registry.grant('member', id), JSON.stringify(id)).toThrow(/^invalid namespace /);
      for (const change of [
        () => registry.grant(id, 'codex'),
        () => registry.rotate(id),
        () => registry.revoke(id),
        () => registry.setTier(id, 'trusted'),
      ]) {
        expect(change, JSON.stringify(id)).toThrow(/^invalid agent_id /);
      }
    }
    expect(tree(parent)).toEqual(before);
  });
});

describe('hostile ids on the command line', () => {
  const commands = (id: string): string[][] => [
    ['commit', id, '--file', rows, '--agent-type', 'other'],
    ['note', 'add', id, 'a note', '--agent-type', 'other'],
    ['history', id],
    ['diff', id, '1'],
    ['rollback', id, '1', '--yes'],
    ['staging', 'promote', id],
    ['staging', 'reject', id],
    ['agent', 'add', id],
    ['grant', id, 'codex'],
    ['grant', 'member', id],
  ];
  const env = () => ({ BOURDON_HOME: home, BOURDON_NO_CACHE: '1', BOURDON_LIBRARY: library });

  function expectRefused(result: { code: number | null; stdout: string; stderr: string }, label: string): void {
    // A hostile id is invalid input (or a usage error where a flag's own parser refuses it).
    expect([FAILURES.usage.exit, FAILURES.invalid_input.exit], `${label}: ${result.stderr}`).toContain(result.code);
    const lines = result.stderr.trim().split('\n');
    expect(lines, label).toHaveLength(1);
    expect(lines[0], label).toMatch(/^bourdon: invalid (agent_id|namespace) /);
    expect(result.stdout, label).toBe('');
  }

  it('every command refuses every hostile id (in one process), and nothing is created', async () => {
    const before = tree(parent);
    // The library comes from BOURDON_LIBRARY: member commands take no --library.
    const lists = hostileIds(false).flatMap((id) => commands(id));
    const results = await runCliBatch(lists, env());
    expect(results).toHaveLength(lists.length);
    for (const result of results) expectRefused(result, JSON.stringify(result.argv));
    expect(tree(parent)).toEqual(before);
  }, 60_000);

  it('the real binary refuses them too (one hostile id per command)', async () => {
    const before = tree(parent);
    const ids = hostileIds(false);
    const cases = commands('PLACEHOLDER').map((argv, index) =>
      argv.map((arg) => (arg === 'PLACEHOLDER' ? at(ids, (index * 2 + 2) % ids.length) : arg)),
    );
    for (let i = 0; i < cases.length; i += 3) {
      const batch = cases.slice(i, i + 3);
      const results = await Promise.all(batch.map((argv) => runCli(argv, { env: env() })));
      results.forEach((result, j) => expectRefused(result, JSON.stringify(batch[j])));
    }
    expect(tree(parent)).toEqual(before);
  }, 60_000);
});
