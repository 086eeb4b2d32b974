/**
 * `bourdon mcp-config`: each host's snippet parses as that host's format (JSON, or TOML for
 * Codex, read with python3's tomllib), has the shape the host documents, never carries a
 * token, and the stdio snippet really starts a working server.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { copyFixtureLibrary, readJson, REPO_ROOT, tempDir } from './helpers/fixtures.js';
import { stdioClient } from './helpers/mcp.js';

const packageVersion = readJson<{ version: string }>(path.join(REPO_ROOT, 'package.json')).version;

/** Parses TOML strictly with python3's standard tomllib; returns it as JSON. */
function parseToml(text: string): unknown {
  const out = execFileSync(
    'python3',
    ['-c', 'import json, sys, tomllib; print(json.dumps(tomllib.loads(sys.stdin.read())))'],
    {
      input: text,
      encoding: 'utf8',
    },
  );
  return JSON.parse(out);
}

const SECRET = 'bdn_' + 'ab'.repeat(24);
const HOSTS = ['claude-code', 'claude-desktop', 'cursor', 'codex', 'vscode'] as const;

describe('bourdon mcp-config', () => {
  let library: string;
  let home: string;
  beforeAll(() => {
    library = copyFixtureLibrary();
    home = tempDir('bourdon-mcpconfig-home-');
  });
  afterAll(() => {
    fs.rmSync(library, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  const run = (args: string[]) =>
    runCli(['mcp-config', ...args], { env: { BOURDON_HOME: home, BOURDON_TOKEN: SECRET, BOURDON_PEER_TOKEN: SECRET } });

  it('stdio: every host gets a snippet in its own format that starts `bourdon serve` on this library', async () => {
    const runJs = path.join(REPO_ROOT, 'bin', 'run.js');
    const launch = {
      command: process.execPath,
      args: [runJs, 'serve', '--library', library],
      env: { BOURDON_HOME: home },
    };
    const expected: Record<(typeof HOSTS)[number], unknown> = {
      'claude-code': { mcpServers: { bourdon: { type: 'stdio', ...launch } } },
      'claude-desktop': { mcpServers: { bourdon: launch } },
      cursor: { mcpServers: { bourdon: launch } },
      codex: { mcp_servers: { bourdon: launch } },
      vscode: { servers: { bourdon: { type: 'stdio', ...launch } } },
    };
    // Every host from one run (--json carries each snippet's text as the host reads it) …
    const all = await run(['--json', '--library', library]);
    expect(all.code, all.stderr).toBe(0);
    const snippets = JSON.parse(all.stdout).snippets as {
      host: (typeof HOSTS)[number];
      format: string;
      text: string;
    }[];
    expect(snippets.map((snippet) => snippet.host)).toEqual([...HOSTS]);
    for (const snippet of snippets) {
      expect(snippet.format).toBe(snippet.host === 'codex' ? 'toml' : 'json');
      const parsed = snippet.format === 'toml' ? parseToml(snippet.text) : JSON.parse(snippet.text);
      expect(parsed, snippet.host).toEqual(expected[snippet.host]);
    }
    // … and with --host, stdout is that text alone (redirectable into the file); where it goes is on stderr.
    for (const host of ['codex', 'vscode'] as const) {
      const one = await run(['--host', host, '--library', library]);
      expect(one.code, one.stderr).toBe(0);
      expect(one.stdout).toBe(snippets.find((snippet) => snippet.host === host)!.text + '\n');
      expect(one.stderr).toMatch(/^# /);
    }
  });

  it('http: URL plus an Authorization header read from the named variable, in each host’s syntax; never the token', async () => {
    const url = 'https://desk.tailnet.example:7500/mcp';
    const expected: Record<(typeof HOSTS)[number], unknown> = {
      'claude-code': {
        mcpServers: { bourdon: { type: 'http', url, headers: { Authorization: 'Bearer ${MY_BOURDON_TOKEN}' } } },
      },
      'claude-desktop': {
        mcpServers: {
          bourdon: {
            command: process.execPath,
            args: [path.join(REPO_ROOT, 'bin', 'run.js'), 'serve', '--url', url, '--token-env', 'BOURDON_PEER_TOKEN'],
            env: { BOURDON_PEER_TOKEN: '<paste the token from $MY_BOURDON_TOKEN>' },
          },
        },
      },
      cursor: { mcpServers: { bourdon: { url, headers: { Authorization: 'Bearer ${env:MY_BOURDON_TOKEN}' } } } },
      codex: { mcp_servers: { bourdon: { url, bearer_token_env_var: 'MY_BOURDON_TOKEN' } } },
      vscode: {
        servers: { bourdon: { type: 'http', url, headers: { Authorization: 'Bearer ${env:MY_BOURDON_TOKEN}' } } },
      },
    };
    const result = await runCli(
      ['mcp-config', '--json', '--http', 'https://desk.tailnet.example:7500', '--token-env', 'MY_BOURDON_TOKEN'],
      {
        env: { BOURDON_HOME: home, MY_BOURDON_TOKEN: SECRET },
      },
    );
    expect(result.code, result.stderr).toBe(0);
    for (const snippet of JSON.parse(result.stdout).snippets as { host: (typeof HOSTS)[number]; text: string }[]) {
      const parsed = snippet.host === 'codex' ? parseToml(snippet.text) : JSON.parse(snippet.text);
      expect(parsed, snippet.host).toEqual(expected[snippet.host]);
    }
    expect(result.stdout + result.stderr).not.toContain(SECRET);
    const human = await runCli(
      ['mcp-config', '--http', 'https://desk.tailnet.example:7500', '--token-env', 'MY_BOURDON_TOKEN'],
      {
        env: { BOURDON_HOME: home, MY_BOURDON_TOKEN: SECRET },
      },
    );
    expect(human.stdout + human.stderr).not.toContain(SECRET);
  });

  it('the default token variable is BOURDON_TOKEN; Claude Desktop reaches HTTP through our own bridge; --tools reaches serve', async () => {
    const result = await run([
      '--host',
      'claude-desktop',
      '--http',
      'http://127.0.0.1:7500',
      '--command',
      'npx',
      '--tools',
      'read',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const entry = JSON.parse(result.stdout).mcpServers.bourdon;
    expect(entry.command).toBe('npx');
    expect(entry.args).toEqual([
      '-y',
      `bourdon@${packageVersion}`,
      'serve',
      '--url',
      'http://127.0.0.1:7500/mcp',
      '--token-env',
      'BOURDON_PEER_TOKEN',
      '--tools',
      'read',
    ]);
    const stdio = await run(['--host', 'cursor', '--library', library, '--tools', 'write']);
    expect(JSON.parse(stdio.stdout).mcpServers.bourdon.args.slice(-2)).toEqual(['--tools', 'write']);
    const codex = await run(['--host', 'codex', '--http', 'http://127.0.0.1:7500/mcp']);
    expect(parseToml(codex.stdout)).toEqual({
      mcp_servers: { bourdon: { url: 'http://127.0.0.1:7500/mcp', bearer_token_env_var: 'BOURDON_TOKEN' } },
    });
  });

  it('every host at once: human output, and --json with every snippet; nothing token-like anywhere', async () => {
    const human = await run(['--library', library]);
    expect(human.code).toBe(0);
    for (const title of ['Claude Code', 'Claude Desktop', 'Cursor', 'Codex', 'VS Code'])
      expect(human.stdout).toContain(title);
    expect(human.stdout).toContain('claude mcp add');
    const json = await run(['--json', '--http', 'https://desk.example', '--name', 'team-memory']);
    expect(json.code).toBe(0);
    const payload = JSON.parse(json.stdout);
    expect(payload).toMatchObject({
      name: 'team-memory',
      transport: 'http',
      url: 'https://desk.example/mcp',
      token_env: 'BOURDON_TOKEN',
    });
    expect(payload.snippets.map((snippet: { host: string }) => snippet.host)).toEqual([...HOSTS]);
    for (const snippet of payload.snippets) {
      if (snippet.format === 'toml') expect(parseToml(snippet.text)).toHaveProperty(['mcp_servers', 'team-memory']);
      else expect(JSON.stringify(JSON.parse(snippet.text))).toContain('team-memory');
    }
    expect(human.stdout + json.stdout).not.toContain(SECRET);
  });

  it('the one-line commands quote paths for the shell', async () => {
    const spaced = path.join(tempDir(), 'my library');
    const result = await run(['--json', '--library', spaced, '--command', 'npx']);
    const snippets = JSON.parse(result.stdout).snippets as { host: string; command: string | null }[];
    const claude = snippets.find((snippet) => snippet.host === 'claude-code')!.command!;
    expect(claude).toContain(`'${spaced}'`);
    expect(claude).toMatch(
      /^claude mcp add -e BOURDON_HOME=\S+ bourdon -- npx -y bourdon@\d+\.\d+\.\d+\S* serve --library /,
    );
    // Pinned to the installed version: an unpinned name would run whatever the registry serves.
    expect(claude).toContain(`npx -y bourdon@${packageVersion} serve`);
    // The shell reads it back as the same words.
    const words = execFileSync('bash', ['-c', `set -- ${claude.replace(/^claude /, '')}; printf '%s\\n' "$@"`], {
      encoding: 'utf8',
    })
      .trimEnd()
      .split('\n');
    expect(words.slice(-4)).toEqual([`bourdon@${packageVersion}`, 'serve', '--library', spaced]);
  });

  it('with --host, the "or run:" command on stderr pastes as one command: continued with ` \\`, not split over comments', async () => {
    const spaced = path.join(tempDir(), 'my library');
    const all = await run(['--json', '--library', spaced]);
    const commands = JSON.parse(all.stdout).snippets as { host: string; command: string | null }[];
    /** The words bash reads from a command as printed (continued lines joined as the shell joins them). */
    const argv = (text: string) =>
      execFileSync('bash', ['-c', `set -- ${text}\nprintf '%s\\0' "$@"`], { encoding: 'utf8' }).split('\0');
    for (const host of ['claude-code', 'vscode'] as const) {
      for (const columns of ['80', '60']) {
        const one = await runCli(['mcp-config', '--host', host, '--library', spaced], {
          env: { BOURDON_HOME: home, COLUMNS: columns },
        });
        expect(one.code, one.stderr).toBe(0);
        const lines = one.stderr.trimEnd().split('\n');
        const start = lines.indexOf('# or run:');
        expect(start, one.stderr).toBeGreaterThan(0);
        const rest = lines.slice(start + 1);
        const end = rest.findIndex((line) => line.startsWith('#'));
        const printed = rest.slice(0, end === -1 ? undefined : end);
        expect(printed.length, one.stderr).toBeGreaterThan(1);
        for (const line of printed) expect(line.length).toBeLessThanOrEqual(Number(columns));
        expect(
          printed.slice(0, -1).every((line) => line.endsWith('\\')),
          one.stderr,
        ).toBe(true);
        const expected = commands.find((snippet) => snippet.host === host)!.command!;
        expect(argv(printed.join('\n'))).toEqual(argv(expected));
      }
    }
  });

  it('refuses what no host could use: plain http off loopback, credentials in the URL, a bad variable name', async () => {
    expect((await run(['--http', 'http://desk.example:7500'])).code).toBe(2);
    const creds = await run(['--http', 'https://user:pw@desk.example']);
    expect(creds.code).toBe(2);
    expect(creds.stderr).not.toContain('pw@');
    expect((await run(['--http', 'https://desk.example', '--token-env', 'not a var'])).code).toBe(2);
    expect((await run(['--token-env', 'X'])).code).toBe(2);
  });

  it('the stdio snippet really starts a working server (a real MCP client lists the 16 tools)', async () => {
    const result = await run(['--host', 'cursor', '--library', library]);
    const entry = JSON.parse(result.stdout).mcpServers.bourdon as {
      command: string;
      args: string[];
      env: Record<string, string>;
    };
    const { client } = await stdioClient(
      { command: entry.command, args: entry.args, env: { ...entry.env, PATH: process.env.PATH ?? '' } },
      { name: 'mcp-config-test' },
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('find_entity');
      expect(tools).toHaveLength(16);
    } finally {
      await client.close();
    }
  });

  it('says what the host will show, as the snippet’s own server lists it: titles, read-only tools, the writes that ask', async () => {
    /** The tools the Cursor snippet's server lists to a real client, as hosts see them. */
    const listedBy = async (args: string[]) => {
      const entry = JSON.parse((await run(['--host', 'cursor', '--library', library, ...args])).stdout).mcpServers
        .bourdon as { command: string; args: string[]; env: Record<string, string> };
      const { client } = await stdioClient(
        { command: entry.command, args: entry.args, env: { ...entry.env, PATH: process.env.PATH ?? '' } },
        { name: 'mcp-config-surface' },
      );
      try {
        return (await client.listTools()).tools.map((tool) => ({
          name: tool.name,
          title: tool.title,
          read_only: tool.annotations?.readOnlyHint,
          destructive: tool.annotations?.destructiveHint,
          open_world: tool.annotations?.openWorldHint,
        }));
      } finally {
        await client.close();
      }
    };
    for (const profile of [[], ['--tools', 'read']]) {
      const said = JSON.parse((await run(['--json', '--library', library, ...profile])).stdout).tools;
      expect(said, profile.join(' ')).toEqual(await listedBy(profile));
    }
    // For people: on stderr beside one host's snippet (stdout stays the snippet), after all hosts on stdout.
    const one = await run(['--host', 'claude-code', '--library', library]);
    const stderr = one.stderr.replace(/\n# {3}/g, ' ');
    expect(stderr).toMatch(/^# What the host shows: 16 tools, each under its title\.$/m);
    expect(stderr).toMatch(
      /^# Read-only, so hosts that honour readOnlyHint run them without asking \(14\): "What one agent knows about a topic" \(query_agent_memory\)/m,
    );
    expect(stderr).toMatch(
      /^# Writes, which hosts ask you to confirm: "Write to an agent's memory" \(commit_to_federation; marked destructive/m,
    );
    expect(() => JSON.parse(one.stdout)).not.toThrow();
    const reads = await run(['--library', library, '--tools', 'read']);
    expect(reads.stdout.replace(/\n {2}/g, ' ')).toMatch(/What the host shows: 14 tools/);
    expect(reads.stdout).not.toMatch(/Writes, which hosts ask/);
  }, 60_000);
});
