/**
 * Parity with the engine's participants: every recorded case under
 * test/fixtures/conformance/participants (a fake home, the command, the frozen environment and
 * the manifest the engine wrote) is run through the real binary, and the manifest it writes is
 * compared, parsed, with the engine's (conformance/participants/README.md, "Comparing").
 * Every case folder is run: a folder that is not a case, or a case whose participant is not
 * registered in this build, fails the file rather than being skipped.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as yaml from 'js-yaml';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCli } from './helpers/cli.js';
import { readFakeApi, serveFakeOpenclaw } from './helpers/openclaw-fake.mjs';
import { participantById } from '../src/participants/registry.js';
import {
  comparable,
  copyCaseHome,
  expectedManifest,
  PARTICIPANT_CASES_DIR,
  recordedCases,
  substituteHome,
  type ParticipantCase,
} from './helpers/participant-cases.js';

/** Variables the README says to clear before setting the case's own. */
const CLEARED = [
  'CLAUDE_BRAIN',
  'CLAUDE_HOME',
  'CODEX_HOME',
  'CURSOR_DIR',
  'CURSOR_HOME',
  'COPILOT_CLI_HOME',
  'COPILOT_BOURDON_HOME',
  'COPILOT_AUTOMATIONS_HOME',
  'COPILOT_VSCODE_STORAGE',
  'XDG_CONFIG_HOME',
  'BOURDON_CLAUDE_DESKTOP_DIR',
  'APPDATA',
  'OPENCLAW_URL',
  'OPENCLAW_TOKEN',
  'BOURDON_DEFAULT_ACCESS_LEVEL',
  'MEMORY_FILE_PATH',
  ...['http_proxy', 'https_proxy', 'all_proxy', 'no_proxy'].flatMap((name) => [name, name.toUpperCase()]),
];

/** Every file under `dir` with its bytes and mtime, to tell that an export changed nothing there. */
function treeOf(dir: string): Record<string, string> {
  const tree: Record<string, string> = {};
  const walk = (current: string) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else tree[path.relative(dir, full)] = `${fs.statSync(full).mtimeMs}:${fs.readFileSync(full).toString('base64')}`;
    }
  };
  walk(dir);
  return tree;
}

/**
 * The command line our binary runs for a case: `bourdon <agent-id> export` (README, "Running a
 * case in a port"), whatever the engine's own was (export-all narrowed to one entry; openclaw's
 * `--library`, where we take `--out`).
 */
function commandWords(spec: ParticipantCase): string[] {
  return [spec.agent_id, 'export'];
}

describe('participants: the engine-recorded cases', () => {
  const all = recordedCases();
  it('runs every recorded case: each folder is a case of a registered participant', () => {
    const folders = fs
      .readdirSync(PARTICIPANT_CASES_DIR, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .flatMap((participant) =>
        fs
          .readdirSync(path.join(PARTICIPANT_CASES_DIR, participant.name), { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => `${participant.name}/${entry.name}`),
      )
      .sort();
    expect(all.map((item) => item.id).sort()).toEqual(folders);
    expect(new Set(all.map((item) => item.id.split('/')[0])).size).toBe(14);
    expect(all.filter((item) => participantById(item.spec.agent_id) === undefined).map((item) => item.id)).toEqual([]);
  });

  for (const item of all) {
    const { id, spec } = item;
    it(id, async () => {
      const { root, home } = copyCaseHome(item);
      // openclaw's source is an HTTP instance: the case's api.json, served for the run.
      const instance = spec.fake_api ? await serveFakeOpenclaw(readFakeApi(path.join(item.dir, spec.fake_api))) : null;
      onTestFinished(() => instance?.close());
      const url = instance?.url;
      const out = path.join(root, 'out', 'manifest.l5.yaml');
      const env: Record<string, string | undefined> = Object.fromEntries(CLEARED.map((name) => [name, undefined]));
      for (const [key, value] of Object.entries(spec.env)) env[key] = substituteHome(value, home, url);
      Object.assign(env, {
        TZ: spec.timezone,
        BOURDON_LOCAL_NAME: spec.hostname,
        SOURCE_DATE_EPOCH: String(Math.floor(Date.parse(spec.now) / 1000)),
        BOURDON_LIBRARY: path.join(root, 'library'),
      });
      const caseArgs = spec.args.map((arg) => substituteHome(arg, home, url));
      const args = [...commandWords(spec), ...caseArgs, '--access-level', spec.access_level, '--out', out];
      const before = treeOf(home);
      const result = await runCli(args, { env, cwd: home, timeoutMs: 60_000 });
      expect(result.code, result.stderr).toBe(spec.exit_code);
      // Nothing is ever written into the agent's own tree.
      expect(treeOf(home)).toEqual(before);
      const expected = expectedManifest(item, home, url);
      if (!expected) {
        expect(fs.existsSync(out), 'no manifest is written').toBe(false);
        return;
      }
      expect(fs.existsSync(out), result.stderr).toBe(true);
      const actual = yaml.load(fs.readFileSync(out, 'utf8'));
      expect(comparable(actual, spec.unordered)).toEqual(comparable(expected, spec.unordered));
    });
  }
});
