/**
 * What `bourdon watch` leaves in the library for others to read (`bourdon doctor`, the page):
 * `.bourdon-watch.json` at the library's root, rewritten whole after every event by the watch
 * (src/watch), and the lock folder `.bourdon-watch.lock` that says one is running. Only read
 * here: the store knows the file's shape, not the watch.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The last thing the watch did for one agent. */
export interface WatchAgentRecord {
  /** ISO 8601. */
  readonly at: string;
  readonly outcome: 'exported' | 'unchanged' | 'staged' | 'nothing' | 'failed';
  /** One line: what changed, or why it failed. */
  readonly detail: string;
  /** ISO 8601: the last time an export wrote a new version (or staged one); null: never. */
  readonly exported_at: string | null;
}

export interface WatchStatus {
  readonly pid: number;
  readonly host: string;
  /** ISO 8601: when this watch started, and when it stopped (null while it runs). */
  readonly started: string;
  readonly stopped: string | null;
  /** When the status was last written. */
  readonly updated: string;
  /** The last export of each agent this watch ran, by agent id. */
  readonly agents: Readonly<Record<string, WatchAgentRecord>>;
  /** The sync remote's last push and pull, and the failure being retried (null: none; sync off: null). */
  readonly sync: { readonly push: string | null; readonly pull: string | null; readonly problem: string | null } | null;
}

export const WATCH_STATUS_FILE = '.bourdon-watch.json';
export const WATCH_LOCK_DIR = '.bourdon-watch.lock';

export function watchStatusPath(libraryRoot: string): string {
  return path.join(libraryRoot, WATCH_STATUS_FILE);
}

export function watchLockPath(libraryRoot: string): string {
  return path.join(libraryRoot, WATCH_LOCK_DIR);
}

/** The watch's status in this library; null when no watch ever ran here, or the file is not its. */
export function readWatchStatus(libraryRoot: string): WatchStatus | null {
  try {
    const parsed = JSON.parse(fs.readFileSync(watchStatusPath(libraryRoot), 'utf8')) as WatchStatus;
    if (parsed && typeof parsed.pid === 'number' && typeof parsed.started === 'string' && parsed.agents) return parsed;
  } catch {
    // none, or torn: no status
  }
  return null;
}

/**
 * Whether the watch that wrote `status` is still running: not stopped, its lock still there,
 * and (on this host) its process alive.
 */
export function watchRunning(libraryRoot: string, status: WatchStatus | null): boolean {
  if (!status || status.stopped !== null) return false;
  if (!fs.existsSync(watchLockPath(libraryRoot))) return false;
  if (status.host !== os.hostname()) return true;
  try {
    process.kill(status.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The newest export that wrote a version the watch recorded (any agent), or null. */
export function lastWatchExport(status: WatchStatus | null): { agent: string; at: string } | null {
  let newest: { agent: string; at: string } | null = null;
  for (const [agent, record] of Object.entries(status?.agents ?? {}))
    if (record.exported_at && (!newest || record.exported_at > newest.at)) newest = { agent, at: record.exported_at };
  return newest;
}
