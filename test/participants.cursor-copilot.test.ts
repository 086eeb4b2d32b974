/**
 * The cursor and copilot-cli participants against the engine's recorded cases
 * (test/fixtures/conformance/participants): each home is copied to a temp dir with the case's
 * mtimes, exported with the case's clock, hostname and environment, filtered at `team` as the
 * runner filters, and compared with the manifest the engine wrote (role_narrative excepted).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { copilotCliParticipant } from '../src/participants/copilot-cli/index.js';
import { cursorParticipant } from '../src/participants/cursor/index.js';
import type { ExportEnvironment, Participant } from '../src/participants/participant.js';
import { CONFORMANCE_DIR, tempDir } from './helpers/fixtures.js';

const CASES_DIR = path.join(CONFORMANCE_DIR, 'participants');

interface CaseFile {
  now: string;
  hostname: string;
  mtime: string;
  env: Record<string, string>;
  args: string[];
  expect_manifest: boolean;
  unordered: string[];
}

/** Copies `from` to `to`, then gives every file and directory the case's mtime (deepest first). */
function copyHome(from: string, to: string, mtime: Date): void {
  fs.cpSync(from, to, { recursive: true });
  const touch = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) touch(full);
      fs.utimesSync(full, mtime, mtime);
    }
  };
  touch(to);
  fs.utimesSync(to, mtime, mtime);
}

function substituteHome<T>(value: T, home: string): T {
  return JSON.parse(JSON.stringify(value).replaceAll('${HOME}', home)) as T;
}

/** The runner's access filter at `team`: private rows dropped, both lists present (re-added last when empty). */
function filterAtTeam(manifest: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = { ...manifest };
  for (const key of ['known_entities', 'recent_sessions']) {
    const rows = ((manifest[key] as Record<string, unknown>[] | undefined) ?? []).filter(
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

/** role_narrative is ours to word; `unordered` lists compare as multisets. */
function comparable(manifest: Record<string, unknown>, unordered: readonly string[]): Record<string, unknown> {
  const copy = structuredClone(manifest);
  delete (copy.agent as Record<string, unknown>).role_narrative;
  for (const key of unordered) {
    if (Array.isArray(copy[key])) copy[key] = (copy[key] as unknown[]).map((v) => JSON.stringify(v)).sort();
  }
  return copy;
}

function keyOrder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(keyOrder);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).map(([key, inner]) => [key, keyOrder(inner)]);
  }
  return null;
}

const PARTICIPANTS: Record<string, Participant> = { cursor: cursorParticipant, copilot_cli: copilotCliParticipant };

for (const [folder, participant] of Object.entries(PARTICIPANTS)) {
  describe(`${participant.agentId} participant: the engine's recorded cases`, () => {
    const cases = fs.readdirSync(path.join(CASES_DIR, folder)).sort();
    it('has cases to run', () => expect(cases.length).toBeGreaterThan(0));

    for (const name of cases) {
      it(name, async () => {
        const caseDir = path.join(CASES_DIR, folder, name);
        const spec = JSON.parse(fs.readFileSync(path.join(caseDir, 'case.json'), 'utf8')) as CaseFile;
        const home = path.join(tempDir('bourdon-participant-'), 'home');
        copyHome(path.join(caseDir, 'home'), home, new Date(spec.mtime));
        const sinceAt = spec.args.indexOf('--since');
        const environment: ExportEnvironment = {
          home,
          env: substituteHome(spec.env, home),
          cwd: home,
          now: new Date(spec.now),
          hostname: spec.hostname,
          since: sinceAt >= 0 ? spec.args[sinceAt + 1] : undefined,
          platform: 'linux',
        };
        const result = await participant.export(environment);
        const expectedFile = path.join(caseDir, 'expected.l5.yaml');
        if (!spec.expect_manifest) {
          expect(result.manifest).toBeUndefined();
          return;
        }
        const expected = substituteHome(parse(fs.readFileSync(expectedFile, 'utf8')) as Record<string, unknown>, home);
        expect(result.manifest).toBeDefined();
        const ours = filterAtTeam(result.manifest!);
        expect(comparable(ours, spec.unordered)).toEqual(comparable(expected, spec.unordered));
        // The engine's key order too (a YAML reader does not care; a diff of two exports does).
        expect(keyOrder(comparable(ours, spec.unordered))).toEqual(keyOrder(comparable(expected, spec.unordered)));
        expect(result.warnings).toEqual([]);
      });
    }
  });
}
