/**
 * Which version a rollback restored, and why (issue 44, item 7): `list_memory_versions` says it
 * on each rollback (`restored_version`, `reason`; docs/conformance.md D18), through a real MCP
 * client (the first text item, which structuredContent repeats) and `bourdon history`, human
 * and `--json`, as the page's History view does.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';
import { callJson, linkedClient, type LinkedClient } from './helpers/mcp.js';

interface Listed {
  version: number;
  op: string;
  restored_version?: number | null;
  reason?: string | null;
}

describe('a rollback says which version it restored and why', () => {
  let library: string;
  let home: string;
  let linked: LinkedClient;
  const run = (args: string[], input?: string) =>
    runCli([...args, '--library', library], { env: { BOURDON_HOME: home, COLUMNS: '80' }, input });

  beforeAll(async () => {
    library = tempDir('bourdon-rollback-notes-lib-');
    home = tempDir('bourdon-rollback-notes-home-');
    fs.mkdirSync(path.join(library, 'agents'));
    const commit = (entity: string, more: string[] = []) =>
      run(['commit', 'codex', '-f', '-', ...more], JSON.stringify({ entities: [{ name: entity, summary: entity }] }));
    expect((await commit('Orbit', ['--agent-type', 'code-assistant'])).code).toBe(0);
    expect((await commit('Lyra')).code).toBe(0);
    const rolled = await run(['rollback', 'codex', '1', '--reason', 'the Lyra import was wrong', '--yes']);
    expect(rolled.code, rolled.stderr).toBe(0);
    // A second rollback without a reason, back to version 2.
    expect((await run(['rollback', 'codex', '2', '--yes'])).code).toBe(0);
    linked = await linkedClient(library, { env: { BOURDON_HOME: home } });
  });
  afterAll(async () => {
    await linked.close();
    fs.rmSync(library, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  const expected = [
    { version: 4, op: 'rollback', restored_version: 2, reason: null },
    { version: 3, op: 'rollback', restored_version: 1, reason: 'the Lyra import was wrong' },
  ];

  it('list_memory_versions: on each rollback, in the answer a real MCP client reads', async () => {
    const answer = (await callJson(linked.client, 'list_memory_versions', { agent_id: 'codex' })) as {
      versions: Listed[];
    };
    expect(answer.versions.filter((v) => v.op === 'rollback')).toMatchObject(expected);
    // A commit's entry keeps the spec's fields only.
    const commit = answer.versions.find((v) => v.op === 'commit')!;
    expect(commit).not.toHaveProperty('restored_version');
    expect(commit).not.toHaveProperty('reason');
  });

  it('bourdon history: under the table, and in --json (the fast path) as the tool answers', async () => {
    const human = await run(['history', 'codex']);
    expect(human.code, human.stderr).toBe(0);
    const lines = human.stdout.trimEnd().split('\n');
    expect(lines.slice(-2)).toEqual([
      'version 4 restored version 2',
      'version 3 restored version 1: “the Lyra import was wrong”',
    ]);
    const json = await run(['history', 'codex', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const versions = (JSON.parse(json.stdout) as { versions: Listed[] }).versions;
    expect(versions.filter((v) => v.op === 'rollback')).toMatchObject(expected);
  });
});
