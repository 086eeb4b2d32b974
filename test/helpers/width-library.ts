/**
 * A library that stresses every width human output meets (issue 34): the generated 20-agent
 * library (bench/generate.js, 500 sessions) plus an agent with the longest strict id and 200
 * sessions in long working folders, long entity names, notes and tags with unbreakable tokens
 * (URLs, paths), an agent written in wide (CJK) characters, and all that `bourdon doctor` can
 * find wrong: unreadable and duplicate manifests, schema deviations, stale and unreadable
 * staged writes, a config dir others can read, a member without grants and a revoked one, a
 * peer nobody answers at a long URL, long audit records. Its own folders have long names too,
 * so every path printed is long. Versions of the long agent come from real commits.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { runCliBatch } from './cli.js';
import { REPO_ROOT, tempDir } from './fixtures.js';

/** The longest strict agent id (64 characters). */
export const LONG_AGENT = 'release-coordination-agent-for-the-watch-and-desktop-sync-engine';
export const WIDE_AGENT = 'kanji-notes';
/** A member id as long as ids go, and one with no grants. */
export const LONG_MEMBER = 'continuous-integration-reader-for-the-release-coordination-board';
export const BARE_MEMBER = 'quarantined-member-without-any-grants-at-all';
const REVOKED_MEMBER = 'a-member-whose-token-was-revoked-last-week';
export const STAGING_CALLER = 'openclaw-automated-triage-bot-for-the-watch-and-desktop-clients';

export const LONG_CWD =
  '/home/developer/workspaces/client-projects/acme-corporation/mobile-and-desktop-clients/packages/sync-engine-core';
export const URL =
  'https://git.example.com/acme/sync-engine/pull/4711/files#diff-0123456789abcdef0123456789abcdef01234567';
export const FOCUS = 'Release 2.4 — watch sync engine and the desktop merge-ordering rework';
const WIDE_TEXT =
  '同期エンジンのマージ順序をベクタークロックで決めることにした。ウォッチ版が追いつくまでフラグの後ろに置く。';

export interface WidthLibrary {
  /** The folder that holds all the rest (copyWidthLibrary copies it). */
  base: string;
  library: string;
  home: string;
  /** A HOME without any agent's native memory (exports find nothing, and say where they looked). */
  userHome: string;
  /** An empty bare git repository, the sync remote. */
  remote: string;
  /** Commit input files for the long agent (JSON), by name. */
  rows: Record<'first' | 'second' | 'third', string>;
}

function day(daysAgo: number): string {
  return new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
}

function write(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value, null, 1));
}

function longManifest(): object {
  return {
    spec_version: '0.1',
    agent: {
      id: LONG_AGENT,
      type: 'project-manager',
      role_narrative: `Coordinates releases across ${LONG_CWD} and ${URL}; keeps the watch build in step.`,
    },
    last_updated: `${day(0)}T09:00:00+00:00`,
    known_entities: Array.from({ length: 12 }, (_, i) => ({
      name: `Sync Engine Merge Ordering Rework for the Watch and Desktop Clients, part ${i + 1}`,
      type: 'project',
      summary: `Vector clocks tie on simultaneous edits; the device id breaks the tie (${URL}). Files: ${LONG_CWD}/src/merge/ordering-${i}.ts`,
      aliases: [`merge-ordering-rework-${i}-${'x'.repeat(60)}`],
      tags: ['release-engineering-and-coordination', 'watch-and-desktop-clients'],
      visibility: 'public',
    })),
    recent_sessions: Array.from({ length: 200 }, (_, i) => ({
      date: day(i % 12),
      cwd: `${LONG_CWD}/src/merge/vector-clocks/session-${i}`,
      project_focus: [FOCUS, `Project ${i % 7}`],
      key_actions: [`Rewrote ${URL} as three commits`, `Measured ${LONG_CWD}/bench/merge-${i}.json`],
      files_touched: [`${LONG_CWD}/src/merge/ordering.ts`],
      visibility: 'public',
    })),
    notes: Array.from({ length: 12 }, (_, i) => ({
      date: day(i),
      title: `Decision ${i}: the device-id tiebreak ships behind a flag`,
      text: `Until the watch build catches up, see ${URL} and ${LONG_CWD}/docs/decisions/tiebreak-${i}.md for the reasoning, the measurements and who agreed.`,
      tags: ['decision', 'release-engineering-and-coordination'],
      project_focus: [FOCUS],
      visibility: 'public',
    })),
  };
}

