/**
 * What `bourdon watch` leaves in the library for others to read (`bourdon doctor`, the page):
 * `.bourdon-watch.json` at the library's root, rewritten whole after every event by the watch
 * (src/watch), and the lock folder `.bourdon-watch.lock` that says one is running. Only read
 * here: the store knows the file's shape, not the watch.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { errnoOf } from '../errors.js';
import { configPaths, envValue, type Env } from './config.js';

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
    return errnoOf(error) === 'EPERM';
  }
}

/** The newest export that wrote a version the watch recorded (any agent), or null. */
export function lastWatchExport(status: WatchStatus | null): { agent: string; at: string } | null {
  let newest: { agent: string; at: string } | null = null;
  for (const [agent, record] of Object.entries(status?.agents ?? {}))
    if (record.exported_at && (!newest || record.exported_at > newest.at)) newest = { agent, at: record.exported_at };
  return newest;
}

/** The per-user service `bourdon watch --install` writes, where it lives and where it logs. */
export interface WatchService {
  readonly manager: 'systemd' | 'launchd';
  /** The unit or agent's name (`bourdon-watch.service`, `dev.bourdon.watch`). */
  readonly name: string;
  /** The unit file or the launchd agent's plist. */
  readonly file: string;
  /** Where the service's output goes (the config dir's `watch.log`): doctor reads it. */
  readonly log: string;
}

export const SYSTEMD_UNIT = 'bourdon-watch.service';
export const LAUNCHD_LABEL = 'dev.bourdon.watch';

/**
 * This user's watch service on this platform: a systemd user unit on Linux (in
 * `$XDG_CONFIG_HOME/systemd/user`, else `~/.config/systemd/user`), a launchd agent on macOS
 * (`~/Library/LaunchAgents`); null elsewhere.
 */
export function watchService(env: Env, platform: NodeJS.Platform = process.platform): WatchService | null {
  const home = envValue(env, 'HOME') ?? os.homedir();
  const log = path.join(configPaths(env).home, 'watch.log');
  if (platform === 'linux') {
    const config = envValue(env, 'XDG_CONFIG_HOME') ?? path.join(home, '.config');
    return { manager: 'systemd', name: SYSTEMD_UNIT, file: path.join(config, 'systemd', 'user', SYSTEMD_UNIT), log };
  }
  if (platform === 'darwin')
    return {
      manager: 'launchd',
      name: LAUNCHD_LABEL,
      file: path.join(home, 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`),
      log,
    };
  return null;
}

/** The library a service file runs the watch on (its `--library` argument), or null. */
export function serviceLibrary(text: string): string | null {
  const unit = /^ExecStart=.*\s"--library"\s+"((?:[^"\\]|\\.)*)"/m.exec(text);
  if (unit) return unit[1]!.replace(/\\(.)/g, '$1').replace(/%%/g, '%').replace(/\$\$/g, '$');
  const plist = /<string>--library<\/string>\s*<string>([^<]*)<\/string>/.exec(text);
  if (plist)
    return plist[1]!
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, '&');
  return null;
}

/** Everything doctor and the page say of the watch of one library. */
export interface WatchState {
  readonly service: (WatchService & { readonly installed: boolean; readonly library: string | null }) | null;
  readonly running: boolean;
  readonly status: WatchStatus | null;
  readonly lastExport: { agent: string; at: string } | null;
  /** The log's last line, when there is a log. */
  readonly lastLogLine: string | null;
}

function lastLine(file: string): string | null {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const length = Math.min(size, 4096);
      const buffer = Buffer.alloc(length);
      fs.readSync(fd, buffer, 0, length, size - length);
      const lines = buffer
        .toString('utf8')
        .split('\n')
        .filter((line) => line.trim());
      return lines.at(-1) ?? null;
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null;
  }
}

export function watchState(libraryRoot: string, env: Env): WatchState {
  const service = watchService(env);
  let installed: (WatchService & { installed: boolean; library: string | null }) | null = null;
  if (service) {
    let text: string | null;
    try {
      text = fs.readFileSync(service.file, 'utf8');
    } catch {
      text = null;
    }
    installed = { ...service, installed: text !== null, library: text === null ? null : serviceLibrary(text) };
  }
  const status = readWatchStatus(libraryRoot);
  return {
    service: installed,
    running: watchRunning(libraryRoot, status),
    status,
    lastExport: lastWatchExport(status),
    lastLogLine: service ? lastLine(service.log) : null,
  };
}
