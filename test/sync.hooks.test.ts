/**
 * Issue 50, item 4: push and pull run nothing of the remote's. A local-path remote's hooks
 * (in its hooks/ folder, or a folder its config names in core.hooksPath), the working area's,
 * and the user's own `core.hooksPath` each write a marker when run; after init, push, pull,
 * status and doctor none has. Real git, the real binary.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers/fixtures.js';
import { bareRemote, gitSync, makeMachine, simpleManifest } from './helpers/sync.js';

const HOOKS = [
  'pre-receive',
  'update',
  'post-receive',
  'post-update',
  'reference-transaction',
  'push-to-checkout',
  'proc-receive',
  'pre-auto-gc',
  'pre-push',
  'pre-commit',
  'commit-msg',
  'post-commit',
  'post-checkout',
  'post-merge',
  'post-index-change',
  'fsmonitor-watchman',
];

/** A folder of every hook, each appending its name and `where` to `markers` when run. */
function plantHooks(dir: string, where: string, markers: string): void {
  fs.mkdirSync(dir, { recursive: true });
  for (const hook of HOOKS) {
    const file = path.join(dir, hook);
    fs.writeFileSync(file, `#!/bin/sh\necho "${where} ${hook}" >> "${markers}"\ncat >/dev/null 2>&1\nexit 0\n`);
    fs.chmodSync(file, 0o755);
  }
}

describe('sync runs no hook', () => {
  it("of the remote's (hooks/ or its core.hooksPath), the working area's or the user's", async () => {
    const markers = path.join(tempDir('bourdon-sync-markers-'), 'ran.txt');
    const remote = bareRemote();
    plantHooks(path.join(remote, 'hooks'), 'remote', markers);
    // A second remote whose config names a hooks folder of its own.
    const other = bareRemote();
    const otherHooks = path.join(tempDir('bourdon-sync-hookspath-'), 'hooks');
    plantHooks(otherHooks, 'remote-config', markers);
    gitSync(['config', 'core.hooksPath', otherHooks], other);
    // The user's own git config names a hooks folder too (applies to every repository of theirs).
    const userHooks = path.join(tempDir('bourdon-sync-userhooks-'), 'hooks');
    plantHooks(userHooks, 'user', markers);
    const globalConfig = path.join(tempDir('bourdon-sync-gitconfig-'), 'gitconfig');
    fs.writeFileSync(
      globalConfig,
      `[core]\n\thooksPath = ${userHooks}\n[receive]\n\tautogc = true\n[gc]\n\tauto = 1\n`,
    );
    const extra = { GIT_CONFIG_GLOBAL: globalConfig };

    for (const target of [remote, other]) {
      const laptop = makeMachine('laptop');
      const desk = makeMachine('desk');
      laptop.writeManifest('codex', simpleManifest('codex', 'Orbit'));
      desk.writeManifest('cursor', simpleManifest('cursor', 'Desk'));
      for (const machine of [laptop, desk]) {
        const init = await machine.run(['sync', 'init', target], extra);
        expect(init.code, init.stderr).toBe(0);
      }
      // The working area's own hooks folder, planted after init.
      const work = fs
        .readdirSync(path.join(laptop.home, 'sync'))
        .map((name) => path.join(laptop.home, 'sync', name, 'work', '.git'))
        .find((dir) => fs.existsSync(dir))!;
      plantHooks(path.join(work, 'hooks'), 'work', markers);
      for (let round = 0; round < 2; round++) {
        laptop.writeManifest('codex', simpleManifest('codex', 'Orbit', `round ${round}`));
        for (const machine of [laptop, desk]) {
          const push = await machine.run(['sync', 'push'], extra);
          expect(push.code, push.stderr).toBe(0);
        }
        for (const machine of [laptop, desk]) {
          const pull = await machine.run(['sync', 'pull'], extra);
          expect(pull.code, pull.stderr).toBe(0);
          expect((await machine.run(['sync', 'status'], extra)).code).toBe(0);
        }
      }
      expect((await laptop.run(['doctor'], extra)).stdout).toMatch(/ok\s+sync remote/);
      expect(gitSync(['show', 'main:machines/laptop/agents/codex.l5.yaml'], target)).toContain('round 1');
    }
    expect(fs.existsSync(markers) ? fs.readFileSync(markers, 'utf8') : '').toBe('');
  }, 240_000);
});