function wideManifest(): object {
  return {
    spec_version: '0.1',
    agent: { id: WIDE_AGENT, type: 'note-capture', role_narrative: WIDE_TEXT },
    last_updated: `${day(0)}T09:00:00+00:00`,
    known_entities: [{ name: '同期エンジン設計', summary: WIDE_TEXT.repeat(2), tags: ['設計', 'リリース'] }],
    recent_sessions: Array.from({ length: 6 }, (_, i) => ({
      date: day(i),
      cwd: `/home/開発者/プロジェクト/同期エンジン/${i}`,
      project_focus: ['同期エンジン設計とウォッチ版リリースの調整'],
      key_actions: [WIDE_TEXT],
      visibility: 'public',
    })),
    notes: [{ date: day(0), title: '決定', text: WIDE_TEXT.repeat(3), tags: ['決定事項'], visibility: 'public' }],
  };
}

/** Everything doctor's schema check reports, in one manifest. */
function deviantManifest(): object {
  return {
    spec_version: '0.2-with-a-much-longer-version-label-than-anyone-expects',
    agent: { id: 'schema-deviations', type: 'a-custom-agent-type-that-is-not-one-of-the-known-ones' },
    last_updated: 'last tuesday, shortly after the release-coordination meeting ended',
    capabilities: 'code-read',
    known_entities: [{ summary: 'no name' }, 'not a mapping', { name: 'Ok', visibility: 'TEAM ' }],
    recent_sessions: [{ date: 'sometime', key_actions: ['x'] }, { key_actions: ['no date'] }],
    notes: [{ date: day(0) }, { text: 'no date', visibility: 'secret-ish-and-unknown-level' }],
  };
}

/**
 * Builds the library (and its config home) once; the caller may copy both for each run that
 * writes. Takes a few seconds: one generator run and one batch of CLI calls.
 */
