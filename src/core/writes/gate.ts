/**
 * The library write gate (spec §9). Every write to the library (commit, staging, promote,
 * rollback) holds it; readers never take it.
 *
 * The gate is a `proper-lockfile` lock on the library root whose lock directory is
 * `<library>/.bourdon.lock`. Two things are added to proper-lockfile's mkdir lock:
 *
 * - **An owner record inside the lock directory** (`owner.json`: pid, host, boot id, a random
 *   token). The directory is built under a temporary name with the record already in it and
 *   renamed into place, so a lock never exists without its owner. proper-lockfile only goes
 *   through the `fs` it is handed, so it keeps its own semantics (atomic acquire, mtime
 *   refresh, compromise detection).
 * - **Fast stale-lock recovery.** A waiter that finds the lock held checks the owner: a holder
 *   on this host whose process is gone (or that ran before the last reboot) is dead, and its
 *   lock is removed at once. A lock whose owner cannot be checked (another host, a reused pid)
 *   is stale once its mtime, refreshed every second by a live holder, is older than
 *   STALE_MS. Removing a stale lock happens under a second short-lived gate
 *   (`.bourdon.lock.break`), and only after re-checking that the same dead owner still holds
 *   it, so two waiters never both break it and no live lock is removed.
 *
 * Within one process, holders queue on a promise chain, so a server handling several writes
 * at once does not spin against itself.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { BourdonError, describeError } from '../errors.js';
import type { LibraryPaths } from '../store/library.js';

/** A lock whose holder cannot be checked is stale once its mtime is this old. */
export const STALE_MS = 30_000;
/** A live holder refreshes the lock's mtime this often (proper-lockfile's update). */
const UPDATE_MS = 1_000;
/** A break gate older than this is abandoned (breaking takes a few system calls). */
const BREAK_STALE_MS = 10_000;
/** How long a writer waits for the gate before giving up. */
export const DEFAULT_GATE_TIMEOUT_MS = 60_000;
/** proper-lockfile's own mtime staleness is disabled: staleness is decided here. */
const NEVER_STALE_MS = 365 * 24 * 3600 * 1000;

const OWNER_FILE = 'owner.json';
const TEMP_PATTERN = /^\.bourdon\.lock(?:\.break)?\.(\d+)\.[0-9a-f]+\.tmp$/;

export interface LockOwner {
  pid: number;
  host: string;
  boot: string | null;
  token: string;
  acquired: string;
}

export interface GateHandle {
  /** Throws when the lock was lost (broken by another process); call before irreversible steps. */
  assertHeld(): void;
}

export interface GateOptions {
  timeoutMs?: number;
  warn?: (message: string) => void;
}

let bootIdCache: string | null | undefined;

function bootId(): string | null {
  if (bootIdCache === undefined) {
    try {
      bootIdCache = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
    } catch {
      bootIdCache = null;
    }
  }
  return bootIdCache;
}

function newOwner(): LockOwner {
  return {
    pid: process.pid,
    host: os.hostname(),
    boot: bootId(),
    token: crypto.randomBytes(12).toString('hex'),
    acquired: new Date().toISOString(),
  };
}

export function readOwner(lockDir: string): LockOwner | null {
  try {
    const parsed = JSON.parse(fs.readFileSync(path.join(lockDir, OWNER_FILE), 'utf8')) as LockOwner;
    if (parsed && typeof parsed.pid === 'number' && typeof parsed.token === 'string') return parsed;
  } catch {
    // absent (being created or removed) or unreadable: the caller falls back on mtime
  }
  return null;
}

function pidAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether an owner is known to be dead: same host, and its process is gone or predates a reboot. */
function ownerDead(owner: LockOwner): boolean {
  if (owner.host !== os.hostname()) return false;
  const boot = bootId();
  if (owner.boot && boot && owner.boot !== boot) return true;
  return !pidAlive(owner.pid);
}

interface LockState {
  owner: LockOwner | null;
  mtimeMs: number;
}

function inspect(lockDir: string): LockState | null {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(lockDir);
  } catch {
    return null;
  }
  return { owner: readOwner(lockDir), mtimeMs: stat.mtimeMs };
}

function isStale(state: LockState, maxAgeMs: number): boolean {
  if (state.owner && ownerDead(state.owner)) return true;
  return Date.now() - state.mtimeMs > maxAgeMs;
}

