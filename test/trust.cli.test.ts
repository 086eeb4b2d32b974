/**
 * The member commands end to end (the real `bourdon` binary), revocation seen by a running
 * server without restart, and the token-handling promise: a token is printed once, by
 * `agent add` / `agent rotate`, and neither it nor its hash ever appears anywhere else —
 * stdout, stderr, server logs, MCP responses or the audit log. Needs a build (dist/).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILURES } from '../src/core/errors.js';
import { runWithCaller } from '../src/core/trust/caller.js';
import { FederationRegistry, hashToken } from '../src/core/trust/registry.js';
import { runCli, type CliResult } from './helpers/cli.js';
import { copyFixtureLibrary, tempDir } from './helpers/fixtures.js';
import { at } from './helpers/items.js';
import { callJson, linkedClient, readJsonResource } from './helpers/mcp.js';

let home: string;
let library: string;
const env = () => ({ BOURDON_HOME: home, BOURDON_LIBRARY: library });
/** Everything any command printed, and everything the server said, for the final grep. */
const transcript: string[] = [];
const tokens: string[] = [];

async function cli(args: string[], options: { tokenOnStdout?: boolean } = {}): Promise<CliResult> {
  const result = await runCli(args, { env: env() });
  transcript.push(result.stderr);
  if (!options.tokenOnStdout) transcript.push(result.stdout);
  return result;
}

beforeAll(() => {
  home = tempDir('bourdon-home-');
  library = copyFixtureLibrary();
});
afterAll(() => {
  fs.rmSync(home, { recursive: true, force: true });
  fs.rmSync(library, { recursive: true, force: true });
});

