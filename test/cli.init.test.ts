/**
 * `bourdon init`: the wizard driven through a real pseudo-terminal (answers typed when the
 * prompts appear), the non-interactive run with --yes, and idempotence.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAILURES } from '../src/core/errors.js';
import { FederationRegistry } from '../src/core/trust/registry.js';
import { parseYaml } from '../src/core/store/yaml.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';
import { runInPty, stripAnsi } from './helpers/pty.js';

const DOWN = '\u001b[B';
const ENTER = '\r';

function setup() {
  const dir = tempDir('bourdon-init-');
  // The user's home: empty, so no agent's memory is found unless a test puts some there.
  const userHome = path.join(dir, 'user');
  fs.mkdirSync(userHome);
  return { dir, library: path.join(dir, 'lib'), home: path.join(dir, 'home'), userHome };
}

/** Claude Code's auto-memory for one project under `userHome`. */
function claudeMemory(userHome: string): void {
  const dir = path.join(userHome, '.claude', 'projects', '-work-orchard', 'memory');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'MEMORY.md'), '# index\n');
  fs.writeFileSync(
    path.join(dir, 'orchard.md'),
    '---\nname: Orchard\ntype: project\ndescription: Fruit tracker.\n---\n',
  );
}

function tokenIn(text: string): string {
  const match = /bdn_[0-9a-f]{48}/.exec(text);
  if (!match) throw new Error(`no token in output:\n${text}`);
  return match[0];
}

