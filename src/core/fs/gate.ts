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
import os from 'node:os';
import path from 'node:path';
import { BourdonError, describeError } from '../errors.js';
import { crypto } from '../store/hashing.js';
import type { LibraryPaths } from '../store/library.js';
import { stderrWarn } from '../store/warn.js';

/** A lock whose holder cannot be checked is stale once its mtime is this old. */
export const STALE_MS = 30_000;
/** A live holder of the library gate refreshes the lock's mtime this often. */
const REFRESH_MS = 1_000;
/** How long a writer waits for the gate before giving up. */
const DEFAULT_GATE_TIMEOUT_MS = 60_000;

/** The owner record's file: a unique name per holder, so removing it can never hit another holder's. */
const OWNER_PATTERN = /^owner-([0-9a-f]{16,64})\.json$/;
/** The owner record of the previous build's locks (one name for every holder). */
const LEGACY_OWNER_FILE = 'owner.json';
/** After a lock's name: a temporary lock directory being built, `.<pid>.<hex>.tmp` (`.break…`: older builds). */
const TEMP_PATTERN = /^(?:\.break)?\.(\d+)\.[0-9a-f]+\.tmp$/;

interface LockOwner {
  pid: number;
  host: string;
  boot: string | null;
  /** The holder's process start time (clock ticks after boot, Linux); null where unknown. */
  start?: string | null;
  token: string;
  acquired: string;
}

export interface GateHandle {
  /** Throws when the lock was lost (broken by another process); call before irreversible steps. */
  assertHeld(): void;
}

