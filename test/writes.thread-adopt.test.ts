/**
 * After a commit or a rollback on a server's write thread, the server serves the record the
 * thread built and handed over (src/core/writes/write-worker.ts), not a parse of its own: it
 * must answer exactly as a server that parses the written file does. An explanation diffed on
 * the thread answers as the one-shot CLI's, computed in place; a rollback restores the bytes. Spawns the real server (`bourdon serve
 * --transport http`, dist/) twice on one library, with rows that test the hand-over: a name YAML
 * reads as a number, aliases, tags, an odd-keyed capability, a timestamp, characters outside
 * the BMP, and the levels a trusted caller sees.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { libraryPaths } from '../src/core/store/paths.js';
import { readArchive, readHistory } from '../src/core/writes/history.js';
import { serialiseManifest } from '../src/core/writes/serialise.js';
import type * as ContextModule from '../src/core/context.js';
import type * as InvokeModule from '../src/core/operations/invoke.js';
import type * as WriteOperations from '../src/core/operations/write-operations.js';
import type * as StoreModule from '../src/core/store/library.js';
import type * as WriteThread from '../src/core/writes/write-thread.js';
import { createContext as createSourceContext } from '../src/core/context.js';
import { invoke as invokeFromSources } from '../src/core/operations/invoke.js';
import { listMemoryVersionsOperation } from '../src/core/operations/write-operations.js';
import { LibraryStore } from '../src/core/store/library.js';
import { REPO_ROOT } from './helpers/fixtures.js';
import { callJson, httpClient, oneAgentLibrary, startHttpServe, type ServedHttp } from './helpers/http.js';

const { library, home, registry } = oneAgentLibrary('bourdon-thread-adopt-');
const token = registry.add('writer', { tier: 'trusted' }).token;
const env = { BOURDON_HOME: home, BOURDON_LIBRARY: library };
const servers: ServedHttp[] = [];
const clients: Client[] = [];

afterAll(async () => {
  for (const client of clients) await client.close();
  for (const server of servers) await server.stop();
});

async function serve(): Promise<Client> {
  const server = await startHttpServe(['serve', '--transport', 'http', '--port', '0'], env);
  servers.push(server);
  const client = await httpClient(server.url, 'auto', token);
  clients.push(client);
  return client;
}

/** What a caller reads of agent `a`: each entity by name, its sessions, its notes, and the agent list. */
async function served(client: Client, names: string[]): Promise<unknown[]> {
  const answers: unknown[] = [];
  for (const name of names) answers.push(await callJson(client, 'find_entity', { name, access_level: 'private' }));
  answers.push(
    await callJson(client, 'list_recent_work', { since: '2000-01-01', limit: 100, access_level: 'private' }),
  );
  answers.push(await callJson(client, 'list_notes', { since: '2000-01-01', limit: 100, access_level: 'private' }));
  answers.push(await callJson(client, 'list_agents'));
  const { recognition_latency_us: latency, ...recognised } = await callJson(client, 'prepare_recognition_context', {
    prompt: 'what of orbit and 😀 moon and 42?',
  });
  expect(latency).toEqual(expect.any(Number)); // the one figure two servers may differ in
  answers.push(recognised);
  return answers;
}

