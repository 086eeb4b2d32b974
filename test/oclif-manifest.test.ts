/** The committed oclif.manifest.json must describe the commands as built, or the CLI lies. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/fixtures.js';

// oclif builds a manifest the way `oclif manifest` does; run it in plain Node, outside the
// test runner's module loader, so it imports the compiled commands exactly as the CLI will.
const FRESH_MANIFEST = `
import { Plugin, settings } from '@oclif/core';
settings.enableAutoTranspile = false;
const plugin = new Plugin({ root: process.cwd(), ignoreManifest: true, type: 'core', isRoot: true });
await plugin.load();
process.stdout.write(JSON.stringify(plugin.manifest));
`;

describe('oclif.manifest.json', () => {
  it('matches the commands compiled in dist/', () => {
    const committed = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'oclif.manifest.json'), 'utf8'));
    const fresh = JSON.parse(
      execFileSync(process.execPath, ['--input-type=module', '-e', FRESH_MANIFEST], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
      }),
    );
    const hint = 'stale: run `npm run build && npm run manifest` and commit oclif.manifest.json';
    expect(Object.keys(fresh.commands).length).toBeGreaterThan(5);
    expect(Object.keys(committed.commands).sort(), hint).toEqual(Object.keys(fresh.commands).sort());
    for (const id of Object.keys(fresh.commands)) {
      expect(committed.commands[id], `command ${id} ${hint}`).toEqual(fresh.commands[id]);
    }
  });
});
