/**
 * The library write gate (spec §9): writers wait for a live holder, recover a lock whose
 * holder is dead (at once on this host, by age otherwise), give up with one clear line when
 * the library stays busy, and concurrent writers in one process lose nothing.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commitToFederation } from './helpers/write-calls.js';
import { createContext } from '../src/core/context.js';
import { breakLock, inspect, lockWaitMs, STALE_MS, withLibraryGate } from '../src/core/fs/gate.js';
import { readHistory } from '../src/core/writes/history.js';
import { LibraryStore, libraryPaths } from '../src/core/store/library.js';
import { REPO_ROOT, tempDir } from './helpers/fixtures.js';
import { foreignLock, withoutLockWait } from './helpers/foreign-lock.js';

const cleanup: string[] = [];
afterAll(() => {
  for (const dir of cleanup) fs.rmSync(dir, { recursive: true, force: true });
});

function library(): string {
  const root = tempDir('bourdon-gate-');
  cleanup.push(root);
  fs.mkdirSync(path.join(root, 'agents'));
  return root;
}

function context(root: string) {
  return createContext(new LibraryStore(root, { warn: () => {} }), { warn: () => {}, env: {} });
}

describe('the library write gate', () => {
  it('waits for a live holder in another process, then writes', async () => {
    const root = library();
    const markerDir = tempDir('bourdon-gate-marker-');
    cleanup.push(markerDir);
    const marker = path.join(markerDir, 'holder-done');
    const holder = spawn(
      process.execPath,
      [path.join(REPO_ROOT, 'test', 'helpers', 'gate-holder.mjs'), REPO_ROOT, root, '700', marker],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    holder.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise((resolve) => holder.on('close', resolve));
    while (!out.includes('held')) await new Promise((resolve) => setTimeout(resolve, 5));
    const payload = await commitToFederation(context(root), {
      agent_id: 'a',
      agent_type: 'other',
      entities: [{ name: 'x' }],
    });
    await exited;
    expect(payload.version).toBe(1);
    expect(out).toContain('released');
    // It did wait for the holder: the holder's last act under the gate came before the write.
    const written = fs.statSync(path.join(root, 'agents', 'a.l5.yaml')).mtimeMs;
    expect(written).toBeGreaterThanOrEqual(fs.statSync(marker).mtimeMs);
  });

  it('gives up with one clear line while a live foreign holder keeps the lock', async () => {
    const root = library();
    foreignLock(root);
    await expect(
      withLibraryGate(libraryPaths(root), () => 'never', { timeoutMs: 200, warn: () => {} }),
    ).rejects.toThrow(/^the library is busy: pid 1 on another-host holds .*\.bourdon\.lock; try again$/);
    expect(fs.existsSync(path.join(root, 'agents', 'a.l5.yaml'))).toBe(false);
  });

  it('recovers a lock nobody refreshed for longer than the stale age', async () => {
    const root = library();
    foreignLock(root, { ageMs: STALE_MS + 5_000 });
    const warnings: string[] = [];
    const result = await withLibraryGate(libraryPaths(root), () => 'ran', {
      timeoutMs: 2_000,
      warn: (m) => warnings.push(m),
    });
    expect(result).toBe('ran');
    expect(warnings.join('\n')).toMatch(/recovered the library lock .* left by pid 1 on another-host/);
    expect(fs.existsSync(libraryPaths(root).lock)).toBe(false);
  });

  it('recovers a lock left by a dead process on this host at once', async () => {
    const root = library();
    const lock = libraryPaths(root).lock;
    fs.mkdirSync(lock);
    // A pid that cannot be alive: beyond Linux's pid_max.
    fs.writeFileSync(
      path.join(lock, 'owner.json'),
      JSON.stringify({
        pid: 2 ** 22 + 17,
        host: (await import('node:os')).hostname(),
        boot: null,
        token: 't',
        acquired: '',
      }),
    );
    // No wait at all (0 tries once): it succeeds only if the dead holder's lock is taken over at once.
    expect(await withLibraryGate(libraryPaths(root), () => 'ran', { timeoutMs: 0, warn: () => {} })).toBe('ran');
  });

  it('BOURDON_LOCK_WAIT: seconds to wait (0 tries once), a dead holder recovered even then, a bad value warned once', async () => {
    expect(lockWaitMs({})).toBe(60_000);
    expect(lockWaitMs({ BOURDON_LOCK_WAIT: ' ' })).toBe(60_000);
    expect(lockWaitMs({ BOURDON_LOCK_WAIT: '0.5' })).toBe(500);
    expect(lockWaitMs({ BOURDON_LOCK_WAIT: '0' })).toBe(0);
    const warnings: string[] = [];
    for (const raw of ['soon', 'soon', '-1']) lockWaitMs({ BOURDON_LOCK_WAIT: raw }, (m) => warnings.push(m));
    expect(warnings).toEqual([
      'ignoring BOURDON_LOCK_WAIT="soon": expected seconds (like 5 or 0.5); waiting 60 s',
      'ignoring BOURDON_LOCK_WAIT="-1": expected seconds (like 5 or 0.5); waiting 60 s',
    ]);

    await withoutLockWait(async () => {
      const live = library();
      foreignLock(live);
      await expect(withLibraryGate(libraryPaths(live), () => 'never', { warn: () => {} })).rejects.toThrow(
        /^the library is busy: pid 1 on another-host/,
      );
      const dead = library();
      foreignLock(dead, { ageMs: STALE_MS + 5_000 });
      expect(await withLibraryGate(libraryPaths(dead), () => 'ran', { warn: () => {} })).toBe('ran');
    });
  });

  it('serialises concurrent writers in one process without losing a row', async () => {
    const root = library();
    const ctx = context(root);
    await commitToFederation(ctx, { agent_id: 'many', agent_type: 'other' });
    const payloads = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        commitToFederation(ctx, { agent_id: 'many', entities: [{ name: `row-${i}` }] }),
      ),
    );
    expect(payloads.map((p) => p.version).sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 2),
    );
    const record = ctx.store.snapshot().byId.get('many')!;
    expect(record.entities).toHaveLength(20);
    expect(readHistory(ctx.store.paths, 'many').records).toHaveLength(21);
  });

  it('refuses to write through a symbolic link', async () => {
    const root = library();
    const outside = path.join(tempDir('bourdon-outside-'), 'target.yaml');
    cleanup.push(path.dirname(outside));
    fs.writeFileSync(outside, 'untouched\n');
    fs.symlinkSync(outside, path.join(root, 'agents', 'linked.l5.yaml'));
    for (const mode of ['merge', 'replace']) {
      const payload = await commitToFederation(context(root), { agent_id: 'linked', agent_type: 'other', mode });
      expect(payload.error).toMatch(/refusing to write through the symbolic link/);
    }
    expect(fs.readFileSync(outside, 'utf8')).toBe('untouched\n');
  });

  it('recovers at once a lock whose pid now belongs to another process (started at another time)', async () => {
    const root = library();
    const lock = libraryPaths(root).lock;
    const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      fs.mkdirSync(lock);
      // The dead holder's record: the sleeper's pid, but a start time the sleeper does not have.
      const token = 'ab'.repeat(12);
      fs.writeFileSync(
        path.join(lock, `owner-${token}.json`),
        JSON.stringify({ pid: sleeper.pid, host: os.hostname(), boot: null, start: '1', token, acquired: '' }),
      );
      const warnings: string[] = [];
      // No wait (0 tries once): only an at-once recovery of the dead holder's lock lets it run.
      const result = await withLibraryGate(libraryPaths(root), () => 'ran', {
        timeoutMs: 0,
        warn: (m) => warnings.push(m),
      });
      expect(result).toBe('ran');
      expect(warnings.join('\n')).toContain(`left by pid ${sleeper.pid}`);
    } finally {
      sleeper.kill('SIGKILL');
    }
  });

  it('two waiters breaking the same dead lock never remove the lock a third took meanwhile', async () => {
    const root = library();
    const paths = libraryPaths(root);
    const token = 'cd'.repeat(12);
    fs.mkdirSync(paths.lock);
    fs.writeFileSync(
      path.join(paths.lock, `owner-${token}.json`),
      JSON.stringify({ pid: 2 ** 22 + 17, host: os.hostname(), boot: null, token, acquired: '' }),
    );
    // Both waiters looked and judged it dead; the second one is slow to act.
    const first = inspect(paths.lock);
    const second = inspect(paths.lock);
    if (!first || first === 'unknown' || !second || second === 'unknown') throw new Error('no lock to inspect');
    expect(breakLock(paths.lock, first, () => {})).toBe(true);
    await withLibraryGate(
      paths,
      (gate) => {
        // The slow waiter acts on what it saw before this holder took the lock.
        expect(breakLock(paths.lock, second, () => {})).toBe(true);
        expect(() => gate.assertHeld()).not.toThrow();
        expect(fs.readdirSync(paths.lock)).toHaveLength(1);
      },
      { timeoutMs: 2_000, warn: () => {} },
    );
    expect(fs.existsSync(paths.lock)).toBe(false);
  });

  it('a holder whose lock was broken notices, and its release leaves the new lock alone', async () => {
    const root = library();
    const paths = libraryPaths(root);
    const foreign = path.join(paths.lock, `owner-${'ef'.repeat(12)}.json`);
    await expect(
      withLibraryGate(
        paths,
        (gate) => {
          fs.rmSync(paths.lock, { recursive: true });
          fs.mkdirSync(paths.lock);
          fs.writeFileSync(
            foreign,
            JSON.stringify({ pid: 1, host: 'another-host', boot: null, token: 'ef', acquired: '' }),
          );
          gate.assertHeld();
        },
        { warn: () => {} },
      ),
    ).rejects.toThrow(/^lost the library lock .*; nothing was written$/);
    expect(fs.existsSync(foreign)).toBe(true);
  });

  it('a holder that exits while holding the gate releases it', async () => {
    const root = library();
    const script = [
      `const { withLibraryGate } = await import(${JSON.stringify(path.join(REPO_ROOT, 'dist/core/fs/gate.js'))});`,
      `const { libraryPaths } = await import(${JSON.stringify(path.join(REPO_ROOT, 'dist/core/store/library.js'))});`,
      `await withLibraryGate(libraryPaths(${JSON.stringify(root)}), () => process.exit(0));`,
    ].join('\n');
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'inherit' });
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(fs.existsSync(libraryPaths(root).lock)).toBe(false);
  });
});
