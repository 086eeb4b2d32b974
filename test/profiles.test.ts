/**
 * Connection profiles: `createMcpServer(store, { toolFilter })` and `bourdon serve --tools`.
 * A tool the profile leaves out is absent from tools/list and refused by name as a tool
 * result; a name that is no Bourdon tool stays a protocol error (−32602 "Unknown tool: X").
 * Also: `serve` on a missing, unreadable or empty library.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILURES } from '../src/core/errors.js';
import { READ_TOOLS, WRITE_TOOLS, parseToolProfile, profileFilter, profileTools } from '../src/core/trust/profiles.js';
import { translateServerArgs } from '../src/mcp/server-args.js';
import { OPERATIONS as ALL_TOOLS, OPERATION_NAMES as TOOL_NAMES } from '../src/core/operations/catalog.js';
import { runCli } from './helpers/cli.js';
import { BIN, REPO_ROOT, copyFixtureLibrary, tempDir } from './helpers/fixtures.js';
import { callJson, firstText, linkedClient, stdioClient, type StdioClient } from './helpers/mcp.js';

const L6_BIN = path.join(REPO_ROOT, 'bin', 'l6-server.js');
const NOT_OFFERED = (tool: string) => ({ error: 'tool not offered on this connection', tool });
const WRITES = ['commit_to_federation', 'rollback_agent_memory'];

let library: string;
let home: string;
beforeAll(() => {
  library = copyFixtureLibrary();
  home = tempDir('bourdon-profiles-home-');
});
afterAll(() => {
  fs.rmSync(library, { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
});

describe('profiles (src/core/trust/profiles.ts)', () => {
  it('name real tools, in the server order; write adds only commit_to_federation; all is every tool', () => {
    const order = ALL_TOOLS.map((tool) => tool.name);
    for (const name of WRITE_TOOLS) expect(TOOL_NAMES.has(name), name).toBe(true);
    expect([...READ_TOOLS]).toEqual(order.filter((name) => READ_TOOLS.includes(name)));
    expect(READ_TOOLS).toHaveLength(14);
    expect(READ_TOOLS).not.toContain('commit_to_federation');
    expect(READ_TOOLS).not.toContain('rollback_agent_memory');
    expect(READ_TOOLS).toEqual(expect.arrayContaining(['list_notes', 'list_memory_versions', 'explain_memory_change']));
    expect(WRITE_TOOLS.filter((name) => !READ_TOOLS.includes(name))).toEqual(['commit_to_federation']);
    expect(profileTools('all')).toBeNull();
    expect(profileFilter('all')).toBeUndefined();
    expect(() => parseToolProfile('admin')).toThrow(/use read, write or all/);
  });
});

describe('createMcpServer with a toolFilter', () => {
  it('read: write and rollback tools are absent, refused by name as a result; unknown names are protocol errors', async () => {
    const linked = await linkedClient(library, { toolFilter: profileFilter('read') });
    try {
      const { tools } = await linked.client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual([...READ_TOOLS]);
      for (const name of WRITES) {
        const result = await linked.client.callTool({ name, arguments: { agent_id: 'codex' } });
        expect(result.isError).toBe(true);
        expect(JSON.parse(firstText(result))).toEqual(NOT_OFFERED(name));
      }
      await expect(linked.client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Unknown tool: no_such_tool'),
      });
      // Offered tools and resources work as usual.
      expect((await callJson(linked.client, 'list_agents')) as { agents: string[] }).toMatchObject({
        agents: expect.arrayContaining(['codex']),
      });
      expect((await linked.client.readResource({ uri: 'agent-library://agents' })).contents).toHaveLength(1);
    } finally {
      await linked.close();
    }
  });

  it("write: commits work, rollback is refused; a filter function of the caller's own works too", async () => {
    const lib = copyFixtureLibrary();
    const linked = await linkedClient(lib, { toolFilter: profileFilter('write'), env: { BOURDON_HOME: home } });
    try {
      const names = (await linked.client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(
        [...WRITE_TOOLS].sort(
          (a, b) => ALL_TOOLS.findIndex((t) => t.name === a) - ALL_TOOLS.findIndex((t) => t.name === b),
        ),
      );
      const commit = (await callJson(linked.client, 'commit_to_federation', {
        agent_id: 'notes-bot',
        agent_type: 'note-capture',
        entities: [{ name: 'Roadmap', type: 'draft' }],
      })) as { entities_added: number };
      expect(commit.entities_added).toBe(1);
      expect(await callJson(linked.client, 'rollback_agent_memory', { agent_id: 'notes-bot', version: 1 })).toEqual(
        NOT_OFFERED('rollback_agent_memory'),
      );
    } finally {
      await linked.close();
      fs.rmSync(lib, { recursive: true, force: true });
    }
    const custom = await linkedClient(library, { toolFilter: (name) => name === 'find_entity' });
    try {
      expect((await custom.client.listTools()).tools.map((tool) => tool.name)).toEqual(['find_entity']);
      expect(await callJson(custom.client, 'list_agents')).toEqual(NOT_OFFERED('list_agents'));
    } finally {
      await custom.close();
    }
  });
});

/** Spawns a server over stdio the way an MCP host does (command + args + env). */
async function hostConnect(bin: string, args: string[], env: Record<string, string> = {}): Promise<StdioClient> {
  return stdioClient(
    { args: [bin, ...args], cwd: REPO_ROOT, env: { BOURDON_HOME: home, NO_COLOR: '1', ...env } },
    { name: 'profiles-host' },
  );
}

