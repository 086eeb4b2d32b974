/**
 * Pushes that race and pushes that die: N machines pushing at once to one bare repository all
 * land, and a push killed during its git step leaves the library byte-identical and the remote
 * at the commit before or the one after, never between; the next push recovers.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseEnv } from './helpers/cli.js';
import { BIN, tempDir } from './helpers/fixtures.js';
import {
  bareRemote,
  gitSync,
  makeMachine,
  remoteHead,
  simpleManifest,
  snapshotTree,
  type Machine,
} from './helpers/sync.js';

const MACHINES = 5;

function remoteFile(remote: string, file: string): string | null {
  try {
    return gitSync(['show', `main:${file}`], remote);
  } catch {
    return null;
  }
}

describe('concurrent pushes', () => {
  it(`${MACHINES} machines pushing at once all land, twice over`, { timeout: 180_000 }, async () => {
    const remote = bareRemote();
    const machines: Machine[] = [];
    for (let i = 0; i < MACHINES; i++) {
      const machine = makeMachine(`m${i}`);
      machine.writeManifest('codex', simpleManifest('codex', `Round one of m${i}`));
      machine.writeManifest('cursor', simpleManifest('cursor', `Cursor of m${i}`));
      machines.push(machine);
    }
    await Promise.all(
      machines.map(async (machine) => expect((await machine.run(['sync', 'init', remote])).code).toBe(0)),
    );
    for (const round of ['one', 'two']) {
      if (round === 'two')
        for (const machine of machines)
          machine.writeManifest('codex', simpleManifest('codex', `Round two of ${machine.name}`));
      const results = await Promise.all(machines.map((machine) => machine.run(['sync', 'push', '--json'])));
      for (const result of results) expect(result.code, result.stdout + result.stderr).toBe(0);
      for (const machine of machines) {
        expect(remoteFile(remote, `machines/${machine.name}/agents/codex.l5.yaml`)).toContain(
          `Round ${round} of ${machine.name}`,
        );
        expect(remoteFile(remote, `machines/${machine.name}/agents/cursor.l5.yaml`)).toContain(
          `Cursor of ${machine.name}`,
        );
        const publication = JSON.parse(remoteFile(remote, `machines/${machine.name}/publication.json`) ?? '{}');
        expect(publication).toMatchObject({
          machine: machine.name,
          access_level: 'public',
          agents: ['codex', 'cursor'],
        });
      }
    }
    // One commit per push: the remote's history is the team's, readable.
    expect(gitSync(['rev-list', '--count', 'main'], remote).trim()).toBe(String(2 * MACHINES));
    expect(gitSync(['log', '--format=%s', 'main'], remote)).toMatch(/^m\d: publish 2 agents at public \(1 changed\)$/m);
  });
});

/** A git that stops (and waits to be killed) when asked for one subcommand (after any `-c key=value`). */
function stoppingGit(): { dir: string; env: (at: string, mark: string) => Record<string, string> } {
  const dir = tempDir('bourdon-sync-git-');
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  fs.writeFileSync(
    path.join(dir, 'git'),
    `#!/bin/sh
sub=""; skip=0
for arg in "$@"; do
  if [ "$skip" = 1 ]; then skip=0; continue; fi
  if [ "$arg" = "-c" ]; then skip=1; continue; fi
  sub="$arg"; break
done
if [ "$sub" = "$SYNC_STOP_AT" ]; then
  if [ "$SYNC_STOP_MODE" = running ]; then "${real}" "$@" & : > "$SYNC_STOP_MARK"; wait $!; exit $?; fi
  : > "$SYNC_STOP_MARK"; sleep 60
fi
exec "${real}" "$@"
`,
    { mode: 0o755 },
  );
  return {
    dir,
    env: (at, mark) => ({
      PATH: `${dir}:${process.env.PATH}`,
      SYNC_STOP_AT: at.split(':')[0]!,
      SYNC_STOP_MODE: at.split(':')[1] ?? '',
      SYNC_STOP_MARK: mark,
    }),
  };
}

async function killDuring(machine: Machine, env: Record<string, string>, mark: string): Promise<void> {
  const child = spawn(process.execPath, [BIN, 'sync', 'push', '--library', machine.library], {
    env: baseEnv({ ...machine.env, ...env }),
    stdio: 'ignore',
    detached: true,
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  for (let waited = 0; !fs.existsSync(mark); waited += 10) {
    if (waited > 30_000) throw new Error('the push never reached its git step');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  process.kill(-child.pid!, 'SIGKILL');
  await exited;
}

describe('a push killed during its git step', () => {
  for (const at of ['commit-tree', 'push', 'push:running']) {
    it(
      `killed at \`git ${at}\`: library untouched, remote before or after, the next push recovers`,
      { timeout: 60_000 },
      async () => {
        const remote = bareRemote();
        const laptop = makeMachine('laptop');
        laptop.writeManifest('codex', simpleManifest('codex', 'Before'));
        expect((await laptop.run(['sync', 'init', remote])).code).toBe(0);
        expect((await laptop.run(['sync', 'push'])).code).toBe(0);
        const before = remoteHead(remote)!;
        laptop.writeManifest('codex', simpleManifest('codex', 'After'));
        const library = snapshotTree(laptop.library);

        const git = stoppingGit();
        const mark = path.join(git.dir, 'reached');
        await killDuring(laptop, git.env(at, mark), mark);

        expect(snapshotTree(laptop.library)).toEqual(library);
        const head = remoteHead(remote)!;
        const published = remoteFile(remote, 'machines/laptop/agents/codex.l5.yaml')!;
        if (head === before) expect(published).toContain('Before');
        else {
          expect(gitSync(['rev-parse', `${head}^`], remote).trim()).toBe(before);
          expect(published).toContain('After');
        }
        gitSync(['fsck', '--no-progress'], remote);

        const again = await laptop.run(['sync', 'push']);
        expect(again.code, again.stderr).toBe(0);
        expect(remoteFile(remote, 'machines/laptop/agents/codex.l5.yaml')).toContain('After');
        expect(snapshotTree(laptop.library)).toEqual(library);
      },
    );
  }
});
