/**
 * The project's copies of the conformance fixtures and of the judged search library must be the
 * shared ones, file for file, whenever ../shared is beside the checkout (CI has it). A plain
 * clone without it skips this check.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFORMANCE_DIR, REPO_ROOT, SHARED_DIR } from './helpers/fixtures.js';

const SHARED_CONFORMANCE = path.join(SHARED_DIR, 'conformance');
const SEARCH_DIR = path.join(REPO_ROOT, 'test', 'fixtures', 'search');
const SHARED_SEARCH = path.join(SHARED_DIR, 'search');

function filesUnder(root: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else files.set(path.relative(root, full), fs.readFileSync(full));
    }
  };
  walk(root);
  return files;
}

function differencesBetween(oursDir: string, theirsDir: string): string[] {
  const ours = filesUnder(oursDir);
  const theirs = filesUnder(theirsDir);
  const differences: string[] = [];
  for (const [file, bytes] of theirs) {
    const copy = ours.get(file);
    if (!copy) differences.push(`missing: ${file}`);
    else if (!copy.equals(bytes)) differences.push(`differs: ${file}`);
  }
  for (const file of ours.keys()) if (!theirs.has(file)) differences.push(`extra: ${file}`);
  return differences;
}

describe('conformance fixtures copy', () => {
  it('exists in the repository, so a plain clone runs the parity tests', () => {
    expect(fs.existsSync(path.join(CONFORMANCE_DIR, 'library', 'agents'))).toBe(true);
    expect(fs.existsSync(path.join(CONFORMANCE_DIR, 'oracle-payloads', 'reads.json'))).toBe(true);
  });

  it.skipIf(!fs.existsSync(SHARED_CONFORMANCE))('is identical to ../shared/conformance, file for file', () => {
    const differences = differencesBetween(CONFORMANCE_DIR, SHARED_CONFORMANCE);
    expect(differences, 'test/fixtures/conformance is out of date: run `npm run fixtures:sync`').toEqual([]);
  });
});

describe('judged search library copy', () => {
  it('exists in the repository, so a plain clone runs the judged search test', () => {
    expect(fs.existsSync(path.join(SEARCH_DIR, 'library', 'agents'))).toBe(true);
    expect(fs.existsSync(path.join(SEARCH_DIR, 'queries.json'))).toBe(true);
  });

  it.skipIf(!fs.existsSync(SHARED_SEARCH))('is identical to ../shared/search, file for file', () => {
    expect(
      differencesBetween(SEARCH_DIR, SHARED_SEARCH),
      'test/fixtures/search is out of date: run `npm run fixtures:sync`',
    ).toEqual([]);
  });
});
