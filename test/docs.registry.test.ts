/**
 * Docs that cannot drift: the README's list of participants and docs/participants.md's table
 * are the registry's (ids, order, commands, source flags, staging), and every `docs/…` file
 * or repository README that source, tests, scripts or docs name exists.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PARTICIPANTS } from '../src/participants/registry.js';
import { REPO_ROOT } from './helpers/fixtures.js';

const read = (file: string) => fs.readFileSync(path.join(REPO_ROOT, file), 'utf8');

/** Every file below `dir` (relative to the repo) whose name matches, fixtures and build output left out. */
function filesUnder(dir: string, pattern: RegExp): string[] {
  const found: string[] = [];
  const walk = (relative: string) => {
    for (const entry of fs.readdirSync(path.join(REPO_ROOT, relative), { withFileTypes: true })) {
      const child = path.join(relative, entry.name);
      if (entry.isDirectory()) {
        if (!['fixtures', 'node_modules', 'dist'].includes(entry.name)) walk(child);
      } else if (pattern.test(entry.name)) found.push(child);
    }
  };
  walk(dir);
  return found;
}

describe('the participant docs are the registry', () => {
  it("README's list names every participant's agent id, in the order export-all runs them", () => {
    const readme = read('README.md');
    const block = /<!-- participants:[^>]*-->([\s\S]*?)<!-- \/participants -->/.exec(readme);
    expect(block, 'README.md has no participants block').not.toBeNull();
    const ids = [...(block?.[1] ?? '').matchAll(/`([a-z0-9-]+)`/g)].map((match) => match[1]);
    expect(ids).toEqual(PARTICIPANTS.map((participant) => participant.agentId));
  });

  it("docs/participants.md's table has one row per participant: its command, source flags, id and staging", () => {
    const rows = read('docs/participants.md')
      .split('\n')
      .filter((line) => /^\| `bourdon [a-z0-9-]+ export/.test(line))
      .map((line) => line.split('|').map((cell) => cell.trim()));
    expect(rows.map((cells) => cells[1])).toEqual(
      PARTICIPANTS.map((participant) => {
        const flags = (participant.help.flags ?? []).map((flag) => ` [--${flag.name}]`).join('');
        return `\`bourdon ${participant.topic} export${flags}\``;
      }),
    );
    expect(rows.map((cells) => cells[2])).toEqual(PARTICIPANTS.map((participant) => `\`${participant.agentId}\``));
    expect(rows.map((cells) => cells[3]?.includes('staged for review'))).toEqual(
      PARTICIPANTS.map((participant) => participant.staged === true),
    );
  });
});

describe('named docs exist', () => {
  it('every docs/… path named in src, test, scripts, bench, bin and the docs themselves is a file', () => {
    const sources = [
      ...['src', 'test', 'scripts', 'bench', 'bin', 'docs'].flatMap((dir) =>
        filesUnder(dir, /\.(ts|mts|js|mjs|cjs|md)$/),
      ),
      'README.md',
    ];
    const missing: string[] = [];
    for (const file of sources) {
      for (const match of read(file).matchAll(/\bdocs\/[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.(?:md|png)\b/g)) {
        const named = match[0];
        // A docs/ path inside docs/ may be relative to the docs folder (an image of the page named from docs/ui.md).
        const candidates = [named, path.join(path.dirname(file), named)];
        if (!candidates.some((candidate) => fs.existsSync(path.join(REPO_ROOT, candidate))))
          missing.push(`${file}: ${named}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