describe('bourdon serve --tools, spawned as an MCP host does', () => {
  it('--tools read: no write or rollback tool listed; called by name they are refused; an unknown name is −32602', async () => {
    const { client, stderr } = await hostConnect(BIN, ['serve', '--library', library, '--tools', 'read']);
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual([...READ_TOOLS]);
      for (const name of WRITES) expect(names).not.toContain(name);
      for (const name of WRITES) {
        expect(await callJson(client, name, { agent_id: 'codex', agent_type: 'other', version: 1 })).toEqual(
          NOT_OFFERED(name),
        );
      }
      await expect(client.callTool({ name: 'drop_all_tables', arguments: {} })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Unknown tool: drop_all_tables'),
      });
      expect(
        ((await callJson(client, 'find_entity', { name: 'bdn' })) as { matches: { name: string }[] }).matches[0]?.name,
      ).toBe('Bourdon');
      expect(stderr()).toContain('tools: read');
      expect(fs.existsSync(path.join(library, 'history'))).toBe(false); // nothing was written
    } finally {
      await client.close();
    }
  });

  it('bourdon-l6-server takes --tools=write (the = form) and the default is all 16 tools (the engine’s 15 and search_memory)', async () => {
    const write = await hostConnect(L6_BIN, ['--library', library, '--tools=write']);
    try {
      const names = (await write.client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('commit_to_federation');
      expect(names).not.toContain('rollback_agent_memory');
      expect(await callJson(write.client, 'rollback_agent_memory', { agent_id: 'codex', version: 1 })).toEqual(
        NOT_OFFERED('rollback_agent_memory'),
      );
    } finally {
      await write.client.close();
    }
    const all = await hostConnect(BIN, ['serve', '--library', library]);
    try {
      expect((await all.client.listTools()).tools).toHaveLength(16);
      expect(all.stderr()).toContain('tools: all');
    } finally {
      await all.client.close();
    }
  });

  it('bourdon-l6-server passes --tools, --url and --token-env through, and --t stays ambiguous', () => {
    const argv = ['--tools', 'read', '--url=http://127.0.0.1:7500/mcp', '--token-env', 'BOURDON_PEER_X', '--lib', '/x'];
    expect(translateServerArgs(argv)).toEqual([
      '--tools',
      'read',
      '--url=http://127.0.0.1:7500/mcp',
      '--token-env',
      'BOURDON_PEER_X',
      '--library',
      '/x',
    ]);
    expect(translateServerArgs(['--t', 'http'])).toEqual(['--t', 'http']);
  });

  it('refuses an unknown profile as a usage error (exit 2)', async () => {
    const result = await runCli(['serve', '--library', library, '--tools', 'admin'], { env: { BOURDON_HOME: home } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/admin/);
    expect(result.stdout).toBe('');
  });
});

