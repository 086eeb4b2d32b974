/**
 * The size and shape limits (docs/reliability.md, "Limits"), each refused with a clear message
 * and nothing written: commit input nested deeper than 64 levels (core, staging, CLI, and a
 * 150,000-level body over raw HTTP, which the server survives), input over 4 MiB through a
 * transport without a body cap (stdio / the library API), a manifest that would grow past
 * 8 MiB, and manifests nested deeper than the reader's 100 levels. (Files over 8 MiB, alias
 * bombs and 20,000-level nesting on disk: hardening.manifests.test.ts; HTTP bodies over
 * 1 MiB: http.transport.test.ts; CLI input over 4 MiB: writes.cli.test.ts.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FAILURES } from '../src/core/errors.js';
import { commitToFederation } from './helpers/write-calls.js';
import { createContext } from '../src/core/context.js';
import { LibraryStore, MAX_MANIFEST_BYTES } from '../src/core/store/library.js';
import { callerFor } from '../src/core/trust/registry.js';
import { stageCommit } from '../src/core/writes/staging.js';
import { MAX_INPUT_BYTES, MAX_INPUT_DEPTH } from '../src/core/writes/commit-input.js';
import { runHttpServer } from '../src/mcp/http.js';
import { createMcpServer } from '../src/mcp/server.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';
import { mcpHeaders, rawRequest, rpcMessage } from './helpers/http.js';
import { at } from './helpers/items.js';

const cleanup: string[] = [];
afterAll(() => {
  for (const dir of cleanup) fs.rmSync(dir, { recursive: true, force: true });
});

function library(): string {
  const root = tempDir('bourdon-limits-');
  cleanup.push(root);
  fs.mkdirSync(path.join(root, 'agents'));
  return root;
}

const context = (root: string, caller = callerFor('operator', { tier: 'trusted', grants: [] })) =>
  createContext(new LibraryStore(root, { warn: () => {} }), { warn: () => {}, env: {}, caller });

/** `{k: {k: … 'leaf'}}`, `levels` objects deep. */
function nested(levels: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i++) value = { k: value };
  return value;
}

const DEPTH_ERROR = `input is nested more than ${MAX_INPUT_DEPTH} levels deep; the limit is ${MAX_INPUT_DEPTH}`;

