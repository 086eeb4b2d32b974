/**
 * Option precedence, everywhere: a flag (`--x v` or `--x=v`) wins over its environment
 * variable; a variable set to the empty string counts as unset. One test per rule, through the
 * spawned CLI and the spawned MCP server where users meet them, plus the core functions every
 * entry point shares.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveAccess } from '../src/core/trust/access.js';
import { configPaths, defaultLibraryRoot, parsedLibraryCachePath } from '../src/core/store/config.js';
import { machineName } from '../src/core/context.js';
import { historyKeep } from '../src/core/writes/history.js';
import { FederationRegistry } from '../src/core/trust/registry.js';
import { runCli } from './helpers/cli.js';
import { BIN, FIXTURE_LIBRARY, REPO_ROOT, copyFixtureLibrary, tempDir } from './helpers/fixtures.js';
import { callJson, linkedClient, stdioClient } from './helpers/mcp.js';

let library: string;
let fakeHome: string; // a HOME holding ~/agent-library and ~/.bourdon, for the "unset" defaults
let configHome: string;
const FIXTURE_AGENTS = ['bare-agent', 'claude-code', 'claude-desktop-chat', 'codex', 'cursor'];

beforeAll(() => {
  library = copyFixtureLibrary();
  fakeHome = tempDir('bourdon-precedence-home-');
  fs.cpSync(FIXTURE_LIBRARY, path.join(fakeHome, 'agent-library'), { recursive: true });
  new FederationRegistry(path.join(fakeHome, '.bourdon', 'federation.yaml')).add('from-home-default', {
    tier: 'trusted',
  });
  configHome = tempDir('bourdon-precedence-config-');
  new FederationRegistry(path.join(configHome, 'federation.yaml')).add('from-bourdon-home', { tier: 'trusted' });
});
afterAll(() => {
  for (const dir of [library, fakeHome, configHome]) fs.rmSync(dir, { recursive: true, force: true });
});

const json = (stdout: string) => JSON.parse(stdout) as Record<string, unknown>;
const memberIds = (stdout: string) => (JSON.parse(stdout) as { agent_id: string }[]).map((row) => row.agent_id);

describe('a flag wins over its environment variable', () => {
  it('--library <dir> and --library=<dir> over BOURDON_LIBRARY', async () => {
    const elsewhere = tempDir('bourdon-precedence-other-'); // a real, empty library the variable names
    fs.mkdirSync(path.join(elsewhere, 'agents'));
    try {
      for (const args of [['--library', library], [`--library=${library}`]]) {
        const result = await runCli(['agents', '--json', ...args], { env: { BOURDON_LIBRARY: elsewhere } });
        expect(result.code, args.join(' ')).toBe(0);
        expect(json(result.stdout).agents, args.join(' ')).toEqual(FIXTURE_AGENTS);
      }
      const viaEnv = await runCli(['agents', '--json'], { env: { BOURDON_LIBRARY: elsewhere } });
      expect(json(viaEnv.stdout).agents).toEqual([]);
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('--access-level <level> and --access-level=<level> over BOURDON_DEFAULT_ACCESS_LEVEL', async () => {
    const env = { BOURDON_DEFAULT_ACCESS_LEVEL: 'private' };
    const spaced = await runCli(['find', 'bdn', '--json', '--library', library, '--access-level', 'public'], { env });
    expect(json(spaced.stdout).access_level).toBe('public');
    const equals = await runCli(['find', 'bdn', '--json', '--library', library, '--access-level=team'], { env });
    expect(json(equals.stdout).access_level).toBe('team');
    const viaEnv = await runCli(['find', 'bdn', '--json', '--library', library], { env });
    expect(json(viaEnv.stdout).access_level).toBe('private');
  });

  it('over MCP, the access_level argument wins over BOURDON_DEFAULT_ACCESS_LEVEL the same way', async () => {
    const linked = await linkedClient(library, { env: { BOURDON_DEFAULT_ACCESS_LEVEL: 'team' } });
    try {
      expect(
        ((await callJson(linked.client, 'find_entity', { name: 'bdn' })) as { access_level: string }).access_level,
      ).toBe('team');
      expect(
        (
          (await callJson(linked.client, 'find_entity', { name: 'bdn', access_level: 'public' })) as {
            access_level: string;
          }
        ).access_level,
      ).toBe('public');
    } finally {
      await linked.close();
    }
  });
  // --token-env over BOURDON_PEER_TOKEN, and --url=/--tools= forms: test/bridge.test.ts.
});

describe('an environment variable set to the empty string counts as unset', () => {
  it('BOURDON_LIBRARY= → ~/agent-library (CLI)', async () => {
    const result = await runCli(['agents', '--json'], { env: { BOURDON_LIBRARY: '', HOME: fakeHome } });
    expect(result.code).toBe(0);
    expect(json(result.stdout).agents).toEqual(FIXTURE_AGENTS);
  });

  it('--library= (an empty flag value) counts as not given: the variable, then the default, apply', async () => {
    const result = await runCli(['agents', '--json', '--library='], { env: { BOURDON_LIBRARY: library } });
    expect(result.code).toBe(0);
    expect(json(result.stdout).agents).toEqual(FIXTURE_AGENTS);
  });

  it('BOURDON_DEFAULT_ACCESS_LEVEL= → the tool default (CLI): public for find, team for recognition', async () => {
    const env = { BOURDON_DEFAULT_ACCESS_LEVEL: '' };
    const find = await runCli(['find', 'bdn', '--json', '--library', library], { env });
    expect(find.code).toBe(0);
    expect(json(find.stdout).access_level).toBe('public');
    const recognize = await runCli(['recognize', 'bourdon sync', '--json', '--library', library], { env });
    expect(recognize.code).toBe(0);
    expect(json(recognize.stdout).access_level).toBe('team');
  });

  it('BOURDON_HOME= → ~/.bourdon; BOURDON_FEDERATION_CONFIG= → $BOURDON_HOME/federation.yaml', async () => {
    const home = await runCli(['agent', 'list', '--json'], { env: { BOURDON_HOME: '', HOME: fakeHome } });
    expect(home.code).toBe(0);
    expect(memberIds(home.stdout)).toEqual(['from-home-default']);
    const registry = await runCli(['agent', 'list', '--json'], {
      env: { BOURDON_HOME: configHome, BOURDON_FEDERATION_CONFIG: '' },
    });
    expect(registry.code).toBe(0);
    expect(memberIds(registry.stdout)).toEqual(['from-bourdon-home']);
  });

  it('over MCP (bourdon serve spawned by a host with empty variables): library, access level, config dir and audit path all fall back', async () => {
    const auditFile = path.join(fakeHome, '.bourdon', 'audit.jsonl');
    fs.rmSync(auditFile, { force: true });
    const { client, stderr } = await stdioClient(
      {
        args: [BIN, 'serve'],
        cwd: REPO_ROOT,
        env: {
          HOME: fakeHome,
          BOURDON_LIBRARY: '',
          BOURDON_DEFAULT_ACCESS_LEVEL: '',
          BOURDON_HOME: '',
          BOURDON_AUDIT_PATH: '',
          BOURDON_LOCAL_NAME: '',
        },
      },
      { name: 'precedence-host' },
    );
    try {
      expect(((await callJson(client, 'list_agents')) as { agents: string[] }).agents).toEqual(FIXTURE_AGENTS);
      expect(((await callJson(client, 'find_entity', { name: 'bdn' })) as { access_level: string }).access_level).toBe(
        'public',
      );
      const recognition = (await callJson(client, 'prepare_recognition_context', { prompt: 'bourdon' })) as {
        access_level: string;
      };
      expect(recognition.access_level).toBe('team');
      expect(stderr()).toContain(`serving ${path.join(fakeHome, 'agent-library')}`);
    } finally {
      await client.close();
    }
    const audit = fs.readFileSync(auditFile, 'utf8');
    expect(audit).toContain('"op":"find_entity"');
  });

  it('the shared resolvers: config paths, access level, machine name, cache switch, history retention', () => {
    const home = path.join(os.homedir(), '.bourdon');
    expect(configPaths({ BOURDON_HOME: '', BOURDON_FEDERATION_CONFIG: '', BOURDON_AUDIT_PATH: '' })).toEqual({
      home,
      registry: path.join(home, 'federation.yaml'),
      audit: path.join(home, 'audit.jsonl'),
      peers: path.join(home, 'peers.yaml'),
    });
    expect(configPaths({ BOURDON_HOME: '/h', BOURDON_AUDIT_PATH: '/a.jsonl' })).toMatchObject({
      home: '/h',
      registry: '/h/federation.yaml',
      audit: '/a.jsonl',
    });
    expect(defaultLibraryRoot({ BOURDON_LIBRARY: '' })).toBe(path.join(os.homedir(), 'agent-library'));
    expect(resolveAccess({}, 'public', { BOURDON_DEFAULT_ACCESS_LEVEL: '' }, 'private')).toEqual({
      echoed: 'public',
      effective: 'public',
    });
    expect(resolveAccess({}, 'team', { BOURDON_DEFAULT_ACCESS_LEVEL: '' }, 'private')).toEqual({
      echoed: 'team',
      effective: 'team',
    });
    expect(
      resolveAccess({ access_level: 'public' }, 'team', { BOURDON_DEFAULT_ACCESS_LEVEL: 'private' }, 'private').echoed,
    ).toBe('public');
    expect(machineName({ BOURDON_LOCAL_NAME: '' })).toBe(os.hostname());
    expect(parsedLibraryCachePath('/lib', { BOURDON_NO_CACHE: '', BOURDON_HOME: '/h' })).toMatch(
      /^\/h\/cache\/library-[0-9a-f]{16}$/,
    );
    expect(parsedLibraryCachePath('/lib', { BOURDON_NO_CACHE: '1', BOURDON_HOME: '/h' })).toBeNull();
    expect(historyKeep({ BOURDON_HISTORY_KEEP: '' })).toBe(historyKeep({}));
  });

  it('no command declares an oclif `env:` flag (it would bypass these rules): the core resolves every variable', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'oclif.manifest.json'), 'utf8')) as {
      commands: Record<string, { flags: Record<string, { env?: string }> }>;
    };
    const withEnv = Object.entries(manifest.commands).flatMap(([id, command]) =>
      Object.entries(command.flags)
        .filter(([, flag]) => flag.env !== undefined)
        .map(([name]) => `${id} --${name}`),
    );
    expect(withEnv).toEqual([]);
  });
});