/**
 * Creates `dir` atomically with an owner record inside: build under a temporary name, then
 * rename. Returns false when `dir` already exists (held).
 */
function createOwnedDir(dir: string, owner: LockOwner): boolean {
  const temp = `${dir}.${process.pid}.${crypto.randomBytes(6).toString('hex')}.tmp`;
  fs.mkdirSync(temp);
  try {
    fs.writeFileSync(path.join(temp, OWNER_FILE), JSON.stringify(owner));
    fs.renameSync(temp, dir);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    removeDir(temp);
    if (code === 'ENOTEMPTY' || code === 'EEXIST') return false;
    throw error;
  }
}

/** Removes a lock directory, but only when it still carries `token` (never someone else's). */
function removeOwnedDir(dir: string, token: string | null): void {
  if (token !== null) {
    const owner = readOwner(dir);
    if (!owner || owner.token !== token) return;
  }
  removeDir(dir);
}

function removeDir(dir: string): void {
  try {
    fs.unlinkSync(path.join(dir, OWNER_FILE));
  } catch {
    // already gone
  }
  try {
    fs.rmdirSync(dir);
  } catch (error) {
    // ENOTEMPTY: a new holder renamed its lock in after the record was removed; it stays.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
  }
}

/** Tokens of the locks this process holds, by lock directory (for release and exit). */
const heldTokens = new Map<string, string>();

type Callback = (error: NodeJS.ErrnoException | null, result?: unknown) => void;

/**
 * The `fs` proper-lockfile works through: mkdir builds the directory with its owner record,
 * rmdir removes it only while it is still ours. Everything else is plain `fs`.
 */
const gateFs = {
  ...fs,
  mkdir(dir: string, callback: Callback) {
    try {
      const owner = newOwner();
      if (!createOwnedDir(dir, owner)) {
        callback(Object.assign(new Error(`${dir} exists`), { code: 'EEXIST' }));
        return;
      }
      heldTokens.set(dir, owner.token);
      callback(null);
    } catch (error) {
      callback(error as NodeJS.ErrnoException);
    }
  },
  rmdir(dir: string, callback: Callback) {
    try {
      gateFs.rmdirSync(dir);
      callback(null);
    } catch (error) {
      callback(error as NodeJS.ErrnoException);
    }
  },
  rmdirSync(dir: string) {
    const token = heldTokens.get(dir) ?? null;
    heldTokens.delete(dir);
    if (token !== null) removeOwnedDir(dir, token);
  },
};

/** Per-process queue: one holder per lock directory at a time within this process. */
const localQueues = new Map<string, Promise<void>>();

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Removes the lock directory `lockDir` when its holder is known dead or its mtime is too old,
 * under the break gate (`<lockDir>.break`) and after re-checking it is still the same lock.
 * Returns true when the lock is gone (removed here, or released meanwhile), so the caller
 * retries at once.
 */
function breakIfStale(lockDir: string, warn: (message: string) => void, label = 'library lock'): boolean {
  const seen = inspect(lockDir);
  if (!seen) return true;
  if (!isStale(seen, STALE_MS)) return false;
  const breakDir = `${lockDir}.break`;
  const breaker = newOwner();
  if (!createOwnedDir(breakDir, breaker)) {
    const other = inspect(breakDir);
    if (other && isStale(other, BREAK_STALE_MS)) removeOwnedDir(breakDir, other.owner?.token ?? null);
    return false;
  }
  try {
    const now = inspect(lockDir);
    if (!now) return true;
    const same = (now.owner?.token ?? null) === (seen.owner?.token ?? null);
    if (!same || !isStale(now, STALE_MS)) return false;
    removeOwnedDir(lockDir, now.owner?.token ?? null);
    const who = now.owner ? `pid ${now.owner.pid} on ${now.owner.host}` : 'an unknown holder';
    warn(`recovered the ${label} ${lockDir} left by ${who}`);
    return true;
  } finally {
    removeOwnedDir(breakDir, breaker.token);
  }
}

/**
 * A synchronous lock for files rewritten in one quick step (the member registry, the peers
 * file): the lock directory `<target>.lock`, created with the same owner record as the library
 * gate (built under a temporary name and renamed into place, so it never exists without its
 * owner), so a holder that died — a SIGKILLed `bourdon agent add` — is recovered at once
 * instead of locking every admin command out until its lock goes stale. Waits up to
 * `timeoutMs`, then fails with one line. Returns the release function.
 */
