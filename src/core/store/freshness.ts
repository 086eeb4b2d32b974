/**
 * How a long-lived store learns that the library changed, without statting every manifest on
 * every request. Before any sweep it would make, a request checks three O(1) signals:
 *
 * - the library's change stamp (`.bourdon.stamp` at the library root): every writer of this
 *   project (commit, rollback, promotion, anything through the version history) replaces it
 *   after the live file landed, so their writes — from any process — are seen at the next
 *   request;
 * - the `agents/` folder's own stat: a file created, removed or renamed over (an editor's or a
 *   sync tool's rename-over) changes it, so those are seen at the next request too;
 * - OS file-system events on `agents/` (`fs.watch`: inotify on Linux), which also report
 *   in-place writes by other tools, as soon as the kernel's event reaches the event loop.
 *
 * Anything the three can miss — an in-place write where watching is unavailable or unreliable
 * (network and FUSE file systems, an exhausted inotify watch limit, other platforms), an event
 * lost in an overflowing queue, two renames within one tick of a coarse folder clock — is seen
 * by the fallback: a full stat sweep at most every `sweepMs` (1 s without a trusted watcher,
 * 10 s with one). docs/reliability.md has the table.
 */
import fs from 'node:fs';
import path from 'node:path';
import { errnoOf } from '../errors.js';

/** The change stamp's name at the library root. */
export const CHANGE_STAMP_FILE = '.bourdon.stamp';

/** The longest an unseen change can stay unseen, with and without a trusted watcher. */
const SWEEP_MS_WATCHED = 10_000;
export const SWEEP_MS_UNWATCHED = 1_000;

/** statfs types (Linux f_type) of network and user-space file systems: events are not trusted there. */
const UNWATCHABLE_FS_TYPES = new Set([
  0x6969, // NFS
  0x517b, // SMB
  0xfe534d42, // SMB2
  0xff534d42, // CIFS
  0x65735546, // FUSE (sshfs, rclone, cloud drives)
  0x01021997, // 9P (WSL2 drives, VM shares)
  0x00c36400, // Ceph
  0x5346414f, // AFS
  0x564c, // NCP
  0x73757245, // Coda
  0x47504653, // GPFS
  0x0bd00bd0, // Lustre
]);

export interface FreshnessOptions {
  /** Watch `agents/` for OS events (a server). Default false. */
  watch?: boolean;
  /** Overrides the fallback sweep interval (ms). */
  sweepMs?: number;
  /** The clock the sweep interval is measured on (tests inject one). */
  now?: () => number;
}

/** Why the last decision was made: for tests and the bench's report. */
export type WatchState = 'watching' | 'untrusted' | 'unavailable' | 'off';

function statKey(file: string): string {
  try {
    const stat = fs.statSync(file);
    return `${stat.ino}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.size}`;
  } catch (error) {
    return `missing:${errnoOf(error) ?? ''}`;
  }
}

function readStamp(file: string): string {
  try {
    return fs.readFileSync(file, 'latin1');
  } catch {
    return '';
  }
}

/** Whether OS events on this folder can be trusted to report every change (see the header). */
function watchIsTrusted(dir: string): boolean {
  if (process.platform !== 'linux') return false;
  const statfs = (fs as { statfsSync?: (p: string) => { type: number } }).statfsSync;
  if (!statfs) return false;
  try {
    return !UNWATCHABLE_FS_TYPES.has(statfs(dir).type >>> 0);
  } catch {
    return false;
  }
}

/**
 * The change signals of one library. `mayHaveChanged()` is the per-request check; `swept()` is
 * called before a full sweep starts, so a change made during the sweep is seen by the next one.
 */
export class LibraryFreshness {
  private readonly now: () => number;
  private readonly watch: boolean;
  private readonly sweepOverride: number | undefined;
  private watcher: fs.FSWatcher | null = null;
  private state: WatchState = 'off';
  private dirty = true;
  private lastSweep = -Infinity;
  private stamp = '';
  private folder = '';
  private waiters: (() => void)[] = [];

  constructor(
    private readonly agentsDir: string,
    private readonly stampFile: string,
    options: FreshnessOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.watch = options.watch ?? false;
    this.sweepOverride = options.sweepMs;
  }

  get watchState(): WatchState {
    return this.state;
  }

  /** The fallback interval now in force. */
  get sweepMs(): number {
    return this.sweepOverride ?? (this.state === 'watching' ? SWEEP_MS_WATCHED : SWEEP_MS_UNWATCHED);
  }

  /** Forces the next check to answer true (a writer in this process changed a manifest). */
  markDirty(): void {
    this.dirty = true;
  }

  /** O(1): whether a full sweep is needed before answering. */
  mayHaveChanged(): boolean {
    if (this.dirty) return true;
    if (this.now() - this.lastSweep >= this.sweepMs) return true;
    return readStamp(this.stampFile) !== this.stamp || statKey(this.agentsDir) !== this.folder;
  }

  /** Records the signals as they are when a sweep starts, and (re)starts watching. */
  swept(): void {
    this.dirty = false;
    this.lastSweep = this.now();
    this.stamp = readStamp(this.stampFile);
    this.folder = statKey(this.agentsDir);
    if (this.watch && !this.watcher) this.startWatching();
  }

  /** Resolves at the next OS event on `agents/` (tests wait on it instead of sleeping). */
  nextEvent(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  close(): void {
    this.watcher?.close();
    this.watcher = null;
    this.state = 'off';
  }

  private startWatching(): void {
    try {
      const watcher = fs.watch(this.agentsDir, { persistent: false }, () => this.onEvent());
      watcher.on('error', () => {
        // The folder went away or the watch broke: sweep, and try again at the next sweep.
        watcher.close();
        if (this.watcher === watcher) this.watcher = null;
        this.state = 'unavailable';
        this.onEvent();
      });
      this.watcher = watcher;
      this.state = watchIsTrusted(this.agentsDir) ? 'watching' : 'untrusted';
    } catch {
      // No folder yet, or ENOSPC: the inotify watch limit is reached. The fallback sweep rules.
      this.state = 'unavailable';
    }
  }

  private onEvent(): void {
    this.dirty = true;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}

/** The stamp's path for a library root. */
export function changeStampPath(root: string): string {
  return path.join(root, CHANGE_STAMP_FILE);
}
