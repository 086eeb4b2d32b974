/**
 * Test fixtures: the project's copy of the conformance material (test/fixtures/conformance, kept identical
 * to ../shared/conformance by `npm run fixtures:sync`), and temp libraries built from it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Where the shared folder lives when it is beside the checkout (CI has it; a plain clone may not). */
export const SHARED_DIR = process.env.BOURDON_SHARED_DIR ?? path.resolve(REPO_ROOT, '..', 'shared');
/** The fixtures travel with the repo, so a plain clone runs every test. */
export const CONFORMANCE_DIR = path.join(REPO_ROOT, 'test', 'fixtures', 'conformance');
export const FIXTURE_LIBRARY = path.join(CONFORMANCE_DIR, 'library');
export const BIN = path.join(REPO_ROOT, 'bin', 'run.js');

/** Every temp dir a test file made through tempDir(); test/helpers/cleanup.ts removes them after the file. */
const madeTempDirs = new Set<string>();

/** A fresh temp dir, removed when the test file ends (or earlier by the test itself). */
export function tempDir(prefix = 'bourdon-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  madeTempDirs.add(dir);
  return dir;
}

/** Removes every temp dir made so far in this test file. */
export function removeTempDirs(): void {
  for (const dir of madeTempDirs) fs.rmSync(dir, { recursive: true, force: true });
  madeTempDirs.clear();
}

/**
 * A writable copy of a conformance library (writes change it, so every case gets its own): `library/` by
 * default, or the one an oracle file names in its top-level `"library"` key (a path relative to the
 * conformance folder, e.g. `library-edge`).
 */
export function copyFixtureLibrary(library = 'library'): string {
  const source = path.resolve(CONFORMANCE_DIR, library);
  if (path.relative(CONFORMANCE_DIR, source).startsWith('..'))
    throw new Error(`fixture library outside the fixtures: ${library}`);
  const root = tempDir('bourdon-lib-');
  fs.cpSync(source, root, { recursive: true });
  // The shared folder may be read-only in CI; the copy must be writable.
  for (const file of fs.readdirSync(path.join(root, 'agents'))) fs.chmodSync(path.join(root, 'agents', file), 0o644);
  fs.chmodSync(path.join(root, 'agents'), 0o755);
  fs.chmodSync(root, 0o755);
  return root;
}

export function readJson<T = unknown>(file: string): T {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
}

export interface ConformanceCase {
  id: string;
  kind: 'tool' | 'resource';
  name: string;
  arguments: Record<string, unknown>;
  volatile?: string[];
  opaque?: string[];
  error_contains?: string;
  extra_keys_allowed?: string[];
  expected: unknown;
  /** Deliberate differences from the engine (D<n>); `expected` is this project's payload, `python_oracle` the engine's. */
  divergence?: string[];
  python_oracle?: unknown;
  note?: string;
}

export function oracle<T = unknown>(file: string): T {
  return readJson<T>(path.join(CONFORMANCE_DIR, 'oracle-payloads', file));
}

/** A list of independent read cases and the library they run over (`library/` unless the file names one). */
export interface CaseFile {
  library: string;
  cases: ConformanceCase[];
}

export function caseFile(file: string): CaseFile {
  const parsed = oracle<{ library?: string; cases: ConformanceCase[] }>(file);
  // The earlier files say "shared" (the recorder's name for the shared `library/`); newer ones name a folder.
  const library = parsed.library === undefined || parsed.library === 'shared' ? 'library' : parsed.library;
  return { library, cases: parsed.cases };
}

/** Fills a resource template like agent-library://agents/{agent_id}/memory. */
export function resourceUri(template: string, variables: Record<string, unknown>): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => encodeURIComponent(String(variables[key])));
}

/**
 * Brings an actual payload into the comparable form the conformance README defines:
 * `<library>` for the library root, presence-only volatile keys, null-vs-non-null opaque
 * keys, the error text checked by `error_contains`, allowed extra keys dropped.
 */
export function normalise(
  testCase: ConformanceCase,
  actual: unknown,
  libraryRoot: string,
): { actual: unknown; expected: unknown } {
  const replaced = JSON.parse(JSON.stringify(actual).split(libraryRoot).join('<library>')) as unknown;
  const expected = structuredClone(testCase.expected) as unknown;
  if (!replaced || typeof replaced !== 'object' || Array.isArray(replaced)) return { actual: replaced, expected };
  const got = replaced as Record<string, unknown>;
  const want = expected as Record<string, unknown>;
  for (const key of testCase.volatile ?? []) {
    if (key in got) got[key] = '<volatile>';
  }
  for (const key of testCase.opaque ?? []) {
    if (key in got && key in want) {
      const bothNull = got[key] === null && want[key] === null;
      const bothSet = got[key] !== null && want[key] !== null;
      if (bothNull || bothSet) got[key] = want[key];
    }
  }
  if (testCase.error_contains !== undefined) {
    if (typeof got.error === 'string' && got.error.includes(testCase.error_contains)) got.error = want.error;
  }
  for (const key of testCase.extra_keys_allowed ?? []) {
    if (!(key in want)) delete got[key];
  }
  return { actual: got, expected: want };
}

/** A library in a temp folder: each agent's manifest is `agent: {id, type: code-assistant}` then its body. */
export function libraryOf(agents: Record<string, string>): string {
  const root = tempDir('bourdon-lib-');
  fs.mkdirSync(path.join(root, 'agents'));
  for (const [id, body] of Object.entries(agents))
    fs.writeFileSync(
      path.join(root, 'agents', `${id}.l5.yaml`),
      `spec_version: '0.1'\nagent: {id: ${id}, type: code-assistant}\n${body}`,
    );
  return root;
}
