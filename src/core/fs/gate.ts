/**
 * The library write gate (spec §9) and the small locks of the config files. Every write to the
 * library (commit, staging, promote, rollback) holds the gate; readers never take it. The
 * protocol is owned here, in full (docs/writes.md, "The lock protocol"):
 *
 * - **A lock is a directory** (`<library>/.bourdon.lock`; `<file>.lock` for the registry and
 *   the peers file) holding one owner record, `owner-<token>.json` (pid, process start time,
 *   host, boot id, a random token). It is built under a temporary name with the record in it
 *   and renamed into place: rename fails while a lock is there, so taking it is atomic, and a
 *   lock never exists without its owner.
 * - **A holder of the library gate refreshes the directory's mtime every second**, and checks
 *   that its own record is still there (`assertHeld` before irreversible steps).
 * - **Release**: unlink the own record, then rmdir.
 * - **Stale locks.** A waiter that finds a lock checks its owner: on this host, a holder whose
 *   process is gone, whose pid now belongs to a process started at another time, or that ran
 *   before the last reboot is dead, and its lock is broken at once. An owner that cannot be
 *   checked (another host) is stale once the mtime is older than STALE_MS.
 * - **Breaking removes exactly what was judged stale**: the waiter unlinks the entries it saw
 *   (the dead owner's record has a name no other owner has), then rmdir, which only removes an
 *   empty directory. Two waiters breaking the same lock cannot both succeed (the second unlink
 *   finds nothing), and a lock taken in the meantime carries another record, so it survives:
 *   no live lock is ever removed.
 *
 * Within one process, holders of the gate queue on a promise chain, so a server handling
 * several writes at once does not spin against itself.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BourdonError, describeError, errnoOf } from '../errors.js';
import type { LibraryPaths } from '../store/library.js';
import { stderrWarn } from '../store/warn.js';
import {
  breakIfStale,
  createLock,
  forget,
  newOwner,
  readOwner,
  releaseLock,
  remember,
  stillHeld,
  sweepTemporaryDirs,
} from './lock-dir.js';

export { breakLock, inspect, readOwner, STALE_MS } from './lock-dir.js';

/** A live holder of the library gate refreshes the lock's mtime this often. */
const REFRESH_MS = 1_000;
/** How long a writer waits for the gate before giving up, when BOURDON_LOCK_WAIT does not say. */
const DEFAULT_LOCK_WAIT_SECONDS = 60;
const warnedLockWaits = new Set<string>();

/**
 * How long a write waits for another writer's library lock before it fails `busy`, in ms:
 * BOURDON_LOCK_WAIT (seconds, 0 = try once) or 60 s. A script that would rather retry itself
 * sets it low; a value that is not a number is warned about once and the default used.
 */
export function lockWaitMs(
  env: Readonly<Record<string, string | undefined>> = process.env,
  warn: (message: string) => void = stderrWarn,
): number {
  const raw = env.BOURDON_LOCK_WAIT;
  if (raw === undefined || raw.trim() === '') return DEFAULT_LOCK_WAIT_SECONDS * 1000;
  if (!/^\s*\d+(?:\.\d+)?\s*$/.test(raw)) {
    if (!warnedLockWaits.has(raw)) {
      warnedLockWaits.add(raw);
      warn(`ignoring BOURDON_LOCK_WAIT=${JSON.stringify(raw)}: expected seconds (like 5 or 0.5); waiting 60 s`);
    }
    return DEFAULT_LOCK_WAIT_SECONDS * 1000;
  }
  return Math.round(Number(raw) * 1000);
}

export interface GateHandle {
  /** Throws when the lock was lost (broken by another process); call before irreversible steps. */
  assertHeld(): void;
  /** The lock and this holder's token: a worker thread of the holder checks the lock with them. */
  readonly held: HeldLock;
}

/** Which lock a holder holds, as plain data (it crosses to a worker thread). */
export interface HeldLock {
  lockDir: string;
  token: string;
}

function lostLock(lockDir: string): BourdonError {
  return new BourdonError(`lost the library lock ${lockDir} to another process; nothing was written`, 'conflict');
}

/**
 * A gate handle for code that runs for the holder elsewhere (its worker thread): the same check
 * that the holder's owner record is still in the lock. The holder keeps refreshing the lock and
 * releases it only once that code has answered.
 */
export function heldGateHandle(held: HeldLock): GateHandle {
  return {
    held,
    assertHeld() {
      if (!stillHeld(held.lockDir, held.token)) throw lostLock(held.lockDir);
    },
  };
}

interface GateOptions {
  timeoutMs?: number;
  warn?: (message: string) => void;
}

/**
 * A synchronous lock for files rewritten in one quick step (the member registry, the peers
 * file): the lock directory `<target>.lock`, the same protocol as the library gate without the
 * mtime refresh (it is held for milliseconds), so a holder that died — a SIGKILLed
 * `bourdon agent add` — is recovered at once. Waits up to `timeoutMs`, then fails with one
 * line. Returns the release function.
 */