describe('commit input nesting', () => {
  it('a row field nested 40 levels is kept and reads back; deeper than the limit is refused, nothing written', async () => {
    const root = library();
    const ctx = context(root);
    const kept = await commitToFederation(ctx, {
      agent_id: 'a',
      agent_type: 'other',
      entities: [{ name: 'x', extra: nested(40) }],
    });
    expect(kept.version).toBe(1);
    expect(ctx.store.document(ctx.store.snapshot().byId.get('a')!).known_entities).toEqual([
      { name: 'x', extra: nested(40) },
    ]);
    for (const levels of [MAX_INPUT_DEPTH, 1_000, 100_000]) {
      const payload = await commitToFederation(ctx, {
        agent_id: 'a',
        entities: [{ name: 'y', extra: nested(levels) }],
      });
      expect(payload).toEqual({ error: DEPTH_ERROR, agent_id: 'a', mode: 'merge' });
    }
    const staged = await stageCommit(context(root, callerFor('m', { tier: 'quarantined', grants: [] })), {
      agent_id: 'm',
      entities: [{ name: 'y', extra: nested(5_000) }],
    });
    expect(staged.error).toBe(DEPTH_ERROR);
    expect(fs.readdirSync(path.join(root, 'agents'))).toEqual(['a.l5.yaml']);
    expect(fs.existsSync(path.join(root, 'staging'))).toBe(false);
  });

  it('the CLI refuses a deeply nested input file in one line (past 100 levels its parser refuses it first)', async () => {
    const root = library();
    const file = path.join(root, 'deep.json');
    fs.writeFileSync(file, JSON.stringify({ entities: [{ name: 'y', extra: nested(80) }] }));
    const result = await runCli(['commit', 'a', '--agent-type', 'other', '--file', file, '--library', root]);
    expect(result.code).toBe(FAILURES.invalid_input.exit);
    expect(result.stderr).toBe(`bourdon: ${DEPTH_ERROR}\n`);
    fs.writeFileSync(file, `{"entities": [{"name": "y", "extra": ${'['.repeat(5_000)}${']'.repeat(5_000)}}]}`);
    const deeper = await runCli(['commit', 'a', '--agent-type', 'other', '--file', file, '--library', root]);
    expect(deeper.code).toBe(FAILURES.invalid_input.exit);
    expect(deeper.stderr).toMatch(/^bourdon: cannot parse .*deep\.json.*nesting exceeded maxDepth \(100\)[^\n]*\n$/);
    expect(fs.readdirSync(path.join(root, 'agents'))).toEqual([]);
  });

  it('over raw HTTP, a 150,000-level body under the 1 MiB cap is answered with the error, and the server keeps serving', async () => {
    const root = library();
    const store = new LibraryStore(root, { warn: () => {} });
    const handle = await runHttpServer(() => createMcpServer(store, { warn: () => {}, auditPath: null }), {
      port: 0,
      allowUnauthenticated: true,
      warn: () => {},
    });
    try {
      const deep = '['.repeat(150_000) + ']'.repeat(150_000);
      const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"commit_to_federation","arguments":{"agent_id":"a","agent_type":"other","entities":[{"name":"x","extra":${deep}}]}}}`;
      const answer = await rawRequest(handle.url, { headers: mcpHeaders(), body });
      expect(answer.status).toBe(200);
      const result = rpcMessage(answer.body).result as { content: { text: string }[] };
      expect(JSON.parse(at(result.content, 0).text)).toEqual({ error: DEPTH_ERROR, agent_id: 'a', mode: 'merge' });
      const alive = await rawRequest(handle.url, {
        headers: mcpHeaders(),
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'list_agents', arguments: {} },
        }),
      });
      expect(
        JSON.parse(at((rpcMessage(alive.body).result as { content: { text: string }[] }).content, 0).text),
      ).toEqual({
        agents: [],
      });
    } finally {
      await handle.close();
    }
    expect(fs.readdirSync(path.join(root, 'agents'))).toEqual([]);
  });
});

describe('sizes', () => {
  it('input over 4 MiB is refused where no transport caps it (stdio, the library API)', async () => {
    const root = library();
    const payload = await commitToFederation(context(root), {
      agent_id: 'a',
      agent_type: 'other',
      entities: [{ name: 'x', summary: 'y'.repeat(MAX_INPUT_BYTES) }],
    });
    expect(payload.error).toMatch(new RegExp(`^input is \\d+ bytes; the limit is ${MAX_INPUT_BYTES} \\(4 MiB\\)$`));
    expect(fs.readdirSync(path.join(root, 'agents'))).toEqual([]);
  });

  it('a commit that would grow a manifest past 8 MiB is refused, the file unchanged', async () => {
    const root = library();
    const ctx = context(root);
    // ~7.5 MiB of rows, written directly (committing them would take 2 inputs of 4 MiB).
    const row = (i: number) => `  - name: row-${i}\n    summary: '${'s'.repeat(7_400)}'\n`;
    const text =
      "spec_version: '0.1'\nagent:\n  id: big\n  type: other\nknown_entities:\n" +
      Array.from({ length: 1_060 }, (_, i) => row(i)).join('');
    const file = path.join(root, 'agents', 'big.l5.yaml');
    fs.writeFileSync(file, text);
    expect(fs.statSync(file).size).toBeLessThan(MAX_MANIFEST_BYTES);
    const payload = await commitToFederation(ctx, {
      agent_id: 'big',
      entities: [{ name: 'one more', summary: 'z'.repeat(3 * 1024 * 1024) }],
    });
    expect(payload.error).toMatch(new RegExp(`^the manifest would be \\d+ bytes; the limit is ${MAX_MANIFEST_BYTES}$`));
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
  }, 20_000);

  it('a manifest nested deeper than 100 levels is skipped with a warning; 90 levels read', () => {
    const root = library();
    const doc = (id: string, levels: number) =>
      `spec_version: '0.1'\nagent: {id: ${id}, type: other}\nknown_entities:\n  - name: X\n    extra: ${'['.repeat(levels)}${']'.repeat(levels)}\n`;
    fs.writeFileSync(path.join(root, 'agents', 'shallow.l5.yaml'), doc('shallow', 90));
    fs.writeFileSync(path.join(root, 'agents', 'deep.l5.yaml'), doc('deep', 101));
    const warnings: string[] = [];
    const snapshot = new LibraryStore(root, { warn: (message) => warnings.push(message) }).snapshot();
    expect(snapshot.agents.map((agent) => agent.id)).toEqual(['shallow']);
    expect(snapshot.broken.map((record) => record.id)).toEqual(['deep']);
    expect(warnings.join('\n')).toMatch(/skipping .*deep\.l5\.yaml: .*nesting exceeded maxDepth \(100\)/);
  });
});