interface GateOptions {
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

/** A process's start time from /proc (field 22 of stat, after the parenthesised name); null elsewhere. */
function processStart(pid: number | 'self'): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

let ownStart: string | null | undefined;

function ownStartTime(): string | null {
  if (ownStart === undefined) ownStart = processStart('self');
  return ownStart;
}

function newOwner(): LockOwner {
  return {
    pid: process.pid,
    host: os.hostname(),
    boot: bootId(),
    start: ownStartTime(),
    token: crypto().randomBytes(12).toString('hex'),
    acquired: new Date().toISOString(),
  };
}

const ownerFileName = (token: string) => `owner-${token}.json`;

function parseOwner(text: string): LockOwner | null {
  try {
    const parsed = JSON.parse(text) as LockOwner;
    if (parsed && typeof parsed.pid === 'number' && typeof parsed.token === 'string') return parsed;
  } catch {
    // torn or foreign: no owner
  }
  return null;
}

/** What a lock directory holds: its entries and the owner record among them, if any. */
interface LockState {
  entries: string[];
  owner: LockOwner | null;
  mtimeMs: number;
}

/** The state of a lock directory; null when there is none; 'unknown' when it cannot be read. */
export function inspect(lockDir: string): LockState | null | 'unknown' {
  let stat: fs.Stats;
  let entries: string[];
  try {
    stat = fs.statSync(lockDir);
    entries = fs.readdirSync(lockDir);
  } catch (error) {
    // Gone (released or broken meanwhile), or not readable: then it is waited out, never broken.
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : 'unknown';
  }
  let owner: LockOwner | null = null;
  for (const name of entries) {
    if (!OWNER_PATTERN.test(name) && name !== LEGACY_OWNER_FILE) continue;
    try {
      owner = parseOwner(fs.readFileSync(path.join(lockDir, name), 'utf8'));
    } catch {
      owner = null; // removed meanwhile
    }
    if (owner) break;
  }
  return { entries, owner, mtimeMs: stat.mtimeMs };
}

/** The owner record of a lock directory, or null (no lock, or one without a readable owner). */
export function readOwner(lockDir: string): LockOwner | null {
  const state = inspect(lockDir);
  return state && state !== 'unknown' ? state.owner : null;
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

/**
 * Whether an owner is known to be dead: on this host, its process is gone, its pid now belongs
 * to a process that started at another time, or it ran before the last reboot.
 */
function ownerDead(owner: LockOwner): boolean {
  if (owner.host !== os.hostname()) return false;
  const boot = bootId();
  if (owner.boot && boot && owner.boot !== boot) return true;
  if (owner.pid !== process.pid && !pidAlive(owner.pid)) return true;
  // The pid is in use: by the holder, or by a process that got the pid after the holder died.
  if (typeof owner.start !== 'string') return false;
  const start = owner.pid === process.pid ? ownStartTime() : processStart(owner.pid);
  return start !== null && start !== owner.start;
}

function isStale(state: LockState): boolean {
  if (state.owner && ownerDead(state.owner)) return true;
  return Date.now() - state.mtimeMs > STALE_MS;
}

/**
 * Takes the lock `lockDir` for `owner`: build `<lockDir>.<pid>.<hex>.tmp` with the owner record,
 * rename it into place. Returns false while another lock is there.
 */
function createLock(lockDir: string, owner: LockOwner): boolean {
  const temp = `${lockDir}.${process.pid}.${crypto().randomBytes(6).toString('hex')}.tmp`;
  fs.mkdirSync(temp);
  try {
    fs.writeFileSync(path.join(temp, ownerFileName(owner.token)), JSON.stringify(owner));
    fs.renameSync(temp, lockDir);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    fs.rmSync(temp, { recursive: true, force: true });
    if (code === 'ENOTEMPTY' || code === 'EEXIST') return false;
    throw error;
  }
}

/** Whether the lock `lockDir` still carries the record of `token`. */
function stillHeld(lockDir: string, token: string): boolean {
  try {
    fs.lstatSync(path.join(lockDir, ownerFileName(token)));
    return true;
  } catch {
    return false;
  }
}

/**
 * Removes the listed entries of `lockDir`, then the directory if that left it empty. Returns
 * false when an entry was already gone (someone else released or broke this lock first).
 * Entries are removed by name, and each owner's record has its own name, so a lock taken
 * meanwhile by another process keeps its record, and the rmdir then fails harmlessly.
 */
function removeEntries(lockDir: string, entries: readonly string[]): boolean {
  for (const name of entries) {
    try {
      fs.rmSync(path.join(lockDir, name), { recursive: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }
  try {
    fs.rmdirSync(lockDir);
  } catch (error) {
    // ENOTEMPTY/EEXIST: a new holder renamed its lock in; it stays. ENOENT: gone already.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
  }
  return true;
}

/** Releases a lock this process holds: its own record, then the directory. */
function releaseLock(lockDir: string, token: string): void {
  removeEntries(lockDir, [ownerFileName(token)]);
}

/**
 * Breaks the lock at `lockDir` when its holder is known dead or its mtime is too old. Returns
 * true when the lock is gone (broken here, or released meanwhile), so the caller retries at once.
 */
function breakIfStale(lockDir: string, warn: (message: string) => void, label: string): boolean {
  const seen = inspect(lockDir);
  if (!seen) return true;
  if (seen === 'unknown' || !isStale(seen)) return false;
  return breakLock(lockDir, seen, warn, label);
}

/**
 * Breaks the lock a waiter judged stale when it looked (`seen`), however long ago that was:
 * only the entries it saw are removed, so a lock taken since survives. Exported for the tests.
 */
export function breakLock(
  lockDir: string,
  seen: LockState,
  warn: (message: string) => void,
  label = 'library lock',
): boolean {
  if (!removeEntries(lockDir, seen.entries)) return true; // someone else broke or released it first
  const who = seen.owner ? `pid ${seen.owner.pid} on ${seen.owner.host}` : 'an unknown holder';
  warn(`recovered the ${label} ${lockDir} left by ${who}`);
  return true;
}

/** Locks this process holds (lock directory → token): released when the process exits normally. */
const heldLocks = new Map<string, string>();
let exitHookInstalled = false;

function remember(lockDir: string, token: string): void {
  heldLocks.set(lockDir, token);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // A process killed by a signal leaves its lock; the next writer on this host finds it dead.
  process.on('exit', () => {
    for (const [dir, held] of heldLocks) {
      try {
        releaseLock(dir, held);
      } catch {
        // exiting anyway; the next writer breaks it
      }
    }
  });
}

function forget(lockDir: string, token: string): void {
  if (heldLocks.get(lockDir) === token) heldLocks.delete(lockDir);
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
      throw new BourdonError(`cannot take the lock ${lockDir}: ${describeError(error)}`);
    }
    if (made) {
      remember(lockDir, owner.token);
      sweepTemporaryDirs(path.dirname(lockDir), path.basename(lockDir));
      return () => {
        forget(lockDir, owner.token);
        releaseLock(lockDir, owner.token);
      };
    }
    if (Date.now() <= deadline && breakIfStale(lockDir, warn, 'lock')) continue;
    if (Date.now() > deadline) {
      const holder = readOwner(lockDir);
      throw new BourdonError(
        `${target} is locked by ${holder ? `pid ${holder.pid} on ${holder.host}` : 'another process'}; try again`,
        'busy',
      );
    }
    Atomics.wait(pause, 0, 0, Math.min(25, 2 + attempt) + Math.floor(Math.random() * 8));
  }
}

/** Removes temporary lock directories (`<lock>.<pid>.<hex>.tmp`) left by writers that died while creating them. */
function sweepTemporaryDirs(folder: string, lockName: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(`${lockName}.`)) continue;
    const match = TEMP_PATTERN.exec(name.slice(lockName.length));
    if (!match || pidAlive(Number(match[1]))) continue;
    const full = path.join(folder, name);
    try {
      // A pid can belong to another host on a shared folder: only old leftovers go.
      if (Date.now() - fs.statSync(full).mtimeMs < STALE_MS) continue;
      fs.rmSync(full, { recursive: true, force: true });
    } catch {
      // gone meanwhile
    }
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
  const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_GATE_TIMEOUT_MS);
  const lockDir = paths.lock;
  const owner = newOwner();
  for (let attempt = 0; ; attempt++) {
    let made = false;
    try {
      // While a lock is plainly there, only check it is alive and wait: cheaper than an attempt.
      if (attempt === 0 || !fs.existsSync(lockDir)) made = createLock(lockDir, owner);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        throw new BourdonError(`library not found: ${paths.root}`, 'not_found');
      throw new BourdonError(`cannot take the library lock ${lockDir}: ${describeError(error)}`);
    }
    if (made) break;
    if (Date.now() > deadline) throw busy(paths);
    if (breakIfStale(lockDir, warn, 'library lock')) continue;
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
    assertHeld() {
      if (lost || !stillHeld(lockDir, owner.token)) {
        lost = true;
        throw new BourdonError(`lost the library lock ${lockDir} to another process; nothing was written`, 'conflict');
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
