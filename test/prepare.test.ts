/**
 * The quick start builds once: npm's `prepare` hook (scripts/prepare.mjs), which npm runs again
 * on `npx bourdon …` inside the checkout and on `npm link`, skips the build when dist/ is newer
 * than every input, and builds when a source changed. Run on a small copy of the layout (a fake
 * build that writes the outputs), so the test never rebuilds the real tree.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from './helpers/fixtures.js';

const root = tempDir('bourdon-prepare-');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** The outputs prepare.mjs dates the build by, read from the script itself. */
const OUTPUTS = JSON.parse(
  (/const OUTPUTS = (\[[^\]]*\]);/.exec(fs.readFileSync(path.join(REPO_ROOT, 'scripts', 'prepare.mjs'), 'utf8')) ?? [
    '',
    '[]',
  ])[1].replace(/'/g, '"'),
) as string[];

function write(file: string, text = '', ageSeconds = 0): void {
  const full = path.join(root, file);
  fs.mkdirSync(path.dirname(full), { recursive: true });
  fs.writeFileSync(full, text);
  const when = new Date(Date.now() - ageSeconds * 1000);
  fs.utimesSync(full, when, when);
}

function prepare(): string {
  return execFileSync(process.execPath, [path.join(root, 'scripts', 'prepare.mjs')], { cwd: root, encoding: 'utf8' });
}

describe('prepare builds only when the build is out of date', () => {
  fs.mkdirSync(path.join(root, 'scripts'));
  fs.copyFileSync(path.join(REPO_ROOT, 'scripts', 'prepare.mjs'), path.join(root, 'scripts', 'prepare.mjs'));
  // The "build" counts its runs and writes every output.
  const build = `const fs=require('fs');fs.appendFileSync('builds','x');for(const f of ${JSON.stringify(OUTPUTS)}){fs.mkdirSync(require('path').dirname(f),{recursive:true});fs.writeFileSync(f,'')}`;
  write(
    'package.json',
    JSON.stringify({ name: 'fake', scripts: { build: `node -e "${build.replace(/"/g, '\\"')}"` } }),
    60,
  );
  write('src/a.ts', 'export {};', 60);
  write('scripts/bundle.mjs', '', 60);
  const builds = () =>
    fs.existsSync(path.join(root, 'builds')) ? fs.readFileSync(path.join(root, 'builds'), 'utf8').length : 0;

  it('builds when there is no dist/', () => {
    prepare();
    expect(builds()).toBe(1);
  });

  it('skips when dist/ is newer than every input, and says so', () => {
    expect(prepare()).toContain('dist/ is up to date with src/; not building again');
    expect(builds()).toBe(1);
  });

  it('builds again once a source is newer, or an output is missing', () => {
    write('src/a.ts', 'export const changed = 1;');
    const later = new Date(Date.now() + 1000);
    fs.utimesSync(path.join(root, 'src', 'a.ts'), later, later);
    prepare();
    expect(builds()).toBe(2);
    fs.rmSync(path.join(root, OUTPUTS.at(-1)!));
    prepare();
    expect(builds()).toBe(3);
  });

  it('dates the build by files the real build writes (else every install would build again)', () => {
    expect(OUTPUTS.length).toBeGreaterThan(0);
    for (const output of OUTPUTS) expect(fs.existsSync(path.join(REPO_ROOT, output)), output).toBe(true);
  });

  it('is the package.json prepare script', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.prepare).toBe('node scripts/prepare.mjs');
  });
});
