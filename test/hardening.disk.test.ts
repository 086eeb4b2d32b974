/**
 * A full disk and a read-only file system, from the real kernel: the helper
 * (test/helpers/disk-fault.mjs) runs in a user + mount namespace (`unshare -rm`, no privileges
 * needed, root or not) on a small tmpfs, so ENOSPC and EROFS come through the real write path.
 * It fills the disk to leave 0, 1, 2 … pages free before each commit (the manifest spans
 * several pages, so writes also fail part-way through a file), then remounts it read-only.
 *
 * Where the machine cannot make namespaces (some CI kernels forbid unprivileged user
 * namespaces), this file's tests are reported as skipped (no stand-in test that cannot fail);
 * the same faults at every step are injected through the
 * writer seam in hardening.faults.test.ts, which always runs. (chmod 0555 is no test: CI runs
 * as root, where it stops nothing.)
 *
 * Found by this test: write-file-atomic, used before for every durable write, ignores a short
 * write(2); on a disk filling up mid-write it renamed a truncated manifest over the live one
 * with no error. src/core/fs/atomic.ts now writes every byte or fails.
 */
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILURES } from '../src/core/errors.js';
import { REPO_ROOT, tempDir } from './helpers/fixtures.js';
import { at } from './helpers/items.js';

const run = promisify(execFile);

function namespacesWork(): boolean {
  if (process.platform !== 'linux') return false;
  const probe = spawnSync(
    'unshare',
    ['-rm', 'sh', '-c', 'd=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs "$d" && umount "$d" && rmdir "$d"'],
    {
      stdio: 'ignore',
      timeout: 5_000,
    },
  );
  return probe.status === 0;
}

const available = namespacesWork();

interface Attempt {
  pages: number;
  free: number;
  error: string | null;
  version: number | null;
  unchanged: boolean;
  parses: boolean;
  hasRow: boolean;
  warnings: string[];
  nextError: string | null;
  nextHasRow: boolean;
  history: { damaged: boolean; contiguous: boolean; archivesMatch: boolean; liveIsLatest: boolean; stray: string[] };
}

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

interface Report {
  page: number;
  manifestPages: number;
  full: Attempt[];
  readOnly: {
    error: string | null;
    unchanged: boolean;
    cli: CliRun;
    cliUnchanged: boolean;
    recovered: number | string;
  };
  fullCli: { human: CliRun; json: CliRun; unchanged: boolean; after: CliRun };
  registry: {
    attempts: { pages: number; error: string | null; unchanged: boolean; size: number; stray: string[] }[];
    membersAfter: number;
  };
  finalHistory: Attempt['history'];
  names: string[] | null;
}

