/**
 * Parity with the engine's participants: every recorded case under
 * test/fixtures/conformance/participants (a fake home, the command, the frozen environment and
 * the manifest the engine wrote) is run through the real binary, and the manifest it writes is
 * compared, parsed, with the engine's (conformance/participants/README.md, "Comparing").
 * A case whose participant is not registered in this build is skipped, saying so.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { CONFORMANCE_DIR, tempDir } from './helpers/fixtures.js';
import { runCli } from './helpers/cli.js';
import { participantById } from '../src/participants/registry.js';

const CASES_DIR = path.join(CONFORMANCE_DIR, 'participants');

interface ParticipantCase {
  participant: string;
  agent_id: string;
  now: string;
  hostname: string;
  timezone: string;
  mtime: string;
  env: Record<string, string>;
  args: string[];
  access_level: string;
  command: string;
  exit_code: number;
  expect_manifest: boolean;
  unordered: string[];
  notes: string;
}

/** Variables the README says to clear before setting the case's own. */
const CLEARED = ['CLAUDE_BRAIN', 'CODEX_HOME', 'CURSOR_DIR', 'COPILOT_CLI_HOME', 'APPDATA', 'MEMORY_FILE_PATH'];

function cases(): { dir: string; id: string; spec: ParticipantCase }[] {
  const found: { dir: string; id: string; spec: ParticipantCase }[] = [];
  for (const participant of fs.readdirSync(CASES_DIR).sort()) {
    const participantDir = path.join(CASES_DIR, participant);
    if (!fs.statSync(participantDir).isDirectory()) continue;
    for (const name of fs.readdirSync(participantDir).sort()) {
      const dir = path.join(participantDir, name);
      const caseFile = path.join(dir, 'case.json');
      if (!fs.existsSync(caseFile)) continue;
      found.push({ dir, id: `${participant}/${name}`, spec: JSON.parse(fs.readFileSync(caseFile, 'utf8')) });
    }
  }
  return found;
}

/** Sets every file's and folder's mtime, deepest first (setting a file's touches its folder). */
function setMtimes(dir: string, when: Date): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) setMtimes(full, when);
    else fs.utimesSync(full, when, when);
  }
  fs.utimesSync(dir, when, when);
}

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

const substitute = (text: string, home: string) => text.split('${HOME}').join(home);

/** A copy of `value` where each `unordered` field (a dotted path) is sorted canonically. */
function canonicalised(value: unknown, fields: readonly string[]): unknown {
  const copy = structuredClone(value) as Record<string, unknown>;
  for (const field of fields) {
    const parts = field.split('.');
    let holder: unknown = copy;
    for (const part of parts.slice(0, -1)) holder = (holder as Record<string, unknown> | undefined)?.[part];
    const last = parts[parts.length - 1];
    const list = (holder as Record<string, unknown> | undefined)?.[last];
    if (Array.isArray(list)) {
      (holder as Record<string, unknown>)[last] = [...list].sort((a, b) =>
        JSON.stringify(a) < JSON.stringify(b) ? -1 : JSON.stringify(a) > JSON.stringify(b) ? 1 : 0,
      );
    }
  }
  const agent = copy.agent as Record<string, unknown> | undefined;
  if (agent) delete agent.role_narrative; // ours to word (README, "What at parity means")
  return copy;
}

/** The command line our binary runs for a case: the case's command, or its participant's export. */
function commandWords(spec: ParticipantCase): string[] {
  // copilot-cli's case says `bourdon export-all` (the engine had no copilot-cli export); ours does.
  if (spec.command.startsWith('bourdon export-all')) return [spec.agent_id, 'export'];
  const words = spec.command.split(/\s+/).slice(1);
  return words.slice(0, words.length - spec.args.length);
}

describe('participants: the engine-recorded cases', () => {
  const all = cases();
  it('finds the recorded cases', () => {
    expect(all.length).toBeGreaterThanOrEqual(13);
  });

  for (const { dir, id, spec } of all) {
    const registered = participantById(spec.agent_id) !== undefined;
    it.skipIf(!registered)(
      `${id}${registered ? '' : ` (skipped: participant ${spec.agent_id} is not registered)`}`,
      async () => {
        const root = tempDir('bourdon-participant-');
        const home = path.join(root, 'home');
        fs.cpSync(path.join(dir, 'home'), home, { recursive: true });
        setMtimes(home, new Date(spec.mtime));
        const out = path.join(root, 'out', 'manifest.l5.yaml');
        const env: Record<string, string | undefined> = Object.fromEntries(CLEARED.map((name) => [name, undefined]));
        for (const [key, value] of Object.entries(spec.env)) env[key] = substitute(value, home);
        Object.assign(env, {
          TZ: spec.timezone,
          BOURDON_LOCAL_NAME: spec.hostname,
          SOURCE_DATE_EPOCH: String(Math.floor(Date.parse(spec.now) / 1000)),
          BOURDON_LIBRARY: path.join(root, 'library'),
        });
        const args = [...commandWords(spec), ...spec.args, '--access-level', spec.access_level, '--out', out];
        const before = treeOf(home);
        const result = await runCli(args, { env, cwd: home, timeoutMs: 60_000 });
        expect(result.code, result.stderr).toBe(spec.exit_code);
        // Nothing is ever written into the agent's own tree.
        expect(treeOf(home)).toEqual(before);
        const expectedFile = path.join(dir, 'expected.l5.yaml');
        if (!spec.expect_manifest || !fs.existsSync(expectedFile)) {
          expect(fs.existsSync(out), 'no manifest is written').toBe(false);
          return;
        }
        expect(fs.existsSync(out), result.stderr).toBe(true);
        const actual = yaml.load(fs.readFileSync(out, 'utf8'));
        const expected = yaml.load(substitute(fs.readFileSync(expectedFile, 'utf8'), home));
        expect(canonicalised(actual, spec.unordered)).toEqual(canonicalised(expected, spec.unordered));
      },
    );
  }
});
