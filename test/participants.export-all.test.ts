/**
 * `bourdon export-all` on a machine where all four agents have left their memory (the recorded
 * cases' homes, laid into one): every participant is exported into the library as a version,
 * and the library then answers `agents`, `find` and `recent` from them, through the binary.
 * Then on a machine with some agents and not others, at 80 columns: one line per registered
 * participant that fits, skipped ones without the paths looked at, the detail in --json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { CONFORMANCE_DIR, tempDir } from './helpers/fixtures.js';
import { displayWidth } from '../src/cli/width.js';
import { PARTICIPANTS } from '../src/participants/registry.js';
import { defined } from './helpers/items.js';

const CASES = ['claude_code/cc_basic', 'codex/cx_state_db', 'cursor/cu_global_workspace', 'copilot_cli/cp_full'];

let home: string;
let library: string;
let env: Record<string, string | undefined>;

beforeAll(() => {
  home = tempDir('bourdon-all-home-');
  library = tempDir('bourdon-all-lib-');
  fs.mkdirSync(path.join(library, 'agents'));
  for (const name of CASES) {
    fs.cpSync(path.join(CONFORMANCE_DIR, 'participants', name, 'home'), home, { recursive: true });
  }
  env = {
    HOME: home,
    BOURDON_HOME: path.join(home, '.bourdon'),
    BOURDON_LIBRARY: library,
    BOURDON_LOCAL_NAME: 'laptop',
    CLAUDE_BRAIN: undefined,
    CODEX_HOME: undefined,
    CURSOR_DIR: undefined,
    COPILOT_CLI_HOME: undefined,
    MEMORY_FILE_PATH: undefined,
  };
});

describe('export-all over a home with all four agents', () => {
  it('exports each agent as a version, then agents, find and recent answer from them', async () => {
    const exported = await runCli(['export-all', '--json'], { env, cwd: home });
    expect(exported.code, exported.stderr).toBe(0);
    const report = JSON.parse(exported.stdout) as { results: { agent_id: string; outcome: string }[] };
    const status = Object.fromEntries(report.results.map((r) => [r.agent_id, r.outcome]));
    expect(status).toMatchObject({
      'claude-code': 'exported',
      codex: 'exported',
      cursor: 'exported',
      'copilot-cli': 'exported',
      'mcp-memory': 'skipped',
    });

    const agents = JSON.parse((await runCli(['agents', '--json'], { env, cwd: home })).stdout) as {
      agents: string[];
    };
    expect(agents.agents).toEqual(['claude-code', 'codex', 'copilot-cli', 'cursor']);

    const found = JSON.parse(
      (await runCli(['find', 'Quarry', '--access-level', 'team', '--json'], { env, cwd: home })).stdout,
    ) as { matches: { agents: string[] }[] };
    expect(found.matches[0]?.agents).toEqual(['codex']);

    const recent = JSON.parse(
      (await runCli(['recent', '--since', '2026-04-01', '--access-level', 'team', '--json'], { env, cwd: home }))
        .stdout,
    ) as { sessions: { agent: string }[] };
    expect(new Set(recent.sessions.map((s) => s.agent))).toEqual(
      new Set(['claude-code', 'codex', 'cursor', 'copilot-cli']),
    );

    const history = JSON.parse((await runCli(['history', 'codex', '--json'], { env, cwd: home })).stdout) as {
      versions: { version: number; op: string }[];
    };
    expect(history.versions.map((v) => [v.version, v.op])).toEqual([[1, 'export']]);
  });
});

describe('export-all at 80 columns, some agents present and some absent', () => {
  let fake: string;
  let fakeLibrary: string;
  let fakeEnv: Record<string, string | undefined>;

  beforeAll(() => {
    fake = tempDir('bourdon-all-80-');
    fakeLibrary = path.join(fake, 'a-library-whose-path-is-long-enough-to-push-a-line-past-eighty-columns');
    const home = path.join(fake, 'home');
    for (const name of ['claude_code/cc_basic', 'claude_desktop_code/cdc_full', 'copilot_cli/cp_full']) {
      fs.cpSync(path.join(CONFORMANCE_DIR, 'participants', name, 'home'), home, { recursive: true });
    }
    // copilot-cli's manifest is a symbolic link: the library refuses to write through it.
    fs.mkdirSync(path.join(fakeLibrary, 'agents'), { recursive: true });
    fs.symlinkSync(path.join(fake, 'elsewhere.yaml'), path.join(fakeLibrary, 'agents', 'copilot-cli.l5.yaml'));
    fakeEnv = {
      HOME: home,
      BOURDON_HOME: path.join(fake, '.bourdon'),
      BOURDON_LIBRARY: fakeLibrary,
      BOURDON_LOCAL_NAME: 'laptop',
      COLUMNS: '80',
      CLAUDE_BRAIN: undefined,
      CODEX_HOME: undefined,
      CURSOR_DIR: undefined,
      COPILOT_CLI_HOME: undefined,
      MEMORY_FILE_PATH: undefined,
      BOURDON_CLAUDE_DESKTOP_DIR: undefined,
    };
  });

  it('prints one line per registered participant, each within 80 columns, skipped ones without paths', async () => {
    const result = await runCli(['export-all'], { env: fakeEnv, cwd: fakeEnv.HOME });
    expect(result.code, result.stderr).toBe(1);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(PARTICIPANTS.length);
    for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(80);
    const lineOf = (id: string) => {
      const found = lines.filter((line) => new RegExp(`^\\S+(?: run)?\\s+${id}: `).test(line));
      expect(found, id).toHaveLength(1);
      return found[0];
    };
    expect(lineOf('claude-code')).toMatch(/^exported\s+claude-code: version 1, \d+ entities, \d+ sessions$/);
    // Its two broken state files are counted here, named on stderr.
    expect(lineOf('claude-desktop-code')).toMatch(/^exported\s+claude-desktop-code: version 1, .*; 2 warnings$/);
    expect(result.stderr).toContain('local_0a1b2c3d-0000-4000-8000-000000000003.json');
    expect(lineOf('copilot-cli')).toMatch(/^failed\s+copilot-cli: .*…$/);
    for (const participant of PARTICIPANTS) {
      if (['claude-code', 'claude-desktop-code', 'copilot-cli'].includes(participant.agentId)) continue;
      expect(lineOf(participant.agentId)).toMatch(new RegExp(`^skipped\\s+${participant.agentId}: no source$`));
    }
  });

  it('--json gives every participant in full: sources with their paths, warnings, counts, the file written', async () => {
    const result = await runCli(['export-all', '--json'], { env: fakeEnv, cwd: fakeEnv.HOME });
    const payload = JSON.parse(result.stdout) as {
      failed: number;
      results: {
        agent_id: string;
        outcome: string;
        reason: string | null;
        sources: { name: string; path: string; found: boolean }[];
        warnings: string[];
        counts: { entities: number; sessions: number } | null;
        path: string | null;
        version: number | null;
      }[];
    };
    expect(payload.results.map((entry) => entry.agent_id)).toEqual(PARTICIPANTS.map((p) => p.agentId));
    expect(payload.failed).toBe(1);
    const byId = Object.fromEntries(payload.results.map((entry) => [entry.agent_id, entry]));
    // Run twice: the second run finds the library already holding the same manifests.
    expect(byId['claude-code']).toMatchObject({ outcome: 'unchanged', version: 1, written: false, staged: false });
    expect(defined(byId['claude-desktop-code']).warnings).toHaveLength(2);
    expect(defined(byId['claude-desktop-code']).counts).toMatchObject({ entities: 4, sessions: 3 });
    expect(defined(byId['claude-desktop-code']).path).toBe(
      path.join(fakeLibrary, 'agents', 'claude-desktop-code.l5.yaml'),
    );
    expect(defined(byId['copilot-cli']).reason).toMatch(/symbolic link/);
    const cowork = defined(byId['claude-desktop-cowork'], 'claude-desktop-cowork');
    expect(cowork).toMatchObject({ outcome: 'skipped', reason: 'no source', counts: null });
    expect(cowork.sources).toEqual([
      {
        name: 'local_agent_mode_sessions',
        path: path.join(fakeEnv.HOME!, '.config', 'Claude', 'local-agent-mode-sessions'),
        found: false,
      },
    ]);
  });
});
