/**
 * `bourdon doctor`: exits 0 on a healthy setup; each seeded problem (a broken manifest, a stale
 * staged write, a bad peers file, and more) is reported by its check, with the reason, and
 * exits 1.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAILURES } from '../src/core/errors.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';
import { displayWidth } from '../src/cli/width.js';
import { PARTICIPANTS } from '../src/participants/registry.js';
import { at } from './helpers/items.js';

interface Check {
  id: string;
  verdict: 'ok' | 'info' | 'warn' | 'fail';
  summary: string;
  details: string[];
}

const MANIFEST = (id: string, extra = '') => `spec_version: '0.1'
agent:
  id: ${id}
  type: code-assistant
last_updated: '2026-06-01T10:00:00Z'
known_entities:
  - name: Bourdon
    type: project
    summary: federated memory
recent_sessions:
  - date: '2026-06-01'
    project_focus: [Bourdon]
    key_actions: [wrote the doctor]
${extra}`;

/** A library and config dir that pass every check. */
function healthy(): { library: string; home: string; env: Record<string, string> } {
  const dir = tempDir('bourdon-doctor-');
  const library = path.join(dir, 'lib');
  const home = path.join(dir, 'home');
  fs.mkdirSync(path.join(library, 'agents'), { recursive: true });
  fs.mkdirSync(home, { mode: 0o700 });
  fs.writeFileSync(path.join(library, 'agents', 'codex.l5.yaml'), MANIFEST('codex'));
  fs.writeFileSync(path.join(library, 'agents', 'cursor.l5.yaml'), MANIFEST('cursor'));
  return { library, home, env: { BOURDON_HOME: home } };
}

async function doctor(library: string, env: Record<string, string | undefined>, extra: string[] = []) {
  const result = await runCli(['doctor', '--library', library, '--json', ...extra], { env });
  const report = JSON.parse(result.stdout) as { ok: boolean; checks: Check[]; counts: Record<string, number> };
  const byId = (id: string) => {
    const found = report.checks.find((item) => item.id === id);
    if (!found) throw new Error(`no check ${id} in ${result.stdout}`);
    return found;
  };
  return { result, report, byId };
}