describe('a commit on the write thread', () => {
  it('serves the handed-over record exactly as a fresh parse of the written file', async () => {
    fs.writeFileSync(
      path.join(library, 'agents', 'a.l5.yaml'),
      serialiseManifest({
        spec_version: '0.1',
        agent: { id: 'a', type: 'other', role_narrative: 'keeps 😀 moons' },
        last_updated: '2026-11-30T08:00:00Z',
        capabilities: ['read', { __proto__: 'odd key', nested: [1, 'two'] }],
        known_entities: [
          ...Array.from({ length: 200 }, (_, index) => ({
            name: `Existing row number ${index}`,
            summary: `a longer summary that the parser slices out of the text, row ${index}`,
            tags: ['one', `t${index}`],
            visibility: index % 3 === 0 ? 'private' : 'team',
          })),
          { name: 42, summary: 'a name YAML reads as a number' },
        ],
      }),
    );
    const live = await serve();
    const commit = await callJson(live, 'commit_to_federation', {
      agent_id: 'a',
      entities: [
        {
          name: 'Orbit',
          type: 'project',
          aliases: ['orb', 'the orbit'],
          tags: ['space'],
          summary: 'a long summary of the orbit',
        },
        { name: '😀 Moon', summary: 'outside the basic plane', visibility: 'private', valid_to: '2027-01-01' },
      ],
      sessions: [{ date: '2026-11-30T09:30:00Z', project_focus: ['Orbit'], key_actions: ['launched the orbit work'] }],
      notes: [{ date: '2026-11-30', title: 'on orbit', text: 'a note long enough to be sliced from the text' }],
    });
    expect(commit, JSON.stringify(commit)).toMatchObject({ agent_id: 'a', version: expect.any(Number) });
    const names = ['Orbit', 'orb', '😀 Moon', '42', 'Existing row number 0', 'Existing row number 199'];
    const fromThread = await served(live, names);

    const fresh = await serve(); // parses the file the thread wrote
    expect(await served(fresh, names)).toEqual(fromThread);
    expect(JSON.stringify(fromThread)).toContain('a long summary of the orbit');

    // The explanation, diffed on the thread, is the CLI's, computed in place.
    const version = (commit as { version: number }).version;
    const explained = await callJson(live, 'explain_memory_change', { agent_id: 'a', version });
    const cli = await runCli(['diff', 'a', String(version), '--json', '--library', library], {
      env: { BOURDON_HOME: home },
    });
    expect(cli.code, cli.stderr).toBe(0);
    expect(explained).toEqual(JSON.parse(cli.stdout));
    expect(JSON.stringify(explained)).toContain('Orbit');

    // Rolled back on the thread: the file holds the earlier version's bytes exactly, and the
    // server serves the restored record as a fresh parse of them.
    const before = fs.readFileSync(path.join(library, 'agents', 'a.l5.yaml'));
    const rolled = await callJson(live, 'rollback_agent_memory', {
      agent_id: 'a',
      version: version - 1,
      reason: 'test',
    });
    expect(rolled, JSON.stringify(rolled)).toMatchObject({ restored_version: version - 1, version: version + 1 });
    const restored = fs.readFileSync(path.join(library, 'agents', 'a.l5.yaml'));
    expect(restored.equals(before)).toBe(false);
    expect(restored.equals(readArchive(readHistory(libraryPaths(library), 'a'), version - 1)!)).toBe(true);
    expect((rolled as { sha256: string }).sha256).toBe(crypto.createHash('sha256').update(restored).digest('hex'));
    expect(JSON.stringify(await served(live, ['Orbit']))).not.toContain('a long summary of the orbit');
    const afterRollback = await served(live, names);
    expect(await served(await serve(), names)).toEqual(afterRollback);
  }, 60_000);
});

describe("a capped caller's version list", () => {
  it('counts the visible rows of each version on the write thread exactly as in place', async () => {
    // The built modules: the write thread runs only from dist/ (from sources, work runs in place).
    const dist = (file: string) => import(path.join(REPO_ROOT, 'dist', 'core', file));
    const { LibraryStore: BuiltStore } = (await dist('store/library.js')) as typeof StoreModule;
    const { createContext } = (await dist('context.js')) as typeof ContextModule;
    const { invoke } = (await dist('operations/invoke.js')) as typeof InvokeModule;
    const operations = (await dist('operations/write-operations.js')) as typeof WriteOperations;
    const { writeOffThread } = (await dist('writes/write-thread.js')) as typeof WriteThread;

    const root = oneAgentLibrary('bourdon-thread-counts-').library;
    const store = new BuiltStore(root, { warn: () => {} });
    const operator = createContext(store, { warn: () => {} });
    for (const [index, visibility] of ['public', 'team', 'private', 'team'].entries()) {
      await invoke(operations.commitToFederationOperation, operator, {
        agent_id: 'codex',
        entities: [{ name: `Row ${index}`, visibility }],
      });
    }
    // The operator token from another machine: trusted, but capped at team.
    const capped = createContext(store, {
      warn: () => {},
      caller: { agent_id: 'operator', tier: 'trusted', grants: [], ceiling: 'team' },
    });
    const args = { agent_id: 'codex', limit: 10 };
    try {
      writeOffThread(true);
      const onThread = await invoke(operations.listMemoryVersionsOperation, capped, args);
      // The same list from the sources, which count in place (and cache apart from dist/'s).
      const sourceStore = new LibraryStore(root, { warn: () => {} });
      const inPlace = await invokeFromSources(
        listMemoryVersionsOperation,
        createSourceContext(sourceStore, { warn: () => {}, caller: capped.caller }),
        args,
      );
      expect(onThread).toEqual(inPlace);
      const versions = (onThread as { versions: { entities: number | null; sha256: string | null }[] }).versions;
      // Newest first: Bourdon and rows 0, 1 and 3 are visible at team; row 2 is private.
      expect(versions.map((version) => version.entities)).toEqual([4, 3, 3, 2, 1]);
      expect(versions.every((version) => version.sha256 === null)).toBe(true);
    } finally {
      writeOffThread(false);
      store.close();
    }
  }, 60_000);
});
