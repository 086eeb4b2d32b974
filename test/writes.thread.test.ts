/**
 * A server's live commits run on its write thread (src/core/writes/write-thread.ts) while the
 * event loop keeps the gate and answers reads. Killing the server with SIGKILL at any point of a
 * commit must leave what it always did: every acknowledged write in the live manifest, versions
 * numbered without a gap, the live file matching the newest version once the next writer has
 * finished what the killed one left, and no lock that blocks it. Spawns the real server
 * (`bourdon serve --transport http`, dist/) on a manifest large enough that a commit's work
 * takes a while; the manifest is read back with PyYAML. The same for a rollback, which runs on
 * the thread too. And while this process replaces a
 * manifest, its reads answer from the manifest as it was until the writer adopts the new one.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FederationRegistry } from '../src/core/trust/registry.js';
import { LibraryStore, libraryPaths } from '../src/core/store/library.js';
import { readArchive, readHistory } from '../src/core/writes/history.js';
import { serialiseManifest } from '../src/core/writes/serialise.js';
import { tempDir } from './helpers/fixtures.js';
import { mcpHeaders, rawRequest, rpcMessage, startHttpServe } from './helpers/http.js';
import { at } from './helpers/items.js';
import { pyYamlLoad } from './helpers/pyyaml.js';

/**
 * One tools/call over HTTP that writes a version of agent `a`: the version it was acknowledged
 * as, or null (the server died before answering: not acknowledged).
 */
async function writeCall(
  url: string,
  token: string,
  name: string,
  args: Record<string, unknown>,
): Promise<number | null> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
  let response;
  try {
    response = await rawRequest(url, { headers: mcpHeaders(token), body });
  } catch {
    return null;
  }
  expect(response.status).toBe(200);
  const message = rpcMessage(response.body) as { result: { content: { text: string }[] } };
  const payload = JSON.parse(at(message.result.content, 0).text) as { version?: number; error?: string };
  expect(payload.error).toBeUndefined();
  return payload.version!;
}

/** One commit of entity `name`. */
const commit = (url: string, token: string, name: string) =>
  writeCall(url, token, 'commit_to_federation', { agent_id: 'a', entities: [{ name, summary: 'kept' }] });

/** One rollback to `version`. */
const rollback = (url: string, token: string, version: number) =>
  writeCall(url, token, 'rollback_agent_memory', { agent_id: 'a', version, reason: 'kill test' });

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A library holding agent `a` with 600 rows (~150 KB: parse, merge and serialise take long
 * enough for a kill to land inside them), and a home beside it.
 */
function largeAgent(prefix: string) {
  const library = tempDir(prefix);
  const home = tempDir(`${prefix}home-`);
  fs.mkdirSync(path.join(library, 'agents'));
  const livePath = path.join(library, 'agents', 'a.l5.yaml');
  const rows = Array.from({ length: 600 }, (_, index) => ({
    name: `Existing ${index}`,
    type: 'concept',
    summary: `a row that is there before the test, number ${index}, with some words to parse`,
    tags: ['one', 'two', `t${index}`],
  }));
  fs.writeFileSync(
    livePath,
    serialiseManifest({ spec_version: '0.1', agent: { id: 'a', type: 'other' }, known_entities: rows }),
  );
  return { library, home, livePath, rows };
}

describe('a server killed while its write thread commits', () => {
  it('keeps every acknowledged write, numbers versions without a gap, and leaves the gate to the next writer', async () => {
    const { library, home, livePath, rows } = largeAgent('bourdon-thread-kill-');
    const token = new FederationRegistry(path.join(home, 'federation.yaml')).add('writer', { tier: 'trusted' }).token;
    const env = { BOURDON_HOME: home, BOURDON_LIBRARY: library };

    const acknowledged: { name: string; version: number }[] = [];
    let counter = 0;
    for (let round = 0; round < 4; round++) {
      const server = await startHttpServe(['serve', '--transport', 'http', '--port', '0'], env);
      for (let k = 0; k <= round % 2; k++) {
        const name = `row-${counter++}`;
        const version = await commit(server.url, token, name);
        expect(version).not.toBeNull();
        acknowledged.push({ name, version: version! });
      }
      // One more commit in flight, and the process killed somewhere inside it.
      const name = `row-${counter++}`;
      const inFlight = commit(server.url, token, name).then((version) => {
        if (version !== null) acknowledged.push({ name, version });
      });
      await pause(crypto.randomInt(0, 400));
      server.child.kill('SIGKILL');
      await server.exited;
      await inFlight;
    }
    // The next writer finishes what the killed one left (a pending record, a stale lock).
    const server = await startHttpServe(['serve', '--transport', 'http', '--port', '0'], env);
    const finalVersion = await commit(server.url, token, 'final');
    expect(finalVersion).not.toBeNull();
    acknowledged.push({ name: 'final', version: finalVersion! });
    server.child.kill('SIGTERM');
    await server.exited;

    const live = fs.readFileSync(livePath);
    const [read] = pyYamlLoad([live.toString('utf8')]);
    const names = new Set(
      ((read as { value: { known_entities: { name: string }[] } }).value.known_entities ?? []).map((row) => row.name),
    );
    for (const { name } of acknowledged) expect(names.has(name), `${name} was acknowledged`).toBe(true);
    for (const row of rows) expect(names.has(row.name), `${row.name} was there before`).toBe(true);

    const versions = acknowledged.map((entry) => entry.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(versions).size).toBe(versions.length);
    const history = readHistory(libraryPaths(library), 'a');
    const numbers = history.records.map((record) => record.version);
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, index) => at(numbers, 0) + index));
    for (const version of versions) expect(numbers).toContain(version);
    const newest = at(history.records, -1, 'a version');
    expect(newest.version).toBe(finalVersion);
    expect(newest.sha256).toBe(crypto.createHash('sha256').update(live).digest('hex'));
    expect(fs.existsSync(libraryPaths(library).lock)).toBe(false);
  }, 180_000);
});