function stage(library: string, member: string, agent: string, daysAgo: number): string {
  const dir = path.join(library, 'staging', member);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${agent}.l5.yaml`);
  fs.writeFileSync(file, MANIFEST(agent));
  const when = new Date(Date.now() - daysAgo * 86_400_000);
  fs.utimesSync(file, when, when);
  return file;
}

describe('bourdon doctor', () => {
  it('a healthy library: every check ok or info, exit 0, and a readable report', async () => {
    const { library, env, home } = healthy();
    const { result, report } = await doctor(library, env);
    expect(result.code, result.stdout).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.checks.filter((item) => item.verdict === 'fail' || item.verdict === 'warn')).toEqual([]);
    expect(report.checks.map((item) => item.id)).toEqual(
      expect.arrayContaining([
        'library',
        'manifests',
        'duplicates',
        'schema',
        'fields',
        'gate',
        'staging',
        'config',
        'registry',
        'auth',
        'peers',
        'audit',
      ]),
    );
    // The gate check leaves no lock behind.
    expect(fs.existsSync(path.join(library, '.bourdon.lock'))).toBe(false);

    const human = await runCli(['doctor', '--library', library], { env });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^ok\s+manifests\s+2 manifests, all readable$/m);
    expect(human.stdout).toContain('Everything looks healthy.');
    expect(human.stdout).toContain(home);
  });

  it('reports each seeded problem — broken manifest, stale staging, bad peers file — and exits 1', async () => {
    const { library, env, home } = healthy();
    fs.writeFileSync(
      path.join(library, 'agents', 'broken.l5.yaml'),
      "spec_version: '0.1'\nagent: {id: broken, type: other\nknown_entities: [\n",
    );
    stage(library, 'openclaw', 'openclaw', 9);
    stage(library, 'laptop', 'laptop', 1); // fresh: awaiting review, not a problem
    fs.writeFileSync(path.join(home, 'peers.yaml'), 'peers:\n  - name: desk\n    url: http://desk.example:7500\n');

    const { result, report, byId } = await doctor(library, env, ['--offline']);
    expect(result.code).toBe(1);
    expect(report.ok).toBe(false);

    const manifests = byId('manifests');
    expect(manifests.verdict).toBe('fail');
    expect(manifests.details).toEqual([expect.stringMatching(/^agents\/broken\.l5\.yaml: .+/)]);

    const staging = byId('staging');
    expect(staging.verdict).toBe('fail');
    expect(staging.summary).toContain('1 staged write older than 7 days');
    expect(staging.details).toEqual([
      expect.stringContaining('staging/openclaw/openclaw.l5.yaml: staged by openclaw 9 days ago'),
    ]);

    const peers = byId('peers');
    expect(peers.verdict).toBe('fail');
    expect(peers.summary).toContain('http is allowed only on loopback');

    // The other checks are unaffected.
    expect(byId('gate').verdict).toBe('ok');
    expect(byId('audit').verdict).toBe('ok');

    const human = await runCli(['doctor', '--library', library, '--offline'], { env });
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/^FAIL\s+manifests/m);
    expect(human.stdout).toMatch(/^FAIL\s+staging/m);
    expect(human.stdout).toMatch(/^FAIL\s+peers/m);
    expect(human.stdout).toContain('3 problems');
    expect(human.stdout).toContain('bourdon staging promote openclaw');
  });

  it('a longer --stale-days lets an old staged write pass', async () => {
    const { library, env } = healthy();
    stage(library, 'openclaw', 'openclaw', 9);
    const { result, byId } = await doctor(library, env, ['--stale-days', '30']);
    expect(result.code).toBe(0);
    expect(byId('staging').verdict).toBe('info');
  });

  it('duplicate ids and rows queries cannot read fail; tolerated deviations only warn (exit 1 with --strict)', async () => {
    const { library, env } = healthy();
    fs.writeFileSync(path.join(library, 'agents', 'zz-copy.l5.yaml'), MANIFEST('codex'));
    let { result, byId } = await doctor(library, env);
    expect(result.code).toBe(1);
    expect(byId('duplicates').verdict).toBe('fail');
    expect(byId('duplicates').details).toEqual([
      // the file named after the id keeps it, wherever the stray copy sorts
      'agents/zz-copy.l5.yaml: agent id "codex" is already in agents/codex.l5.yaml',
    ]);
    fs.rmSync(path.join(library, 'agents', 'zz-copy.l5.yaml'));

    fs.writeFileSync(
      path.join(library, 'agents', 'notes-bot.l5.yaml'),
      `spec_version: '0.1'\nagent: {id: notes-bot, type: robot}\nlast_updated: '2026-06-01T10:00:00Z'\nvisibility_policy: {default: internal}\nknown_entities:\n  - type: idea\n  - name: Fine\n    visibility: secret\nrecent_sessions:\n  - date: yesterday\n`,
    );
    ({ result, byId } = await doctor(library, env));
    expect(result.code).toBe(1);
    const schema = byId('schema');
    expect(schema.verdict).toBe('fail');
    expect(schema.details).toEqual(
      expect.arrayContaining([
        'agents/notes-bot.l5.yaml: known_entities[0] has no name (ignored)',
        'agents/notes-bot.l5.yaml: recent_sessions[0] has no valid date (YYYY-MM-DD): undated, it is left out wherever a date window applies',
        expect.stringContaining('agent.type "robot" is not one of'),
        expect.stringContaining('known_entities[1].visibility "secret" is unknown'),
        // Issue 50 (D19): the policy decides unlabelled rows, so a default we do not know is named.
        expect.stringContaining(
          'visibility_policy.default "internal" is unknown: rows without a visibility are read as private',
        ),
      ]),
    );

    fs.writeFileSync(
      path.join(library, 'agents', 'notes-bot.l5.yaml'),
      `agent: {id: notes-bot}\nknown_entities: [{name: Fine}]\n`,
    );
    ({ result, byId } = await doctor(library, env));
    expect(result.code).toBe(0);
    expect(byId('schema').verdict).toBe('warn');
    expect((await doctor(library, env, ['--strict'])).result.code).toBe(1);
  });

  it('values left out of rows that are still read: a count per file and its first fields, bounded; a warning only', async () => {
    const { library, env } = healthy();
    const agents = path.join(library, 'agents');
    // One entity keeps its row without a summary that is a mapping, one without an alias that is a list.
    fs.writeFileSync(
      path.join(agents, 'codex.l5.yaml'),
      MANIFEST('codex').replace(
        '    summary: federated memory\n',
        '    summary: {not: text}\n  - name: Orbit\n    aliases: [orb, [nested]]\n',
      ),
    );
    // Five values in one file: three named, the rest counted.
    const many = Array.from({ length: 5 }, (_, i) => `  - {name: E${i}, type: [a, list]}`).join('\n');
    fs.writeFileSync(
      path.join(agents, 'cursor.l5.yaml'),
      MANIFEST('cursor').replace('known_entities:\n', `known_entities:\n${many}\n`),
    );
    const { result, report, byId } = await doctor(library, env);
    expect(result.code, result.stdout).toBe(0);
    expect(report.ok).toBe(true);
    const fields = byId('fields');
    expect(fields).toEqual({
      id: 'fields',
      title: 'fields',
      verdict: 'warn',
      summary: '7 values in 2 manifests do not fit the L5 model and are left out of rows that are still read',
      details: [
        'agents/codex.l5.yaml: 2 values (known_entities[0].summary, known_entities[1].aliases[1])',
        'agents/cursor.l5.yaml: 5 values (known_entities[0].type, known_entities[1].type, known_entities[2].type, and 2 more)',
      ],
    });
    // The rows themselves are read: the schema check has nothing to say, and the queries answer them.
    expect(byId('schema').verdict).toBe('ok');
    const found = await runCli(['find', 'orb', '--library', library, '--json'], { env });
    expect(JSON.parse(found.stdout).matches.map((match: { name: string }) => match.name)).toEqual(['Orbit']);

    const human = await runCli(['doctor', '--library', library], { env });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^warn\s+fields\s+7 values in 2 manifests do not fit the L5 model/m);
    expect(human.stdout).toContain(
      'agents/codex.l5.yaml: 2 values (known_entities[0].summary, known_entities[1].aliases[1])',
    );
    expect((await doctor(library, env, ['--strict'])).result.code).toBe(1);

    // Past twenty files, the rest are counted on one line.
    for (let i = 0; i < 21; i++)
      fs.writeFileSync(
        path.join(agents, `extra-${String(i).padStart(2, '0')}.l5.yaml`),
        `agent: {id: extra-${String(i).padStart(2, '0')}, type: other}\nknown_entities: [{name: X, summary: [a]}]\n`,
      );
    const bounded = (await doctor(library, env)).byId('fields');
    expect(bounded.summary).toBe(
      '28 values in 23 manifests do not fit the L5 model and are left out of rows that are still read',
    );
    expect(bounded.details).toHaveLength(21);
    expect(bounded.details.at(-1)).toBe('and 3 more files');
  });

  it('registry: unreadable fails; revoked members and quarantined members without grants are reported', async () => {
    const { library, env, home } = healthy();
    expect((await runCli(['agent', 'add', 'lonely'], { env })).code).toBe(0);
    expect((await runCli(['agent', 'add', 'old', '--tier', 'trusted'], { env })).code).toBe(0);
    expect((await runCli(['revoke', 'old'], { env })).code).toBe(0);
    let { result, byId } = await doctor(library, env);
    expect(result.code).toBe(0);
    expect(byId('registry').verdict).toBe('ok');
    expect(byId('registry').summary).toBe('1 active member (0 trusted, 1 quarantined), 1 revoked');
    expect(byId('registry').details).toEqual([expect.stringMatching(/^old: revoked/)]);
    expect(byId('grants').verdict).toBe('warn');
    expect(byId('grants').details).toEqual([expect.stringContaining('bourdon grant lonely <agent>')]);
    expect(byId('auth').verdict).toBe('ok');

    fs.writeFileSync(path.join(home, 'federation.yaml'), 'agents: [not, a, mapping]\n');
    ({ result, byId } = await doctor(library, env));
    expect(result.code).toBe(1);
    expect(byId('registry').verdict).toBe('fail');
    expect(byId('auth').verdict).toBe('fail');
  });

  it('peers: an unset token variable warns, an unreachable peer fails reachability', async () => {
    const { library, env, home } = healthy();
    // A port that refuses connections: bound, then closed.
    const port = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as net.AddressInfo;
        server.close(() => resolve(free));
      });
    });
    fs.writeFileSync(
      path.join(home, 'peers.yaml'),
      `peers:\n  - name: gone\n    url: http://127.0.0.1:${port}\n    token_env: BOURDON_PEER_GONE\n`,
    );
    const { result, byId } = await doctor(library, env, ['--peer-timeout', '2000']);
    expect(result.code).toBe(1);
    expect(byId('peers').verdict).toBe('warn');
    expect(byId('peers').details).toEqual(['gone: $BOURDON_PEER_GONE is not set']);
    expect(byId('reachability').verdict).toBe('fail');
    expect(byId('reachability').details).toEqual([expect.stringMatching(/^gone: unreachable/)]);
    const offline = await doctor(library, { ...env, BOURDON_PEER_GONE: 'x' }, ['--offline']);
    expect(offline.result.code).toBe(0);
    expect(offline.byId('reachability').verdict).toBe('info');
  });

  it('peers: a plaintext token in peers.yaml fails the check (named, never echoed) and serve --federate refuses it', async () => {
    const { library, env, home } = healthy();
    const secret = 'bdn_feedfacefeedfacefeedfacefeedface';
    try {
      fs.writeFileSync(
        path.join(home, 'peers.yaml'),
        `peers:\n  - name: laptop\n    url: https://laptop.example:7500\n    token: ${secret}\n`,
      );
      const { result, byId } = await doctor(library, env, ['--offline']);
      expect(result.code).toBe(1);
      expect(byId('peers').verdict).toBe('fail');
      expect(byId('peers').summary).toMatch(/a `token:` key is not allowed: the file holds variable names only/);
      expect(result.stdout + result.stderr).not.toContain(secret);
      const serve = await runCli(['serve', '--library', library, '--federate'], { env });
      expect(serve.code).toBe(FAILURES.invalid_input.exit);
      expect(serve.stderr).toMatch(/`token:` key is not allowed/);
      expect(serve.stderr).not.toContain(secret);
    } finally {
      fs.rmSync(path.dirname(library), { recursive: true, force: true });
    }
  });

  it('an audit log that cannot be written fails (rollbacks would be refused)', async () => {
    const { library, env, home } = healthy();
    const blocker = path.join(home, 'not-a-dir');
    fs.writeFileSync(blocker, '');
    const { result, byId } = await doctor(library, { ...env, BOURDON_AUDIT_PATH: path.join(blocker, 'audit.jsonl') });
    expect(result.code).toBe(1);
    expect(byId('audit').verdict).toBe('fail');
    expect(byId('audit').details).toEqual([expect.stringContaining('rollbacks are refused')]);
  });

  it('a missing library fails with the way out, and the rest is still checked', async () => {
    const dir = tempDir();
    const { result, byId, report } = await doctor(path.join(dir, 'nope'), { BOURDON_HOME: path.join(dir, 'home') });
    expect(result.code).toBe(1);
    expect(byId('library').verdict).toBe('fail');
    expect(byId('library').details).toEqual([expect.stringContaining('bourdon init')]);
    expect(report.checks.map((item) => item.id)).toContain('audit');
  });

  it('a write gate held by a live writer is reported as busy, not broken', async () => {
    const { library, env } = healthy();
    const lock = path.join(library, '.bourdon.lock');
    fs.mkdirSync(lock);
    fs.writeFileSync(
      path.join(lock, 'owner.json'),
      JSON.stringify({
        pid: process.pid,
        host: (await import('node:os')).hostname(),
        boot: null,
        token: 'abc',
        acquired: new Date().toISOString(),
      }),
    );
    try {
      const { result, byId } = await doctor(library, env);
      expect(byId('gate').verdict).toBe('warn');
      expect(byId('gate').summary).toContain('busy');
      expect(result.code).toBe(0);
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  });
});

