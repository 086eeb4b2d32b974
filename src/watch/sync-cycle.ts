/**
 * The sync remote as the watch keeps it (src/sync does the work): a push shortly after exports
 * that changed the library (several exports close together are one push), a pull at an
 * interval. A push or pull that fails (offline, rejected) is said once and tried again with
 * backoff — 15 s, doubling to at most 10 minutes — and said again only when it works.
 */
import { describeError } from '../core/errors.js';
import type { Env } from '../core/store/config.js';
import type { AccessLevel } from '../core/trust/access.js';
import { plural } from '../core/store/words.js';
import { pullLibrary } from '../sync/pull.js';
import { pushLibrary } from '../sync/push.js';
import type { WatchEvent, WatchEventKind } from './events.js';
import type { StatusFile } from './instance.js';

export interface SyncSettings {
  library: string;
  env: Env;
  /** The level pushed (public or team). */
  level: AccessLevel;
  /** How often the remote is pulled (ms). */
  pullMs: number;
  /** The wait after an export before pushing, so a burst of exports is one push (ms). */
  pushDelayMs: number;
  /** The first retry's wait after a failure (ms); it doubles up to maxBackoffMs. */
  backoffMs: number;
  maxBackoffMs: number;
}

type Say = (kind: WatchEventKind, message: string, extra?: Partial<WatchEvent>) => void;

/** One direction (push or pull): its timer, whether it is failing, its next wait. */
interface Leg {
  name: 'push' | 'pull';
  timer: NodeJS.Timeout | null;
  failure: string | null;
  backoff: number;
}

export class SyncCycle {
  private chain: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly push: Leg = { name: 'push', timer: null, failure: null, backoff: 0 };
  private readonly pull: Leg = { name: 'pull', timer: null, failure: null, backoff: 0 };

  constructor(
    private readonly settings: SyncSettings,
    private readonly say: Say,
    private readonly status: StatusFile,
  ) {}

  /** Pulls now, then at the interval. */
  start(): void {
    this.schedule(this.pull, 0);
  }

  /** An export changed the library: push soon (a pending push is not moved later). */
  wantPush(): void {
    if (this.push.timer || this.push.failure) return; // a retry is already due
    this.schedule(this.push, this.settings.pushDelayMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const leg of [this.push, this.pull]) if (leg.timer) clearTimeout(leg.timer);
    await this.chain;
  }

  private schedule(leg: Leg, ms: number): void {
    if (this.stopped) return;
    if (leg.timer) clearTimeout(leg.timer);
    leg.timer = setTimeout(() => {
      leg.timer = null;
      // Push and pull take the same sync lock: they run one after the other.
      this.chain = this.chain.then(() => this.run(leg));
    }, ms);
  }

  private async run(leg: Leg): Promise<void> {
    if (this.stopped) return;
    const at = () => new Date().toISOString();
    try {
      const message = leg.name === 'push' ? await this.pushOnce() : await this.pullOnce();
      if (leg.failure !== null) this.say('sync working', `sync ${leg.name} works again`);
      leg.failure = null;
      leg.backoff = 0;
      this.status.sync({ [leg.name]: at(), problem: this.push.failure ?? this.pull.failure }, at());
      if (message) this.say(leg.name === 'push' ? 'pushed' : 'pulled', message);
      if (leg.name === 'pull') this.schedule(leg, this.settings.pullMs);
    } catch (error) {
      const reason = describeError(error);
      leg.backoff = leg.backoff ? Math.min(leg.backoff * 2, this.settings.maxBackoffMs) : this.settings.backoffMs;
      if (leg.failure === null)
        this.say('sync failed', `sync ${leg.name} failed: ${reason}; retrying in the background`, { reason });
      leg.failure = reason;
      this.status.sync({ problem: `${leg.name}: ${reason}` }, at());
      this.schedule(leg, leg.backoff);
    }
  }

  private async pushOnce(): Promise<string | null> {
    const result = await pushLibrary({
      library: this.settings.library,
      env: this.settings.env,
      level: this.settings.level,
    });
    return result.pushed
      ? `pushed ${plural(result.changes.length, 'change')} as ${result.machine} (commit ${result.commit?.slice(0, 12)})`
      : null;
  }

  private async pullOnce(): Promise<string | null> {
    const result = await pullLibrary({ library: this.settings.library, env: this.settings.env });
    const changed = result.machines.reduce((n, m) => n + m.added.length + m.updated.length + m.removed.length, 0);
    return changed || result.gone.length
      ? `pulled ${plural(changed, 'manifest')} from ${plural(result.machines.length, 'machine')}`
      : null;
  }
}