describe('member commands', () => {
  let openclawToken: string;

  it('agent add prints the token once, alone on stdout; the explanation goes to stderr', async () => {
    const result = await cli(['agent', 'add', 'openclaw', '--grant', 'cursor'], { tokenOnStdout: true });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^bdn_[0-9a-f]{48}\n$/);
    openclawToken = result.stdout.trim();
    tokens.push(openclawToken);
    expect(result.stderr).toContain('openclaw (quarantined; reads: cursor)');
    expect(result.stderr).toContain('shown this once');
  });

  it('agent add --json prints {agent_id, tier, grants, token}', async () => {
    const result = await cli(
      ['agent', 'add', 'laptop', '--tier', 'trusted', '--grant', 'a,b', '--grant', 'c', '--json'],
      { tokenOnStdout: true },
    );
    expect(result.code).toBe(0);
    const payload = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(Object.keys(payload)).toEqual(['agent_id', 'tier', 'grants', 'token']);
    expect(payload).toMatchObject({ agent_id: 'laptop', tier: 'trusted', grants: ['a', 'b', 'c'] });
    tokens.push(payload.token as string);
    expect(result.stderr).toBe('');
  });

  it('agent list shows tier, grants and status, never a token or hash', async () => {
    const human = await cli(['agent', 'list']);
    expect(human.code).toBe(0);
    const lines = human.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^AGENT\s+TIER\s+READS\s+CREATED\s+STATUS$/);
    expect(lines[1]).toMatch(/^laptop\s+trusted\s+all\s+\S+\s+active$/);
    expect(lines[2]).toMatch(/^openclaw\s+quarantined\s+cursor\s+\S+\s+active$/);
    const json = await cli(['agent', 'list', '--json']);
    const members = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(members.map((m) => m.agent_id)).toEqual(['laptop', 'openclaw']);
    expect(Object.keys(at(members, 0))).toEqual(['agent_id', 'tier', 'grants', 'created_at', 'revoked']);
  });

  it('grant, ungrant and set-tier change the member, in human and --json form', async () => {
    const grant = await cli(['grant', 'openclaw', 'codex']);
    expect(grant.code).toBe(0);
    expect(grant.stdout.trim()).toBe('granted codex to openclaw (quarantined; reads: cursor, codex).');
    const ungrant = await cli(['ungrant', 'openclaw', 'codex', '--json']);
    expect(JSON.parse(ungrant.stdout)).toMatchObject({ agent_id: 'openclaw', grants: ['cursor'] });
    const tier = await cli(['agent', 'set-tier', 'laptop', 'quarantined']);
    expect(tier.stdout.trim()).toBe('laptop (quarantined; reads: a, b, c): tier set.');
    expect((await cli(['agent', 'set-tier', 'laptop', 'trusted', '--json'])).code).toBe(0);
  });

  it('errors are one line with the right exit code, and change nothing', async () => {
    const before = fs.readFileSync(path.join(home, 'federation.yaml'), 'utf8');
    const cases: [string[], number, string][] = [
      [['agent', 'add', 'openclaw'], FAILURES.conflict.exit, "bourdon: agent 'openclaw' already registered"],
      [['agent', 'add', 'Bad'], 2, "bourdon: invalid agent_id 'Bad'"],
      [['agent', 'add', 'x', '--tier', 'admin'], 2, 'bourdon: Expected --tier=admin to be one of'],
      [['grant', 'openclaw', '../etc'], 2, "bourdon: invalid namespace '../etc'"],
      [['agent', 'rotate', 'nobody'], FAILURES.not_found.exit, "bourdon: unknown agent 'nobody'"],
      [['revoke', 'nobody'], FAILURES.not_found.exit, "bourdon: unknown agent 'nobody'"],
      [['agent', 'set-tier', 'openclaw', 'root'], 2, 'bourdon: Expected root to be one of'],
      [['agent', 'add'], 2, 'bourdon: missing required argument: <'],
    ];
    // Independent and read-only on success: run them side by side.
    const results = await Promise.all(cases.map(([args]) => cli(args)));
    for (const [index, [args, code, message]] of cases.entries()) {
      const result = at(results, index);
      expect(result.code, args.join(' ')).toBe(code);
      expect(result.stderr.split('\n')[0], args.join(' ')).toContain(message);
      expect(result.stderr, args.join(' ')).not.toMatch(/\n\s+at /);
      expect(result.stdout).toBe('');
    }
    const json = await cli(['agent', 'rotate', 'nobody', '--json']);
    expect(json.code).toBe(FAILURES.not_found.exit);
    expect(JSON.parse(json.stdout)).toEqual({ error: "unknown agent 'nobody'", code: 'not_found' });
    expect(fs.readFileSync(path.join(home, 'federation.yaml'), 'utf8')).toBe(before);
  });

  it('a running server sees a revocation and a rotation on its next request, without restart', async () => {
    // The HTTP transport holds one registry for its lifetime and authenticates every request.
    const server = new FederationRegistry(path.join(home, 'federation.yaml'), { warn: (m) => transcript.push(m) });
    expect(server.authenticate(openclawToken)?.agent_id).toBe('openclaw');
    expect(server.authenticate(at(tokens, 1))?.agent_id).toBe('laptop');

    const rotated = await cli(['agent', 'rotate', 'openclaw'], { tokenOnStdout: true });
    expect(rotated.code).toBe(0);
    const fresh = rotated.stdout.trim();
    expect(fresh).toMatch(/^bdn_[0-9a-f]{48}$/);
    tokens.push(fresh);
    expect(server.authenticate(openclawToken)).toBeNull();
    expect(server.authenticate(fresh)?.agent_id).toBe('openclaw');

    const revoked = await cli(['revoke', 'laptop']);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout.trim()).toBe('revoked laptop: its token no longer authenticates.');
    expect(server.authenticate(at(tokens, 1))).toBeNull();
    expect((await cli(['agent', 'list'])).stdout).toMatch(/laptop\s+trusted\s+all\s+\S+\s+revoked/);
    const again = await cli(['agent', 'rotate', 'laptop']);
    expect(again.code).toBe(FAILURES.conflict.exit);
    expect(again.stderr).toContain("agent 'laptop' is revoked; re-add it instead");
  });

  it('an unreadable registry is one error line that quotes no hash', async () => {
    const file = path.join(home, 'federation.yaml');
    const good = fs.readFileSync(file, 'utf8');
    const hash = hashToken(at(tokens, 2));
    fs.writeFileSync(file, good.replace(`token_sha256: ${hash}`, `token_sha256: [${hash}`));
    try {
      for (const args of [
        ['agent', 'list'],
        ['grant', 'openclaw', 'x'],
      ]) {
        const result = await cli(args);
        expect(result.code).toBe(FAILURES.source_unreadable.exit);
        expect(result.stderr).toMatch(/^bourdon: registry .* is unreadable/);
        expect(result.stderr.trim().split('\n')).toHaveLength(1);
      }
    } finally {
      fs.writeFileSync(file, good);
    }
  });
});