describe("bourdon doctor: the agents' native sources", () => {
  it('one line per registered participant within 80 columns, found or not; the paths only in --json', async () => {
    const { library, env } = healthy();
    const userHome = tempDir('bourdon-doctor-user-');
    // Claude Code's knowledge graph and the desktop app's Code store are here; nothing else is.
    fs.mkdirSync(path.join(userHome, 'claude-memory'), { recursive: true });
    fs.writeFileSync(path.join(userHome, 'claude-memory', 'memory.jsonl'), '');
    const store = path.join(userHome, '.config', 'Claude', 'claude-code-sessions');
    fs.mkdirSync(store, { recursive: true });
    const run = { ...env, HOME: userHome, COLUMNS: '80', MEMORY_FILE_PATH: undefined, CLAUDE_BRAIN: undefined };

    const human = await runCli(['doctor', '--library', library, '--offline'], { env: run, cwd: userHome });
    expect(human.code, human.stderr).toBe(0);
    const lines = human.stdout.split('\n');
    const heading = lines.findIndex((line) => line.startsWith('Agents on this machine'));
    expect(heading).toBeGreaterThan(0);
    const agentLines = lines.slice(heading + 1, heading + 1 + PARTICIPANTS.length);
    for (const [index, participant] of PARTICIPANTS.entries()) {
      const line = at(agentLines, index, `the line of ${participant.agentId}`);
      expect(line).toMatch(new RegExp(`^(ok|info|warn)\\s+${participant.agentId}\\s+\\S`));
      expect(displayWidth(line)).toBeLessThanOrEqual(80);
      expect(line).not.toContain(userHome);
    }
    expect(lines[heading + 1 + PARTICIPANTS.length]).toBe('');
    const lineOf = (id: string) => agentLines.find((line) => new RegExp(`^\\S+\\s+${id}\\s`).test(line))!;
    expect(lineOf('claude-code')).toMatch(/^ok\s+claude-code\s+found: knowledge_graph; missing: /);
    expect(lineOf('claude-desktop-code')).toMatch(/^ok\s+claude-desktop-code\s+found: claude_code_sessions$/);
    expect(lineOf('claude-desktop-cowork')).toMatch(/^info\s+claude-desktop-cowork\s+no source on this machine$/);

    const { byId } = await doctor(library, run, ['--offline']);
    expect(byId('participant:claude-desktop-code')).toMatchObject({
      verdict: 'ok',
      details: [expect.stringMatching(new RegExp(`^found\\s+claude_code_sessions: ${store} \\(modified `))],
    });
    expect(byId('participant:codex').verdict).toBe('info');
  });

  it('a source that is a link to nothing or a loop is unreadable, not missing (as an export warns)', async () => {
    const { library, env } = healthy();
    const userHome = tempDir('bourdon-doctor-links-');
    fs.mkdirSync(path.join(userHome, '.codex'));
    fs.symlinkSync(path.join(userHome, 'gone.sqlite'), path.join(userHome, '.codex', 'state_5.sqlite'));
    const loop = path.join(userHome, '.copilot', 'session-store.db');
    fs.mkdirSync(path.dirname(loop));
    fs.symlinkSync(loop, loop);
    const run = { ...env, HOME: userHome, MEMORY_FILE_PATH: undefined, CLAUDE_BRAIN: undefined, CODEX_HOME: undefined };
    const { byId } = await doctor(library, run, ['--offline']);
    expect(byId('participant:codex')).toMatchObject({
      verdict: 'warn',
      summary: 'found but unreadable: state_db',
      details: expect.arrayContaining([
        `unreadable state_db: ${path.join(userHome, '.codex', 'state_5.sqlite')}: a link to nothing`,
      ]),
    });
    expect(byId('participant:copilot-cli')).toMatchObject({
      verdict: 'warn',
      details: [`unreadable session_store: ${loop}: a link that loops`],
    });
  });
});