describe('bourdon init on a terminal (the wizard)', () => {
  it('asks its questions, then creates the library, registers the member, adds the peer and prints the host config', async () => {
    const { library, home, userHome } = setup();
    const result = await runInPty(
      ['init'],
      [
        { expect: 'Library folder', send: `${library}${ENTER}` },
        { expect: 'Register a member', send: `y${ENTER}` },
        { expect: 'Member id', send: `openclaw${ENTER}` },
        { expect: /Tier[\s\S]*❯ quarantined/, send: ENTER },
        { expect: 'Namespaces it may read', send: `cursor, codex${ENTER}` },
        { expect: 'Add a peer', send: `y${ENTER}` },
        { expect: 'Peer URL', send: `http://127.0.0.1:7599${ENTER}` },
        { expect: 'Peer name', send: `desk${ENTER}` },
        { expect: 'Variable holding its token', send: `BOURDON_PEER_DESK${ENTER}` },
        // claude-code is first and the default: two steps down is cursor, three is codex.
        { expect: /Print the MCP config for[\s\S]*❯ claude-code/, send: DOWN },
        { expect: '❯ claude-desktop', send: DOWN },
        { expect: '❯ cursor', send: DOWN },
        { expect: '❯ codex', send: ENTER },
        { expect: 'Refresh the library after every Claude Code session', send: `n${ENTER}` },
        { expect: 'Keep the library current by itself', send: `n${ENTER}` },
      ],
      { env: { BOURDON_HOME: home, HOME: userHome, NO_COLOR: '1' }, timeoutMs: 20_000 },
    );
    const screen = stripAnsi(result.output);
    expect(
      result.unanswered.map((step) => String(step.expect)),
      screen,
    ).toEqual([]);
    expect(result.code, screen).toBe(0);

    expect(fs.statSync(path.join(library, 'agents')).isDirectory()).toBe(true);
    expect(fs.statSync(home).mode & 0o777).toBe(0o700);
    const token = tokenIn(screen);
    const registry = new FederationRegistry(path.join(home, 'federation.yaml'), { warn: () => {} });
    expect(registry.authenticate(token)).toMatchObject({
      agent_id: 'openclaw',
      tier: 'quarantined',
      grants: ['cursor', 'codex'],
    });
    const peers = parseYaml(fs.readFileSync(path.join(home, 'peers.yaml'), 'utf8')) as { peers: unknown[] };
    expect(peers.peers).toEqual([{ name: 'desk', url: 'http://127.0.0.1:7599/mcp', token_env: 'BOURDON_PEER_DESK' }]);
    expect(screen).toContain('[mcp_servers.bourdon]');
    expect(screen).toContain(`"--library", "${library}"`);
    expect(screen).toMatch(/created\s+library/);
    expect(screen).toMatch(/added\s+member\s+openclaw \(quarantined; reads: cursor, codex\)/);
  });

  it('takes the defaults on Enter and, run again, reports what exists without issuing a new token', async () => {
    const { library, home, userHome } = setup();
    const env = { BOURDON_HOME: home, HOME: userHome, BOURDON_LIBRARY: library, NO_COLOR: '1' };
    const steps = (member: boolean, again = false) => [
      { expect: 'Library folder', send: ENTER },
      again
        ? // A second run names the member already registered, and asks about another one.
          { expect: /Already registered: laptop \(trusted\)[\s\S]*Register another member/, send: `y${ENTER}` }
        : { expect: 'Register a member', send: member ? `y${ENTER}` : ENTER },
      ...(member
        ? [
            { expect: 'Member id', send: `laptop${ENTER}` },
            { expect: /Tier[\s\S]*❯ quarantined/, send: DOWN },
            { expect: '❯ trusted', send: ENTER },
          ]
        : []),
      { expect: 'Add a peer', send: ENTER },
      { expect: /Print the MCP config for[\s\S]*❯ claude-code/, send: ENTER },
      { expect: 'Refresh the library after every Claude Code session', send: `n${ENTER}` },
      { expect: 'Keep the library current by itself', send: `n${ENTER}` },
    ];
    const first = await runInPty(['init'], steps(true), { env });
    const firstScreen = stripAnsi(first.output);
    expect(first.code, firstScreen).toBe(0);
    expect(fs.existsSync(path.join(library, 'agents'))).toBe(true);
    tokenIn(firstScreen);
    expect(firstScreen).toContain('"mcpServers"');

    const second = await runInPty(['init'], steps(true, true), { env });
    const secondScreen = stripAnsi(second.output);
    expect(second.code, secondScreen).toBe(0);
    expect(secondScreen).toMatch(/exists\s+library/);
    expect(secondScreen).toMatch(/exists\s+member\s+laptop \(trusted\) is already registered/);
    expect(secondScreen).not.toMatch(/bdn_[0-9a-f]{48}/);
    const registry = new FederationRegistry(path.join(home, 'federation.yaml'), { warn: () => {} });
    expect(registry.list().map((member) => member.agent_id)).toEqual(['laptop']);
  });

  it('offers to export the agents whose memory is on this machine, all ticked, and exports them', async () => {
    const { library, home, userHome } = setup();
    claudeMemory(userHome);
    const result = await runInPty(
      ['init'],
      [
        { expect: 'Library folder', send: `${library}${ENTER}` },
        { expect: 'Register a member', send: ENTER },
        { expect: 'Add a peer', send: ENTER },
        { expect: /Print the MCP config for[\s\S]*❯ claude-code/, send: ENTER },
        { expect: 'Refresh the library after every Claude Code session', send: `n${ENTER}` },
        { expect: /Export the memory of these agents[\s\S]*◉ claude-code/, send: ENTER },
        { expect: 'Keep the library current by itself', send: `n${ENTER}` },
      ],
      { env: { BOURDON_HOME: home, HOME: userHome, NO_COLOR: '1' }, timeoutMs: 20_000 },
    );
    const screen = stripAnsi(result.output);
    expect(
      result.unanswered.map((step) => String(step.expect)),
      screen,
    ).toEqual([]);
    expect(result.code, screen).toBe(0);
    expect(screen).toMatch(/exported\s+claude-code: version 1, 1 entity/);
    expect(fs.existsSync(path.join(library, 'agents', 'claude-code.l5.yaml'))).toBe(true);

    // Run again: the agent in the library is named as set up, and not offered again.
    const again = await runInPty(
      ['init'],
      [
        { expect: 'Library folder', send: `${library}${ENTER}` },
        { expect: 'Register a member', send: ENTER },
        { expect: 'Add a peer', send: ENTER },
        { expect: /Print the MCP config for[\s\S]*❯ claude-code/, send: ENTER },
        { expect: 'Refresh the library after every Claude Code session', send: `n${ENTER}` },
        { expect: 'Keep the library current by itself', send: `n${ENTER}` },
      ],
      { env: { BOURDON_HOME: home, HOME: userHome, NO_COLOR: '1' }, timeoutMs: 20_000 },
    );
    const againScreen = stripAnsi(again.output);
    expect(again.code, againScreen).toBe(0);
    expect(againScreen).toContain('In the library already: claude-code');
    expect(againScreen).not.toContain('Export the memory of these agents');
    expect(againScreen).toMatch(/in the library: claude-code \(refresh them: bourdon export-all\)/);
    expect(againScreen).not.toContain('not exported yet');
  });

  it('Ctrl-C stops the wizard and changes nothing', async () => {
    const { library, home, userHome } = setup();
    const result = await runInPty(
      ['init'],
      [
        { expect: 'Library folder', send: `${library}${ENTER}` },
        { expect: 'Register a member', send: '\u0003' },
      ],
      { env: { BOURDON_HOME: home, HOME: userHome, NO_COLOR: '1' } },
    );
    expect(result.code).toBe(130); // 128 + SIGINT, as rollback's prompt
    expect(stripAnsi(result.output)).toContain('init cancelled; nothing was changed');
    expect(fs.existsSync(library)).toBe(false);
    expect(fs.existsSync(home)).toBe(false);
  });
});

