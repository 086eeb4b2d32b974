/**
 * The engine's recorded participant cases (test/fixtures/conformance/participants, its README:
 * a fake home, the command, the frozen environment and the manifest the engine wrote), read
 * once for every test that runs them: the cases, a copy of a case's home with the case's
 * mtimes, `${HOME}` substituted, the runner's filter at `team`, and the form two manifests are
 * compared in (role_narrative is ours to word; `unordered` lists compare as multisets).
 */
import fs from 'node:fs';
import path from 'node:path';
import * as yaml from 'js-yaml';
import type { ExportEnvironment, ManifestData } from '../../src/participants/kit/participant.js';
import { CONFORMANCE_DIR, tempDir } from './fixtures.js';
import { sinceOf } from '../../src/participants/kit/since.js';

export const PARTICIPANT_CASES_DIR = path.join(CONFORMANCE_DIR, 'participants');

/** A case's case.json. */
export interface ParticipantCase {
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
  /** Lists (dotted paths) that compare as multisets. */
  unordered: string[];
  /** openclaw only: the fake instance's routes (`api.json`), served for the run (openclaw-fake.ts). */
  fake_api?: string;
  notes: string;
}

export interface RecordedCase {
  /** `<participant folder>/<case>`. */
  id: string;
  dir: string;
  spec: ParticipantCase;
}

/** The recorded cases, in name order: one participant folder's (`codex`, `copilot_cli`, …), or all. */
export function recordedCases(folder?: string): RecordedCase[] {
  const folders = folder
    ? [folder]
    : fs
        .readdirSync(PARTICIPANT_CASES_DIR)
        .sort()
        .filter((name) => fs.statSync(path.join(PARTICIPANT_CASES_DIR, name)).isDirectory());
  return folders.flatMap((participant) =>
    fs
      .readdirSync(path.join(PARTICIPANT_CASES_DIR, participant))
      .sort()
      .map((name) => path.join(PARTICIPANT_CASES_DIR, participant, name))
      .filter((dir) => fs.existsSync(path.join(dir, 'case.json')))
      .map((dir) => ({
        id: `${participant}/${path.basename(dir)}`,
        dir,
        spec: JSON.parse(fs.readFileSync(path.join(dir, 'case.json'), 'utf8')) as ParticipantCase,
      })),
  );
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

/** A copy of the case's home in a fresh temp dir (`<root>/home`), every entry with the case's mtime. */
export function copyCaseHome(recorded: RecordedCase): { root: string; home: string } {
  const root = tempDir('bourdon-participant-');
  const home = path.join(root, 'home');
  fs.cpSync(path.join(recorded.dir, 'home'), home, { recursive: true });
  setMtimes(home, new Date(recorded.spec.mtime));
  return { root, home };
}

/**
 * `text` with the case's `${HOME}` placeholder replaced by the copied home, and `${OPENCLAW_URL}`
 * by the fake instance's base URL when one is served.
 */
export function substituteHome(text: string, home: string, openclawUrl?: string): string {
  const homed = text.split('${HOME}').join(home);
  return openclawUrl === undefined ? homed : homed.split('${OPENCLAW_URL}').join(openclawUrl);
}

/**
 * The environment an in-process export runs with outside the recorded cases: the home as HOME
 * and working folder, a fixed clock (2026-05-01 12:00 UTC), Linux; `extra` overrides any field.
 */
export function exportEnvironment(home: string, extra: Partial<ExportEnvironment> = {}): ExportEnvironment {
  return {
    home,
    env: { HOME: home },
    cwd: home,
    now: new Date('2026-05-01T12:00:00Z'),
    hostname: 'h',
    platform: 'linux',
    ...extra,
  };
}

/** The environment an in-process export runs with for a case: its clock, host, variables and --since. */
export function caseEnvironment(spec: ParticipantCase, home: string): ExportEnvironment {
  const sinceAt = spec.args.indexOf('--since');
  return {
    home,
    env: Object.fromEntries(Object.entries(spec.env).map(([key, value]) => [key, substituteHome(value, home)])),
    cwd: home,
    now: new Date(spec.now),
    hostname: spec.hostname,
    since: sinceOf(sinceAt === -1 ? undefined : spec.args[sinceAt + 1]),
    platform: 'linux',
  };
}

/** The manifest the engine wrote for a case, `${HOME}` (and `${OPENCLAW_URL}`) substituted; undefined when it wrote none. */
export function expectedManifest(recorded: RecordedCase, home: string, openclawUrl?: string): ManifestData | undefined {
  const file = path.join(recorded.dir, 'expected.l5.yaml');
  if (!recorded.spec.expect_manifest || !fs.existsSync(file)) return undefined;
  const manifest = yaml.load(substituteHome(fs.readFileSync(file, 'utf8'), home, openclawUrl)) as ManifestData;
  return withoutScrubbedNames(manifest);
}

/**
 * Our one deliberate difference from the engine's manifests (docs/conformance.md, P-names): an
 * entity whose name the participant's scrubber replaced whole is left out, as one whose name
 * holds a secret is.
 */
function withoutScrubbedNames(manifest: ManifestData): ManifestData {
  const entities = manifest.known_entities as Record<string, unknown>[] | undefined;
  if (!Array.isArray(entities)) return manifest;
  return { ...manifest, known_entities: entities.filter((row) => row.name !== '[redacted credential-like text]') };
}

/**
 * The runner's access filter at `team`, for exports made in-process (the binary filters its
 * own): private rows dropped, entities whose name was scrubbed whole left out, both lists
 * present (re-added last when empty).
 */
export function filterAtTeam(manifest: ManifestData): ManifestData {
  const result: ManifestData = withoutScrubbedNames(manifest);
  for (const key of ['known_entities', 'recent_sessions']) {
    const rows = ((result[key] as Record<string, unknown>[] | undefined) ?? []).filter(
      (row) => row.visibility !== 'private',
    );
    if (rows.length > 0) result[key] = rows;
    else {
      delete result[key];
      result[key] = [];
    }
  }
  return result;
}

/** A copy of a manifest as two are compared: no role_narrative, each `unordered` list sorted canonically. */
export function comparable(manifest: unknown, unordered: readonly string[]): Record<string, unknown> {
  const copy = structuredClone(manifest) as Record<string, unknown>;
  for (const field of unordered) {
    const parts = field.split('.');
    let holder: unknown = copy;
    for (const part of parts.slice(0, -1)) holder = (holder as Record<string, unknown> | undefined)?.[part];
    const last = parts.at(-1)!; // split gives at least one part
    const list = (holder as Record<string, unknown> | undefined)?.[last];
    if (Array.isArray(list)) {
      const key = (item: unknown) => JSON.stringify(item);
      (holder as Record<string, unknown>)[last] = [...list].sort((a, b) =>
        key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0,
      );
    }
  }
  const agent = copy.agent as Record<string, unknown> | undefined;
  if (agent) delete agent.role_narrative;
  return copy;
}