describe('a server killed while its write thread rolls back', () => {
  it('leaves versions without a gap, the live file one of them, and the gate to the next writer', async () => {
    const { library, home, livePath } = largeAgent('bourdon-thread-rollback-');
    const audit = path.join(home, 'audit.jsonl');
    const token = new FederationRegistry(path.join(home, 'federation.yaml')).add('writer', { tier: 'trusted' }).token;
    const env = { BOURDON_HOME: home, BOURDON_LIBRARY: library, BOURDON_AUDIT_PATH: audit };

    const first = await startHttpServe(['serve', '--transport', 'http', '--port', '0'], env);
    const targets = [(await commit(first.url, token, 'one'))!, (await commit(first.url, token, 'two'))!];
    await first.stop();
    for (let round = 0; round < 4; round++) {
      const server = await startHttpServe(['serve', '--transport', 'http', '--port', '0'], env);
      const inFlight = rollback(server.url, token, at(targets, round % 2));
      await pause(crypto.randomInt(0, 300));
      server.child.kill('SIGKILL');
      await server.exited;
      await inFlight;
    }
    const server = await startHttpServe(['serve', '--transport', 'http', '--port', '0'], env);
    const restored = await rollback(server.url, token, at(targets, 0));
    expect(restored).not.toBeNull();
    await server.stop();

    const history = readHistory(libraryPaths(library), 'a');
    const numbers = history.records.map((record) => record.version);
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, index) => at(numbers, 0) + index));
    const live = fs.readFileSync(livePath);
    const newest = at(history.records, -1, 'a version');
    expect(newest.version).toBe(restored);
    expect(newest.sha256).toBe(crypto.createHash('sha256').update(live).digest('hex'));
    expect(live.equals(readArchive(history, at(targets, 0))!)).toBe(true);
    expect(fs.existsSync(libraryPaths(library).lock)).toBe(false);
  }, 180_000);
});

describe('reads while this process replaces a manifest', () => {
  it('answer from the manifest as it was until the writer adopts the new one or lets go', () => {
    const library = tempDir('bourdon-thread-hold-');
    fs.mkdirSync(path.join(library, 'agents'));
    const file = 'a.l5.yaml';
    const livePath = path.join(library, 'agents', file);
    const manifest = (name: string) => ({
      spec_version: '0.1',
      agent: { id: 'a', type: 'other' },
      known_entities: [{ name }],
    });
    fs.writeFileSync(livePath, serialiseManifest(manifest('before')));
    const store = new LibraryStore(library, { warn: () => {} });
    const names = () =>
      store
        .snapshot()
        .byId.get('a')!
        .entities.map((entity) => entity.name);
    expect(names()).toEqual(['before']);

    const release = store.holdWhileWriting(file);
    const during = serialiseManifest(manifest('during'));
    fs.writeFileSync(livePath, during);
    expect(names()).toEqual(['before']);
    store.written(file, during, manifest('during'), null);
    expect(names()).toEqual(['during']);
    release();

    // A writer that lets go without adopting (its commit failed after the rename): the next
    // snapshot reads the file as it is.
    const again = store.holdWhileWriting(file);
    fs.writeFileSync(livePath, serialiseManifest(manifest('after')));
    expect(names()).toEqual(['during']);
    again();
    expect(names()).toEqual(['after']);
  });
});