describe('bourdon init without a terminal', () => {
  it('refuses to ask questions without --yes (exit 2) and creates nothing', async () => {
    const { library, home } = setup();
    const result = await runCli(['init', '--library', library], { env: { BOURDON_HOME: home } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('pass --yes');
    expect(fs.existsSync(library)).toBe(false);
  });

  it('--yes with flags sets everything up; --json is the whole result on stdout', async () => {
    const { library, home } = setup();
    const env = { BOURDON_HOME: home };
    const args = [
      'init',
      '--yes',
      '--library',
      library,
      '--member',
      'ci',
      '--grant',
      'codex,cursor',
      '--peer-url',
      'http://localhost:7600',
      '--host',
      'vscode',
      '--host',
      'codex',
      '--json',
    ];
    const result = await runCli(args, { env });
    expect(result.code, result.stderr).toBe(0);
    const payload = JSON.parse(result.stdout);
    expect(payload.library).toBe(library);
    expect(payload.config_dir).toBe(home);
    expect(payload.steps.map((step: { what: string; status: string }) => `${step.what}:${step.status}`)).toEqual([
      'library:created',
      'config:created',
      'member:added',
      'peer:added',
    ]);
    expect(payload.member).toMatchObject({ agent_id: 'ci', tier: 'quarantined', grants: ['codex', 'cursor'] });
    const registry = new FederationRegistry(path.join(home, 'federation.yaml'), { warn: () => {} });
    expect(registry.authenticate(payload.member.token)?.agent_id).toBe('ci');
    expect(payload.peer).toEqual({
      name: 'localhost-7600',
      url: 'http://localhost:7600/mcp',
      token_env: 'BOURDON_PEER_TOKEN',
    });
    expect(payload.snippets.map((snippet: { host: string }) => snippet.host)).toEqual(['vscode', 'codex']);
    expect(JSON.parse(payload.snippets[0].text).servers.bourdon.args).toContain(library);

    // Again: nothing new, no token, same files.
    const before = fs.readFileSync(path.join(home, 'federation.yaml'), 'utf8');
    const again = await runCli(args, { env });
    expect(again.code, again.stderr).toBe(0);
    const second = JSON.parse(again.stdout);
    expect(second.steps.map((step: { status: string }) => step.status)).toEqual([
      'exists',
      'exists',
      'exists',
      'exists',
    ]);
    expect(second.member).toBeNull();
    expect(again.stdout).not.toMatch(/bdn_/);
    expect(fs.readFileSync(path.join(home, 'federation.yaml'), 'utf8')).toBe(before);
  });

  it('a different peer under an existing name is an error, and bad input is a usage error', async () => {
    const { library, home } = setup();
    const env = { BOURDON_HOME: home };
    expect(
      (
        await runCli(
          ['init', '--yes', '--library', library, '--peer-url', 'http://127.0.0.1:7601', '--peer-name', 'desk'],
          { env },
        )
      ).code,
    ).toBe(0);
    const clash = await runCli(
      ['init', '--yes', '--library', library, '--peer-url', 'http://127.0.0.1:7602', '--peer-name', 'desk'],
      { env },
    );
    expect(clash.code).toBe(FAILURES.conflict.exit);
    expect(clash.stderr).toContain('a different peer named "desk"');
    const badUrl = await runCli(['init', '--yes', '--library', library, '--peer-url', 'http://desk.example:7500'], {
      env,
    });
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toContain('https');
    const badId = await runCli(['init', '--yes', '--library', library, '--member', 'Not An Id'], { env });
    expect(badId.code).toBe(2);
    const grantAlone = await runCli(['init', '--yes', '--library', library, '--grant', 'codex'], { env });
    expect(grantAlone.code).toBe(2);
  });

  it('the plain --yes run prints a readable summary with next steps', async () => {
    const { library, home, userHome } = setup();
    const result = await runCli(['init', '--yes', '--library', library], {
      env: { BOURDON_HOME: home, HOME: userHome },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/created\s+library\s+\S*lib/);
    expect(result.stdout).toMatch(/Agents on this machine\n\s+none found/);
    expect(result.stdout).toContain('bourdon doctor');
    expect(result.stdout).toContain('bourdon mcp-config --host <host>');
  });

  it('--yes names the agents found on this machine; with --export it exports them into the new library', async () => {
    const { library, home, userHome } = setup();
    claudeMemory(userHome);
    const env = { BOURDON_HOME: home, HOME: userHome, COLUMNS: '80' };
    const offered = await runCli(['init', '--yes', '--library', library], { env, cwd: userHome });
    expect(offered.code, offered.stderr).toBe(0);
    expect(offered.stdout).toMatch(
      /Agents on this machine\n\s+found: claude-code \(not exported yet: bourdon export-all\)/,
    );
    expect(fs.existsSync(path.join(library, 'agents', 'claude-code.l5.yaml'))).toBe(false);

    const exported = await runCli(['init', '--yes', '--library', library, '--export', '--json'], {
      env,
      cwd: userHome,
    });
    expect(exported.code, exported.stderr).toBe(0);
    const payload = JSON.parse(exported.stdout);
    expect(payload.agents_found).toEqual(['claude-code']);
    expect(payload.exports).toEqual([
      expect.objectContaining({ agent_id: 'claude-code', outcome: 'exported', version: 1, reason: null }),
    ]);
    const manifest = parseYaml(fs.readFileSync(path.join(library, 'agents', 'claude-code.l5.yaml'), 'utf8')) as {
      known_entities: { name: string }[];
    };
    expect(manifest.known_entities.map((entity) => entity.name)).toEqual(['Orchard']);

    // A third run: what is in the library is said as set up, not as waiting for an export.
    const third = await runCli(['init', '--yes', '--library', library], { env, cwd: userHome });
    expect(third.stdout).toMatch(
      /Agents on this machine\n\s+in the library: claude-code \(refresh them: bourdon export-all\)/,
    );
    expect(third.stdout).not.toContain('not exported yet');
    const json = await runCli(['init', '--yes', '--library', library, '--json'], { env, cwd: userHome });
    expect(JSON.parse(json.stdout).agents_in_library).toEqual(['claude-code']);
  });
});
