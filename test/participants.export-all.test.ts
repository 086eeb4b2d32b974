/**
 * `bourdon export-all` on a machine where all four agents have left their memory (the recorded
 * cases' homes, laid into one): every participant is exported into the library as a version,
 * and the library then answers `agents`, `find` and `recent` from them, through the binary.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { CONFORMANCE_DIR, tempDir } from './helpers/fixtures.js';

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
