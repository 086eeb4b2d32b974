/**
 * A lock directory and its owner record (the protocol itself: gate.ts). Taking a lock renames
 * a temporary directory holding the owner record into place; releasing and breaking remove
 * exactly the entries that were seen, then the directory; an owner is judged dead from its pid,
 * process start time and boot id on this host, or stale from the directory's mtime elsewhere.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { crypto } from '../store/hashing.js';
import { errnoOf } from '../errors.js';

/** A lock whose holder cannot be checked is stale once its mtime is this old. */
export const STALE_MS = 30_000;

/** The owner record's file: a unique name per holder, so removing it can never hit another holder's. */
const OWNER_PATTERN = /^owner-([0-9a-f]{16,64})\.json$/;
/** The owner record of the previous build's locks (one name for every holder). */
const LEGACY_OWNER_FILE = 'owner.json';
/** After a lock's name: a temporary lock directory being built, `.<pid>.<hex>.tmp` (`.break…`: older builds). */
const TEMP_PATTERN = /^(?:\.break)?\.(\d+)\.[0-9a-f]+\.tmp$/;

export interface LockOwner {
  pid: number;
  host: string;
  boot: string | null;
  /** The holder's process start time (clock ticks after boot, Linux); null where unknown. */
  start?: string | null;
  token: string;
  acquired: string;
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

export function newOwner(): LockOwner {
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
export interface LockState {
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
    return errnoOf(error) === 'ENOENT' ? null : 'unknown';
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
    return errnoOf(error) === 'EPERM';
  }
}

/**
 * Whether an owner is known to be dead: on this host, its process is gone, its pid now belongs
 * to a process that started at another time, or it ran before the last reboot.
 */
export function ownerDead(owner: LockOwner): boolean {
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
export function createLock(lockDir: string, owner: LockOwner): boolean {
  const temp = `${lockDir}.${process.pid}.${crypto().randomBytes(6).toString('hex')}.tmp`;
  fs.mkdirSync(temp);
  try {
    fs.writeFileSync(path.join(temp, ownerFileName(owner.token)), JSON.stringify(owner));
    fs.renameSync(temp, lockDir);
    return true;
  } catch (error) {
    const code = errnoOf(error);
    fs.rmSync(temp, { recursive: true, force: true });
    if (code === 'ENOTEMPTY' || code === 'EEXIST') return false;
    throw error;
  }
}

/** Whether the lock `lockDir` still carries the record of `token`. */
export function stillHeld(lockDir: string, token: string): boolean {
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
      if (errnoOf(error) === 'ENOENT') return false;
      throw error;
    }
  }
  try {
    fs.rmdirSync(lockDir);
  } catch (error) {
    // ENOTEMPTY/EEXIST: a new holder renamed its lock in; it stays. ENOENT: gone already.
    const code = errnoOf(error);
    if (code !== 'ENOENT' && code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
  }
  return true;
}

/** Releases a lock this process holds: its own record, then the directory. */
export function releaseLock(lockDir: string, token: string): void {
  removeEntries(lockDir, [ownerFileName(token)]);
}

/**
 * Breaks the lock at `lockDir` when its holder is known dead or its mtime is too old. Returns
 * true when the lock is gone (broken here, or released meanwhile), so the caller retries at once.
 */
export function breakIfStale(lockDir: string, warn: (message: string) => void, label: string): boolean {
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

export function remember(lockDir: string, token: string): void {
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

export function forget(lockDir: string, token: string): void {
  if (heldLocks.get(lockDir) === token) heldLocks.delete(lockDir);
}

/** Removes temporary lock directories (`<lock>.<pid>.<hex>.tmp`) left by writers that died while creating them. */
export function sweepTemporaryDirs(folder: string, lockName: string): void {
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
