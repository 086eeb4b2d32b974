/** `bourdon doctor` checks the sync remote: git present, the remote reachable and writable. */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FAILURES } from '../src/core/errors.js';
import { bareRemote, makeMachine } from './helpers/sync.js';

interface Report {
  checks: { id: string; verdict: string; summary: string }[];
}

const syncCheck = (report: Report) => report.checks.find((check) => check.id === 'sync');

describe('doctor: the sync remote', () => {
  it('is reported when set up: reachable and writable, then unreachable once it is gone', async () => {
    const laptop = makeMachine('laptop');
    const unset = await laptop.run(['doctor', '--json', '--offline']);
    expect(syncCheck(JSON.parse(unset.stdout))).toMatchObject({
      verdict: 'info',
      summary: expect.stringMatching(/not set up/),
    });

    const remote = bareRemote();
    expect((await laptop.run(['sync', 'init', remote])).code).toBe(0);
    const ok = JSON.parse((await laptop.run(['doctor', '--json'])).stdout) as Report;
    expect(syncCheck(ok)).toMatchObject({ verdict: 'ok', summary: expect.stringMatching(/reachable; writable/) });

    fs.chmodSync(`${remote}/objects`, 0o555);
    try {
      if (process.getuid?.() !== 0) {
        const readOnly = JSON.parse((await laptop.run(['doctor', '--json'])).stdout) as Report;
        expect(syncCheck(readOnly)).toMatchObject({ verdict: 'fail', summary: expect.stringMatching(/not writable/) });
      }
    } finally {
      fs.chmodSync(`${remote}/objects`, 0o755);
    }

    fs.renameSync(remote, `${remote}.moved`);
    const gone = await laptop.run(['doctor', '--json']);
    expect(gone.code).toBe(1);
    expect(syncCheck(JSON.parse(gone.stdout))).toMatchObject({
      verdict: 'fail',
      summary: expect.stringMatching(/cannot reach/),
    });
  });

  it('init refuses an unreachable remote or one with credentials in it, and records nothing', async () => {
    const laptop = makeMachine('laptop');
    const missing = await laptop.run(['sync', 'init', '/nonexistent/remote.git']);
    expect(missing.code).toBe(FAILURES.unavailable.exit);
    expect(missing.stderr).toMatch(/cannot reach the remote .*nothing was recorded/);
    const secret = await laptop.run(['sync', 'init', 'https://me:ghp_secret123@example.com/team.git']);
    expect(secret.code).toBe(2);
    expect(secret.stderr).not.toContain('ghp_secret123');
    const push = await laptop.run(['sync', 'push']);
    expect(push.code).toBe(FAILURES.not_found.exit);
    expect(push.stderr).toMatch(/no sync remote .* run `bourdon sync init <remote>` first/);
  });
});
