/** The library lock as another machine's writer leaves it, and no wait for it: tests of waiting, busy and recovery. */
import fs from 'node:fs';
import path from 'node:path';
import { libraryPaths } from '../../src/core/store/library.js';

/**
 * Takes `root`'s library lock for "another machine": an owner record of pid 1 on `host`, which
 * this host cannot check, so it is live until its mtime is older than the stale age; `ageMs`
 * backdates it. Returns its removal.
 */
export function foreignLock(root: string, options: { ageMs?: number; host?: string } = {}): () => void {
  const lock = libraryPaths(root).lock;
  fs.mkdirSync(lock);
  const owner = { pid: 1, host: options.host ?? 'another-host', boot: null, token: 'foreign', acquired: '' };
  fs.writeFileSync(path.join(lock, 'owner.json'), JSON.stringify(owner));
  const when = new Date(Date.now() - (options.ageMs ?? 0));
  fs.utimesSync(lock, when, when);
  return () => fs.rmSync(lock, { recursive: true, force: true });
}

/** Runs `fn` with writes in this process not waiting for a held lock (BOURDON_LOCK_WAIT=0). */
export async function withoutLockWait(fn: () => Promise<void>): Promise<void> {
  process.env.BOURDON_LOCK_WAIT = '0';
  try {
    await fn();
  } finally {
    delete process.env.BOURDON_LOCK_WAIT;
  }
}