describe('bourdon serve and its library', () => {
  it('refuses a missing library (a typo) in one line naming bourdon init, creating nothing', async () => {
    const root = path.join(tempDir('bourdon-profiles-typo-'), 'agent-libary');
    const runs = [
      await runCli(['serve', '--library', root], { env: { BOURDON_HOME: home } }),
      // The Python server's command line, as bourdon-l6-server takes it.
      await runCli(['--library', root], {
        env: { BOURDON_HOME: home },
        bin: path.join(REPO_ROOT, 'bin', 'l6-server.js'),
      }),
    ];
    for (const result of runs) {
      expect(result.code).toBe(FAILURES.not_found.exit);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toEqual([
        `bourdon: no library at ${root}: run \`bourdon init\` to set one up, or pass --create to serve a new empty one`,
      ]);
    }
    expect(fs.existsSync(root)).toBe(false);
  });

  it('creates a missing library with --create and says so on stderr', async () => {
    const parent = tempDir('bourdon-profiles-new-');
    const root = path.join(parent, 'nested', 'library');
    try {
      const { client, stderr } = await hostConnect(BIN, ['serve', '--library', root, '--create']);
      try {
        expect(await callJson(client, 'list_agents')).toMatchObject({ agents: [] });
        expect(stderr()).toContain(`created an empty library at ${root}`);
        expect(fs.statSync(path.join(root, 'agents')).isDirectory()).toBe(true);
      } finally {
        await client.close();
      }
    } finally {
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });

  it('exits non-zero with the reason when the library is a file or cannot be created, serving nothing', async () => {
    const dir = tempDir('bourdon-profiles-bad-');
    const file = path.join(dir, 'plain-file');
    fs.writeFileSync(file, 'not a library');
    try {
      const notFolder = await runCli(['serve', '--library', file], { env: { BOURDON_HOME: home } });
      expect(notFolder.code).toBe(FAILURES.invalid_input.exit);
      expect(notFolder.stderr).toContain(`library is not a folder: ${file}`);
      expect(notFolder.stdout).toBe('');
      const underFile = await runCli(['serve', '--library', path.join(file, 'lib')], { env: { BOURDON_HOME: home } });
      expect([FAILURES.source_unreadable.exit, FAILURES.unavailable.exit]).toContain(underFile.code);
      expect(underFile.stderr).toMatch(/cannot (read|create) library .*plain-file\/lib: part of the path is a file/);
      expect(underFile.stdout).toBe('');
      fs.mkdirSync(path.join(dir, 'lib2'));
      fs.writeFileSync(path.join(dir, 'lib2', 'agents'), 'a file where the folder should be');
      const badAgents = await runCli(['serve', '--library', path.join(dir, 'lib2')], { env: { BOURDON_HOME: home } });
      expect(badAgents.code).toBe(FAILURES.source_unreadable.exit);
      expect(badAgents.stderr).toMatch(/cannot read .*lib2\/agents/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says on stderr when an existing library has no manifests', async () => {
    const empty = tempDir('bourdon-profiles-empty-');
    try {
      const { client, stderr } = await hostConnect(BIN, ['serve', '--library', empty]);
      await client.close();
      expect(stderr()).toContain('has no manifests yet');
      expect(stderr()).not.toContain('created an empty library');
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});