describe.skipIf(!available)('a real full disk and a real read-only file system (tmpfs in a mount namespace)', () => {
  let mount: string;
  let report: Report;

  beforeAll(async () => {
    mount = tempDir('bourdon-disk-');
    const script = `mount -t tmpfs -o size=2m tmpfs "$1" && exec "$2" "$3" "$4" "$1"`;
    const { stdout } = await run(
      'unshare',
      [
        '-rm',
        'sh',
        '-c',
        script,
        'sh',
        mount,
        process.execPath,
        path.join(REPO_ROOT, 'test', 'helpers', 'disk-fault.mjs'),
        REPO_ROOT,
      ],
      {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
        maxBuffer: 16 * 1024 * 1024,
        timeout: 60_000,
      },
    );
    report = JSON.parse(stdout) as Report;
  }, 60_000);
  afterAll(() => fs.rmSync(mount, { recursive: true, force: true }));

  it('every commit on a full disk either fails clearly with the old file intact, or succeeds whole', () => {
    expect(report.manifestPages).toBeGreaterThan(1);
    expect(report.full.length).toBeGreaterThan(2 * report.manifestPages);
    for (const attempt of report.full) {
      const label = `${attempt.pages} pages free: ${JSON.stringify(attempt)}`;
      expect(attempt.parses, label).toBe(true); // never a torn manifest
      if (attempt.error !== null) {
        expect(attempt.error, label).toMatch(/no space left on the device \(ENOSPC\)/);
        expect(attempt.error, label).toMatch(/^cannot (take the library lock|write) /);
        expect(attempt.unchanged, label).toBe(true);
        expect(attempt.hasRow, label).toBe(false);
      } else {
        expect(attempt.hasRow, label).toBe(true);
        expect(attempt.version, label).toEqual(expect.any(Number));
      }
      // Once there is room again, the next commit succeeds and the history is whole.
      expect(attempt.nextError, label).toBeNull();
      expect(attempt.nextHasRow, label).toBe(true);
      expect(attempt.history, label).toEqual({
        damaged: false,
        contiguous: true,
        archivesMatch: true,
        liveIsLatest: true,
        stray: [],
        latest: expect.any(Number),
      });
    }
    // The sweep really crossed from "no room at all" to "enough room".
    expect(at(report.full, 0).error).not.toBeNull();
    expect(at(report.full, -1).error).toBeNull();
    expect(report.full.filter((attempt) => attempt.error !== null).length).toBeGreaterThan(report.manifestPages);
  });

  it('a read-only file system refuses the commit in one clear line; the file is unchanged; it works again once writable', () => {
    expect(report.readOnly.error).toMatch(/read-only file system \(EROFS\)/);
    expect(report.readOnly.unchanged).toBe(true);
    expect(report.readOnly.cli.code).toBe(FAILURES.unavailable.exit);
    expect(report.readOnly.cli.stdout).toBe('');
    expect(report.readOnly.cli.stderr).toMatch(
      /^bourdon: cannot take the library lock .*: read-only file system \(EROFS\)[^\n]*\n$/,
    );
    expect(report.readOnly.cliUnchanged).toBe(true);
    expect(report.readOnly.recovered).toEqual(expect.any(Number));
  });

  it('the member registry on a full disk: refused with ENOSPC and left whole until there is room', () => {
    const { attempts, membersAfter } = report.registry;
    expect(attempts.length).toBeGreaterThan(2);
    for (const attempt of attempts.slice(0, -1)) {
      expect(attempt.error, JSON.stringify(attempt)).toMatch(
        /^cannot (take the lock .*federation\.yaml\.lock|write .*federation\.yaml): no space left on the device \(ENOSPC\)/,
      );
      expect(attempt.unchanged, JSON.stringify(attempt)).toBe(true);
      expect(attempt.stray, JSON.stringify(attempt)).toEqual([]);
    }
    expect(at(attempts, -1).error).toBeNull();
    expect(membersAfter).toBe(41);
  });

  it('the CLI on a full disk: exit 12 (unavailable), one line (or the JSON error payload), file unchanged; then it commits', () => {
    const { human, json, unchanged, after } = report.fullCli;
    expect(human.code).toBe(FAILURES.unavailable.exit);
    expect(human.stdout).toBe('');
    expect(human.stderr).toMatch(/^bourdon: cannot [^\n]*no space left on the device \(ENOSPC\)[^\n]*\n$/);
    expect(json.code).toBe(FAILURES.unavailable.exit);
    expect(JSON.parse(json.stdout)).toEqual({
      error: expect.stringMatching(/ENOSPC/),
      agent_id: 'disk',
      mode: 'merge',
    });
    expect(unchanged).toBe(true);
    expect(after.code).toBe(0);
    expect(JSON.parse(after.stdout).version).toEqual(expect.any(Number));
    expect(report.finalHistory).toMatchObject({
      damaged: false,
      contiguous: true,
      archivesMatch: true,
      liveIsLatest: true,
      stray: [],
    });
    expect(report.names).toEqual(expect.arrayContaining(['base-0', 'base-219', 'read-write-again', 'from-cli']));
  });
});
