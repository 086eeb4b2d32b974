/**
 * `bourdon watch` with its library on a full disk (issue 53): the export fails with the kernel's
 * ENOSPC through the real write path (a small tmpfs in a user and mount namespace, as
 * hardening.disk.test.ts does; skipped where namespaces cannot be made), is said once, leaves no
 * half-written manifest, and the next change once there is room exports; the watch goes on and
 * stops cleanly.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from './helpers/fixtures.js';

function namespacesWork(): boolean {
  if (process.platform !== 'linux') return false;
  const probe = spawnSync(
    'unshare',
    ['-rm', 'sh', '-c', 'd=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs "$d" && umount "$d" && rmdir "$d"'],
    { stdio: 'ignore', timeout: 5_000 },
  );
  return probe.status === 0;
}

describe.runIf(namespacesWork())('bourdon watch on a full disk', () => {
  it('says the failed export once, writes nothing half, and exports on the next change once there is room', () => {
    const dir = tempDir('bourdon-watch-disk-');
    const home = tempDir('bourdon-watch-disk-home-');
    const helper = path.join(REPO_ROOT, 'test', 'helpers', 'watch-disk.mjs');
    const run = spawnSync(
      'unshare',
      [
        '-rm',
        'sh',
        '-c',
        `mount -t tmpfs -o size=256k tmpfs "$1" && exec "$2" "$3" "$4" "$1" "$5"`,
        'sh',
        dir,
        process.execPath,
        helper,
        REPO_ROOT,
        home,
      ],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.error).toBeUndefined();
    expect(result.failed.message).toMatch(/^failed cascade: .*no space left on the device/);
    expect(result.failedCount).toBe(1);
    expect(result.agentsLeft).toEqual([]);
    expect(result.exported.message).toMatch(/^exported cascade: /);
    expect(result.live).toBe(true);
    expect(result.code).toBe(0);
    expect(result.lockLeft).toBe(false);
  }, 150_000);
});