export function lockFileSync(
  target: string,
  options: { timeoutMs?: number; warn?: (message: string) => void } = {},
): () => void {
  const lockDir = `${target}.lock`;
  const warn = options.warn ?? ((message: string) => process.stderr.write(`bourdon: warning: ${message}\n`));
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let attempt = 0; ; attempt++) {
    const owner = newOwner();
    let made: boolean;
    try {
      made = createOwnedDir(lockDir, owner);
    } catch (error) {
      throw new BourdonError(`cannot take the lock ${lockDir}: ${describeError(error)}`);
    }
    if (made) return () => removeOwnedDir(lockDir, owner.token);
    if (breakIfStale(lockDir, warn, 'lock')) continue;
    if (Date.now() > deadline) {
      const holder = inspect(lockDir)?.owner;
      throw new BourdonError(
        `${target} is locked by ${holder ? `pid ${holder.pid} on ${holder.host}` : 'another process'}; try again`,
      );
    }
    Atomics.wait(pause, 0, 0, Math.min(25, 2 + attempt) + Math.floor(Math.random() * 8));
  }
}

/** Removes temporary lock directories left by writers that died while creating them. */
function sweepTemporaryDirs(paths: LibraryPaths): void {
  let names: string[];
  try {
    names = fs.readdirSync(paths.root);
  } catch {
    return;
  }
  for (const name of names) {
    const match = TEMP_PATTERN.exec(name);
    if (!match || pidAlive(Number(match[1]))) continue;
    const full = path.join(paths.root, name);
    try {
      // A pid can belong to another host on a shared folder: only old leftovers go.
      if (Date.now() - fs.statSync(full).mtimeMs < STALE_MS) continue;
      fs.rmSync(full, { recursive: true, force: true });
    } catch {
      // gone meanwhile
    }
  }
}

function holderDescription(paths: LibraryPaths): string {
  const state = inspect(paths.lock);
  if (!state?.owner) return 'another process';
  return `pid ${state.owner.pid} on ${state.owner.host}`;
}

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
  const warn = options.warn ?? ((message: string) => process.stderr.write(`bourdon: warning: ${message}\n`));
  const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_GATE_TIMEOUT_MS);
  let compromised: Error | null = null;
  let release: (() => Promise<void>) | null = null;
  for (let attempt = 0; release === null; attempt++) {
    // While the lock is plainly held, only check it is alive and wait: cheaper than an attempt.
    if (attempt > 0 && fs.existsSync(paths.lock) && !breakIfStale(paths.lock, warn)) {
      if (Date.now() > deadline) {
        throw new BourdonError(`the library is busy: ${holderDescription(paths)} holds ${paths.lock}; try again`);
      }
      await sleep(Math.min(25, 2 + attempt) + Math.random() * 8);
      continue;
    }
    try {
      release = await lockfile.lock(paths.root, {
        lockfilePath: paths.lock,
        realpath: false,
        stale: NEVER_STALE_MS,
        update: UPDATE_MS,
        retries: 0,
        fs: gateFs,
        onCompromised: (error) => {
          compromised = error;
        },
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new BourdonError(`library not found: ${paths.root}`);
      if (code !== 'ELOCKED')
        throw new BourdonError(`cannot take the library lock ${paths.lock}: ${describeError(error)}`);
      if (breakIfStale(paths.lock, warn)) continue;
      if (Date.now() > deadline) {
        throw new BourdonError(`the library is busy: ${holderDescription(paths)} holds ${paths.lock}; try again`);
      }
      // Short polls: a holder keeps the gate for milliseconds, and a long sleep leaves it idle.
      await sleep(Math.min(25, 2 + attempt) + Math.random() * 8);
    }
  }
  const token = heldTokens.get(paths.lock) ?? null;
  const handle: GateHandle = {
    assertHeld() {
      const owner = readOwner(paths.lock);
      if (compromised || !owner || owner.token !== token) {
        throw new BourdonError(`lost the library lock ${paths.lock} to another process; nothing was written`);
      }
    },
  };
  try {
    sweepTemporaryDirs(paths);
    return await fn(handle);
  } finally {
    try {
      await release();
    } catch (error) {
      // ERELEASED/ENOTACQUIRED after a compromise: the lock is no longer ours to remove.
      if (!compromised) warn(`could not release ${paths.lock}: ${describeError(error)}`);
      heldTokens.delete(paths.lock);
    }
  }
}
