/**
 * One watch per library: the lock folder `.bourdon-watch.lock` at the library's root (the lock
 * protocol of core/fs/lock-dir.ts: an owner record renamed into place), held while the watch
 * runs and released when it stops, however it stops but by SIGKILL; a lock whose holder is dead
 * (this host: its pid gone or reused, or an earlier boot) is taken over with one warning. And
 * the status it keeps beside it (`.bourdon-watch.json`, read by doctor and the page through
 * core/store/watch-status.ts), rewritten whole, durably, after every event.
 */
import os from 'node:os';
import { BourdonError } from '../core/errors.js';
import { writeFileDurably } from '../core/fs/atomic.js';
import {
  breakLock,
  createLock,
  forget,
  inspect,
  newOwner,
  ownerDead,
  releaseLock,
  remember,
} from '../core/fs/lock-dir.js';
import { watchLockPath, watchStatusPath, type WatchAgentRecord, type WatchStatus } from '../core/store/watch-status.js';

export interface WatchClaim {
  release(): void;
}

/**
 * Takes this library's watch lock, or refuses in one line naming the watch that holds it
 * (`busy`). `warn` hears of a dead holder's lock taken over.
 */
export function claimWatch(libraryRoot: string, warn: (message: string) => void): WatchClaim {
  const lockDir = watchLockPath(libraryRoot);
  const owner = newOwner();
  for (let attempt = 0; attempt < 3; attempt++) {
    if (createLock(lockDir, owner)) {
      remember(lockDir, owner.token);
      return {
        release() {
          forget(lockDir, owner.token);
          releaseLock(lockDir, owner.token);
        },
      };
    }
    const seen = inspect(lockDir);
    if (seen === null) continue; // released meanwhile
    if (seen !== 'unknown' && (!seen.owner || ownerDead(seen.owner))) {
      breakLock(lockDir, seen, warn, 'watch lock');
      continue;
    }
    const holder = seen === 'unknown' ? null : seen.owner;
    const who = holder
      ? `pid ${holder.pid}${holder.host === os.hostname() ? '' : ` on ${holder.host}`}, since ${holder.acquired}`
      : `its lock ${lockDir} cannot be read`;
    throw new BourdonError(`a watch is already running on this library (${who}); stop it first`, 'busy');
  }
  throw new BourdonError(`could not take the watch lock ${lockDir}; try again`, 'busy');
}

/** The status a running watch keeps, written after each change to it. */
export class StatusFile {
  private status: {
    pid: number;
    host: string;
    started: string;
    stopped: string | null;
    updated: string;
    agents: Record<string, WatchAgentRecord>;
    sync: { push: string | null; pull: string | null; problem: string | null } | null;
  };

  constructor(
    private readonly libraryRoot: string,
    now: Date,
    previous: WatchStatus | null,
    syncOn: boolean,
  ) {
    this.status = {
      pid: process.pid,
      host: os.hostname(),
      started: now.toISOString(),
      stopped: null,
      updated: now.toISOString(),
      // What earlier watches exported stays known until this one exports the agent again.
      agents: { ...(previous?.agents ?? {}) },
      sync: syncOn ? { push: previous?.sync?.push ?? null, pull: previous?.sync?.pull ?? null, problem: null } : null,
    };
  }

  /** What the watch just did for agent `id`; `exported_at` stays the last export that wrote. */
  agent(id: string, record: Omit<WatchAgentRecord, 'exported_at'>): void {
    const wrote = record.outcome === 'exported' || record.outcome === 'staged';
    this.status.agents[id] = {
      ...record,
      exported_at: wrote ? record.at : (this.status.agents[id]?.exported_at ?? null),
    };
    this.write(record.at);
  }

  sync(change: { push?: string; pull?: string; problem?: string | null }, at: string): void {
    if (!this.status.sync) return;
    this.status.sync = { ...this.status.sync, ...change };
    this.write(at);
  }

  stopped(at: string): void {
    this.status.stopped = at;
    this.write(at);
  }

  /** Writes the status; a failure (a full disk) is not the watch's end: the next write tries again. */
  write(at = new Date().toISOString()): string | null {
    this.status.updated = at;
    try {
      writeFileDurably(watchStatusPath(this.libraryRoot), JSON.stringify(this.status, null, 2) + '\n');
      return null;
    } catch (error) {
      return (error as Error).message;
    }
  }
}