describe('no token or hash anywhere but where it belongs', () => {
  it('through MCP calls by members, the audit log, server logs and every command output', async () => {
    const auditPath = path.join(home, 'audit.jsonl');
    const registry = new FederationRegistry(path.join(home, 'federation.yaml'), { warn: (m) => transcript.push(m) });
    const linked = await linkedClient(library, { auditPath, warn: (m) => transcript.push(m) });
    const live = at(tokens, 2);
    const asMember = <T>(token: string, fn: () => Promise<T>) => {
      const caller = registry.authenticate(token);
      if (!caller) throw new Error('not authenticated');
      return runWithCaller(caller, fn);
    };
    try {
      const responses: unknown[] = [];
      responses.push(await asMember(live, () => callJson(linked.client, 'list_agents')));
      responses.push(await asMember(live, () => callJson(linked.client, 'find_entity', { name: 'Bourdon' })));
      responses.push(
        await asMember(live, () => callJson(linked.client, 'get_cross_agent_summary', { project: 'Bourdon' })),
      );
      // A member pasting its own token into an argument: refused, and masked in answer and trail.
      responses.push(
        await asMember(live, () => callJson(linked.client, 'query_agent_memory', { agent: live, topic: 'x' })),
      );
      responses.push(
        await asMember(live, () => readJsonResource(linked.client, `agent-library://agents/${live}/memory`)),
      );
      responses.push(
        await asMember(live, () =>
          linked.client.callTool({ name: 'list_recent_work', arguments: { agent: live, limit: 'x' } }),
        ),
      );
      for (const token of tokens.slice(0, 2)) expect(registry.authenticate(token)).toBeNull(); // rotated, revoked
      transcript.push(JSON.stringify(responses));
    } finally {
      await linked.close();
    }
    for (const args of [
      ['audit'],
      ['audit', '--export'],
      ['audit', '--json', '--denials'],
      ['agent', 'list', '--json'],
    ]) {
      const result = await cli(args);
      expect(result.code, args.join(' ')).toBe(0);
    }
    const auditText = fs.readFileSync(auditPath, 'utf8');
    expect(auditText.split('\n').filter(Boolean)).toHaveLength(6);
    transcript.push(auditText);

    const everything = transcript.join('\n');
    expect(everything.length).toBeGreaterThan(1000);
    for (const token of tokens) {
      expect(everything).not.toContain(token);
      expect(everything).not.toContain(token.slice(4, 24)); // no fragment of the secret part
      expect(everything).not.toContain(hashToken(token));
      expect(everything).not.toContain(hashToken(token).slice(0, 20));
    }
    expect(everything).not.toMatch(/[0-9a-f]{40}/);
    // The hashes live in the registry file, and only there.
    const registryText = fs.readFileSync(path.join(home, 'federation.yaml'), 'utf8');
    expect(registryText).toContain(hashToken(at(tokens, 2)));
    for (const token of tokens) expect(registryText).not.toContain(token);
  });
});