export function lockFileSync(
  target: string,
  options: { timeoutMs?: number; warn?: (message: string) => void } = {},
): () => void {
  const lockDir = `${target}.lock`;
  const warn = options.warn ?? stderrWarn;
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let attempt = 0; ; attempt++) {
    const owner = newOwner();
    let made: boolean;
    try {
      made = createLock(lockDir, owner);
    } catch (error) {
      throw new BourdonError(`cannot take the lock ${lockDir}: ${describeError(error)}`, 'unavailable');
    }
    if (made) {
      remember(lockDir, owner.token);
      sweepTemporaryDirs(path.dirname(lockDir), path.basename(lockDir));
      return () => {
        forget(lockDir, owner.token);
        releaseLock(lockDir, owner.token);
      };
    }
    // A dead holder's lock is recovered even when no wait is allowed (a timeout of 0), as the gate does.
    if (breakIfStale(lockDir, warn, 'lock')) continue;
    if (Date.now() >= deadline) {
      const holder = readOwner(lockDir);
      throw new BourdonError(
        `${target} is locked by ${holder ? `pid ${holder.pid} on ${holder.host}` : 'another process'}; try again`,
        'busy',
      );
    }
    Atomics.wait(pause, 0, 0, Math.min(25, 2 + attempt) + Math.floor(Math.random() * 8));
  }
}

function busy(paths: LibraryPaths): BourdonError {
  const owner = readOwner(paths.lock);
  const holder = owner ? `pid ${owner.pid} on ${owner.host}` : 'another process';
  return new BourdonError(`the library is busy: ${holder} holds ${paths.lock}; try again`, 'busy');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Per-process queue: one holder per lock directory at a time within this process. */
const localQueues = new Map<string, Promise<void>>();

/**
 * Runs `fn` while holding the library write gate. Waits (with jitter) while another process
 * holds it, recovers a lock whose holder died, and gives up with a one-line error after the
 * timeout. `fn` gets a handle to check the lock is still held before irreversible steps.
 */
export async function withLibraryGate<T>(
  paths: LibraryPaths,
  fn: (gate: GateHandle) => T | Promise<T>,
  options: GateOptions = {},
): Promise<T> {
  const previous = localQueues.get(paths.lock) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => (done = resolve));
  const chained = previous.then(() => mine);
  localQueues.set(paths.lock, chained);
  await previous;
  try {
    return await holdGate(paths, fn, options);
  } finally {
    done();
    if (localQueues.get(paths.lock) === chained) localQueues.delete(paths.lock);
  }
}

async function holdGate<T>(
  paths: LibraryPaths,
  fn: (gate: GateHandle) => T | Promise<T>,
  options: GateOptions,
): Promise<T> {
  const warn = options.warn ?? stderrWarn;
  const deadline = Date.now() + (options.timeoutMs ?? lockWaitMs(process.env, warn));
  const lockDir = paths.lock;
  const owner = newOwner();
  for (let attempt = 0; ; attempt++) {
    let made = false;
    try {
      // While a lock is plainly there, only check it is alive and wait: cheaper than an attempt.
      if (attempt === 0 || !fs.existsSync(lockDir)) made = createLock(lockDir, owner);
    } catch (error) {
      if (errnoOf(error) === 'ENOENT') throw new BourdonError(`library not found: ${paths.root}`, 'not_found');
      throw new BourdonError(`cannot take the library lock ${lockDir}: ${describeError(error)}`, 'unavailable');
    }
    if (made) break;
    // A dead holder's lock is recovered even when no wait is allowed (BOURDON_LOCK_WAIT=0).
    if (breakIfStale(lockDir, warn, 'library lock')) continue;
    if (Date.now() >= deadline) throw busy(paths);
    // Short polls: a holder keeps the gate for milliseconds, and a long sleep leaves it idle.
    await sleep(Math.min(25, 2 + attempt) + Math.random() * 8);
  }
  remember(lockDir, owner.token);
  let lost = false;
  const refresh = setInterval(() => {
    if (!stillHeld(lockDir, owner.token)) {
      lost = true;
      return;
    }
    try {
      const now = new Date();
      fs.utimesSync(lockDir, now, now);
    } catch {
      // gone meanwhile: the next refresh or assertHeld sees it
    }
  }, REFRESH_MS);
  refresh.unref();
  const handle: GateHandle = {
    held: { lockDir, token: owner.token },
    assertHeld() {
      if (lost || !stillHeld(lockDir, owner.token)) {
        lost = true;
        throw lostLock(lockDir);
      }
    },
  };
  try {
    sweepTemporaryDirs(paths.root, path.basename(lockDir));
    return await fn(handle);
  } finally {
    clearInterval(refresh);
    forget(lockDir, owner.token);
    try {
      releaseLock(lockDir, owner.token);
    } catch (error) {
      warn(`could not release ${lockDir}: ${describeError(error)}`);
    }
  }
}