export async function widthLibrary(): Promise<WidthLibrary> {
  const base = tempDir('bourdon-width-');
  const library = path.join(base, 'a-library-folder-whose-name-is-long-enough-to-push-paths-past-a-line');
  const home = path.join(base, 'bourdon-config-home-with-a-long-name');
  const userHome = path.join(base, 'home-of-a-user-with-a-rather-long-account-name');
  const remote = path.join(base, 'team-library-remote.git');
  fs.mkdirSync(home, { recursive: true, mode: 0o700 });
  fs.mkdirSync(userHome, { recursive: true });
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'bench', 'generate.js'), library, '20', '30', '25', '8']);
  const agents = path.join(library, 'agents');
  write(path.join(agents, `${LONG_AGENT}.l5.yaml`), longManifest());
  write(path.join(agents, `${WIDE_AGENT}.l5.yaml`), wideManifest());
  write(path.join(agents, 'schema-deviations.l5.yaml'), deviantManifest());
  // Unreadable manifests (doctor names each with the parser's reason; agents lists them).
  for (let i = 0; i < 4; i++)
    write(
      path.join(agents, `unreadable-manifest-number-${i}-with-a-long-file-name-to-match.l5.yaml`),
      `agent:\n  id: broken-${i}\n known_entities: [{ name: "unclosed ${'word '.repeat(30)}`,
    );
  // Two files declaring the long agent's id: the one that sorts first is skipped.
  write(path.join(agents, `a-duplicate-file-that-declares-the-long-id.l5.yaml`), {
    ...longManifest(),
    recent_sessions: [],
  });
  // Staged writes: one a month old, one unreadable, one fresh (to promote).
  const staged = (caller: string, agent: string) => path.join(library, 'staging', caller, `${agent}.l5.yaml`);
  write(staged(STAGING_CALLER, 'agent-003'), { agent: { id: 'agent-003' }, known_entities: [{ name: 'Old' }] });
  const month = new Date(Date.now() - 30 * 86_400_000);
  fs.utimesSync(staged(STAGING_CALLER, 'agent-003'), month, month);
  write(staged(STAGING_CALLER, 'agent-004'), `known_entities: [unclosed ${'word '.repeat(30)}`);
  write(staged(STAGING_CALLER, LONG_AGENT), {
    agent: { id: LONG_AGENT },
    known_entities: [{ name: `Staged ${FOCUS}`, summary: `Found at ${URL} while triaging ${LONG_CWD}.` }],
    recent_sessions: [{ date: day(0), cwd: `${LONG_CWD}/triage`, key_actions: [`Triaged ${URL}`] }],
  });
  // Long audit records, as a member's denied calls leave them.
  const long = `${LONG_CWD}/${'segment-'.repeat(20)}`;
  write(
    path.join(home, 'audit.jsonl'),
    [0, 1, 2]
      .map((i) =>
        JSON.stringify({
          ts: new Date(Date.now() - i * 3_600_000).toISOString(),
          agent: LONG_MEMBER,
          op: 'find_entity',
          namespace: long,
          decision: i === 1 ? 'deny' : 'allow',
          detail: `${URL} ${long}`,
        }),
      )
      .join('\n') + '\n',
  );
  const rows = {
    first: path.join(base, 'rows-first.json'),
    second: path.join(base, 'rows-second.json'),
    third: path.join(base, 'rows-third.json'),
  };
  write(rows.first, {
    entities: [{ name: `Flaky Watch Test in ${FOCUS}`, summary: `Fails about 1 run in 30 on CI (${URL}).` }],
  });
  write(rows.second, {
    entities: [
      {
        name: `Flaky Watch Test in ${FOCUS}`,
        summary: `Fails when the watch reconnects mid-merge; reproduced with a fixed seed at ${LONG_CWD}/test/seed.json.`,
      },
    ],
    sessions: [{ date: day(0), cwd: `${LONG_CWD}/a-new-session`, key_actions: [`Bisected ${URL}`] }],
  });
  write(rows.third, {
    notes: [{ date: day(0), title: 'Tiebreak', text: `${WIDE_TEXT} ${URL} ${'a-long-hyphenated-word-'.repeat(6)}` }],
  });
  execFileSync('git', ['init', '--quiet', '--bare', remote]);
  const env = { BOURDON_HOME: home, HOME: userHome, BOURDON_LIBRARY: library };
  const setup = await runCliBatch(
    [
      ['agent', 'add', LONG_MEMBER, '--grant', `${LONG_AGENT},${WIDE_AGENT},agent-000,agent-001,agent-002`],
      ['agent', 'add', BARE_MEMBER],
      ['agent', 'add', REVOKED_MEMBER, '--tier', 'trusted'],
      ['revoke', REVOKED_MEMBER],
      ['peers', 'add', 'far', `http://127.0.0.1:9/${'a-long-path-segment/'.repeat(8)}mcp`],
      ['commit', LONG_AGENT, '-f', rows.first],
      ['commit', LONG_AGENT, '-f', rows.second],
      ['commit', LONG_AGENT, '-f', rows.third],
    ],
    env,
  );
  for (const result of setup)
    if (result.code !== 0) throw new Error(`${result.argv.join(' ')}: ${result.stderr || result.stdout}`);
  // Readable by others: doctor warns about the config dir and the registry.
  fs.chmodSync(home, 0o755);
  fs.chmodSync(path.join(home, 'federation.yaml'), 0o644);
  return { base, library, home, userHome, remote, rows };
}

/**
 * A copy of the whole set (modes and times kept: the staged write stays a month old), for a
 * run that writes. The sync remote is not set up: its settings are keyed by the library's path.
 */
export function copyWidthLibrary(built: WidthLibrary): WidthLibrary {
  const base = tempDir('bourdon-width-copy-');
  fs.cpSync(built.base, base, { recursive: true, preserveTimestamps: true });
  const moved = (file: string) => path.join(base, path.relative(built.base, file));
  return {
    base,
    library: moved(built.library),
    home: moved(built.home),
    userHome: moved(built.userHome),
    remote: moved(built.remote),
    rows: { first: moved(built.rows.first), second: moved(built.rows.second), third: moved(built.rows.third) },
  };
}
