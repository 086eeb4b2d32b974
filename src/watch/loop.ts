/**
 * The watch itself: one chokidar watcher over exactly what the participants read (targets.ts),
 * each change sent to the participants that read the path, debounced per participant (a burst
 * of writes is one export), the exports run one at a time through the export path of
 * `bourdon <id> export` (exports.ts), the polled participants asked again at an interval, and
 * the sync remote pushed and pulled (sync-cycle.ts). Everything it does is an event (`say`).
 */
import chokidar, { type FSWatcher } from 'chokidar';
import path from 'node:path';
import type { Env } from '../core/store/config.js';
import { describeError } from '../core/errors.js';
import { readWatchStatus } from '../core/store/watch-status.js';
import { plural } from '../core/store/words.js';
import type { Participant } from '../participants/kit/participant.js';
import { exportEnvironment } from '../participants/runner.js';
import { exportParticipant, type ExportSettings } from './exports.js';
import { WarmExport } from './warm-export.js';
import { claimWatch, StatusFile } from './instance.js';
import { SyncCycle, type SyncSettings } from './sync-cycle.js';
import { isUnder, ownersOf, watchTarget, type WatchTarget } from './targets.js';
import type { WatchEvent, WatchEventKind } from './events.js';

export interface WatchOptions extends ExportSettings {
  env: Env;
  participants: readonly Participant[];
  /** Quiet time after a participant's last change before it is exported (ms). */
  debounceMs: number;
  /** The longest a participant whose source keeps changing waits for its export (ms). */
  maxWaitMs: number;
  /** How often a polled participant (openclaw) is asked again, at least (ms). */
  pollMs: number;
  /**
   * How often what each participant reads is derived again (ms): a source that appears where no
   * followed path could see it (a new Claude Code project, an MCP host's config naming the graph)
   * is followed from then on. A folder or file appearing under a followed path does it at once.
   */
  rescanMs: number;
  /** Export every participant whose sources exist once at the start. */
  catchUp: boolean;
  /** The sync remote's push and pull; null: no remote set. */
  sync: SyncSettings | null;
  /** Folders whose changes are never a source's (the config dir): the library's own are never either. */
  ignore: readonly string[];
  say(event: WatchEvent): void;
}

export interface RunningWatch {
  /** Stops following, waits for the export in flight, releases the lock. */
  stop(): Promise<void>;
}

export async function startWatch(options: WatchOptions): Promise<RunningWatch> {
  const say = (kind: WatchEventKind, message: string, extra: Partial<WatchEvent> = {}) =>
    options.say({ at: new Date().toISOString(), event: kind, message, ...extra });
  const claim = claimWatch(options.libraryRoot, (message) => say('warning', message));
  const status = new StatusFile(
    options.libraryRoot,
    new Date(),
    readWatchStatus(options.libraryRoot),
    options.sync !== null,
  );
  status.write();
  let stopping = false;
  const environment = exportEnvironment(options.env);
  /** What each followed participant reads, derived again as sources come and go (refresh). */
  const targets = new Map<Participant, WatchTarget>();
  const unknown = new Set<string>();
  const polled: Participant[] = [];
  const followedKind = options.participants.filter((participant) => participant.watch.follow !== 'poll');
  for (const participant of options.participants) if (participant.watch.follow === 'poll') polled.push(participant);
  async function targetOf(participant: Participant): Promise<WatchTarget | null> {
    try {
      const target = await watchTarget(participant, environment);
      unknown.delete(participant.agentId);
      return target;
    } catch (error) {
      if (!unknown.has(participant.agentId))
        say('warning', `${participant.agentId}: cannot tell what it reads (${describeError(error)}); not followed`);
      unknown.add(participant.agentId);
      return null;
    }
  }
  for (const participant of followedKind) {
    const target = await targetOf(participant);
    if (target) targets.set(participant, target);
  }
  let targetList = [...targets.values()];
  let followed = targetList.flatMap((target) => target.paths);
  const ignored = [options.libraryRoot, ...options.ignore].map((dir) => path.resolve(dir));

  // --- exports, one at a time -------------------------------------------------------------
  const dirty = new Set<Participant>();
  const failing = new Set<string>();
  let worker: Promise<void> | null = null;
  const sync = options.sync ? new SyncCycle(options.sync, say, status) : null;

  const warm = WarmExport.start(options.env);
  async function runOne(participant: Participant): Promise<void> {
    const began = performance.now();
    const outcome = await exportParticipant(participant, { ...options, warm });
    const exportMs = Math.round(performance.now() - began);
    const id = participant.agentId;
    status.agent(id, { at: new Date().toISOString(), outcome: outcome.kind, detail: outcome.detail });
    if (outcome.kind === 'failed') {
      if (failing.has(id)) return; // said once; tried again on its next change
      failing.add(id);
      say('failed', `failed ${id}: ${outcome.detail}; tried again on its next change`, { agent: id });
      return;
    }
    const recovered = failing.delete(id);
    say(outcome.kind, `${outcome.kind} ${id}: ${outcome.detail}${recovered ? ' (working again)' : ''}`, {
      agent: id,
      ...outcome.extra,
      export_ms: exportMs,
    });
    if (outcome.changed) sync?.wantPush();
  }

  function kick(): void {
    if (worker || stopping) return;
    worker = (async () => {
      while (!stopping) {
        const [next] = dirty;
        if (next === undefined) break;
        dirty.delete(next);
        await runOne(next);
      }
    })().finally(() => {
      worker = null;
      if (dirty.size && !stopping) kick();
    });
  }

  // --- debounce per participant --------------------------------------------------------------
  const timers = new Map<Participant, { timer: NodeJS.Timeout; first: number }>();
  function changed(participant: Participant): void {
    if (stopping) return;
    const now = Date.now();
    const pending = timers.get(participant);
    if (pending) clearTimeout(pending.timer);
    const first = pending?.first ?? now;
    const wait = Math.max(0, Math.min(options.debounceMs, first + options.maxWaitMs - now));
    const timer = setTimeout(() => {
      timers.delete(participant);
      dirty.add(participant);
      kick();
    }, wait);
    timers.set(participant, { timer, first });
  }

  // --- the watcher ------------------------------------------------------------------------------
  const related = (file: string) =>
    followed.some((one) => isUnder(file, one) || isUnder(one, file)) && !ignored.some((dir) => isUnder(file, dir));
  // One watcher, made at the start even when nothing is followed yet: paths are added as they are named.
  const watcher: FSWatcher = chokidar.watch(followed, {
    ignoreInitial: true,
    // Only what a participant reads: not the library (an export's own writes), not the rest of a
    // followed path's parent, not a file under a followed folder that its participant never reads.
    ignored: (file, stats) => !related(file) || (stats?.isFile() === true && ownersOf(file, targetList).length === 0),
  });
  let watchFailure: string | null = null;
  watcher.on('error', (error) => {
    const reason = describeError(error);
    if (reason === watchFailure) return;
    watchFailure = reason;
    say('warning', `the file watcher: ${reason}`);
  });
  watcher.on('all', (event, file) => {
    for (const participant of ownersOf(path.resolve(file), targetList)) changed(participant);
    // Something came or went: what a participant reads may name new paths (a Cursor store, a project).
    if (event !== 'change') refreshSoon();
  });
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));

  // --- what is followed, derived again -------------------------------------------------------
  let refreshing: Promise<void> | null = null;
  let refreshTimer: NodeJS.Timeout | null = null;
  function refreshSoon(): void {
    if (stopping || refreshTimer) return;
    refreshTimer = setTimeout(() => {
      refreshTimer = null;
      void refresh();
    }, options.debounceMs);
  }
  /** Each participant's paths named again: the new ones followed (and its export due), the gone ones let go. */
  function refresh(): Promise<void> {
    refreshing ??= (async () => {
      const grown: { participant: Participant; added: string[] }[] = [];
      const dropped: string[] = [];
      for (const participant of followedKind) {
        if (stopping) return;
        const target = await targetOf(participant);
        if (!target) continue;
        const before = targets.get(participant)?.paths ?? [];
        const added = target.paths.filter((one) => !before.includes(one));
        dropped.push(...before.filter((one) => !target.paths.includes(one)));
        if (!added.length && target.paths.length === before.length) continue;
        targets.set(participant, target);
        if (added.length) grown.push({ participant, added });
      }
      targetList = [...targets.values()];
      followed = targetList.flatMap((target) => target.paths);
      // A path let go that holds or lies in one still followed stays watched (chokidar would stop
      // following what lies under it); the filter (related) drops what no one reads.
      const gone = [...new Set(dropped)].filter(
        (one) => !followed.some((kept) => isUnder(kept, one) || isUnder(one, kept)),
      );
      if (gone.length) watcher.unwatch(gone);
      if (grown.length) watcher.add(grown.flatMap((one) => one.added));
      for (const { participant, added } of grown) {
        say('watching', `now following ${participant.agentId}: ${plural(added.length, 'new path')}`, {
          agent: participant.agentId,
          paths: added,
        });
        changed(participant);
      }
      await startPolling();
    })().finally(() => {
      refreshing = null;
    });
    return refreshing;
  }
  const rescan = setInterval(() => void refresh(), options.rescanMs);
  rescan.unref();

  // --- polled participants --------------------------------------------------------------------
  const pollTimers = new Set<NodeJS.Timeout>();
  const active: Participant[] = [];
  /** Starts polling each polled participant that has a source now (asked again on each refresh). */
  async function startPolling(first = false): Promise<Participant[]> {
    const started: Participant[] = [];
    for (const participant of polled) {
      if (active.includes(participant) || stopping) continue;
      const sources = await participant.sources(environment).catch(() => []);
      if (!sources.some((source) => source.found) && !participant.help.flags?.some((flag) => options.env[flag.env]))
        continue;
      active.push(participant);
      started.push(participant);
      const tick = async () => {
        if (stopping) return;
        const began = Date.now();
        dirty.add(participant);
        kick();
        while (worker && !stopping) await worker;
        // Never more often than its answers take.
        const timer = setTimeout(() => void tick(), Math.max(options.pollMs, Date.now() - began));
        pollTimers.add(timer);
      };
      const timer = setTimeout(() => void tick(), first && options.catchUp ? options.pollMs : 0);
      pollTimers.add(timer);
      if (!first) say('watching', `now polling ${participant.agentId} every ${Math.round(options.pollMs / 1000)} s`);
    }
    return started;
  }
  await startPolling(true);

  const names = targetList.map((target) => target.participant.agentId);
  say(
    'watching',
    `watching ${plural(names.length, 'agent')} (${plural(followed.length, 'path')})` +
      (active.length
        ? `, polling ${active.map((p) => p.agentId).join(', ')} every ${Math.round(options.pollMs / 1000)} s`
        : '') +
      (sync ? `, syncing with the remote` : ''),
    { agents: names, paths: followed, polled: active.map((p) => p.agentId) },
  );

  if (options.catchUp) {
    for (const target of targetList) {
      const sources = await target.participant.sources(environment).catch(() => []);
      if (sources.some((source) => source.found)) dirty.add(target.participant);
    }
    for (const participant of active) dirty.add(participant);
    const checked = dirty.size;
    kick();
    void (async () => {
      while (worker) await worker;
      if (!stopping) say('caught up', `caught up: ${plural(checked, 'agent')} checked; following their changes`);
    })();
  }
  sync?.start();

  return {
    async stop() {
      if (stopping) return;
      stopping = true;
      for (const { timer } of timers.values()) clearTimeout(timer);
      for (const timer of pollTimers) clearTimeout(timer);
      clearInterval(rescan);
      if (refreshTimer) clearTimeout(refreshTimer);
      await refreshing;
      await watcher.close();
      while (worker) await worker;
      warm?.close();
      await sync?.stop();
      const at = new Date().toISOString();
      status.stopped(at);
      claim.release();
      say('stopped', 'stopped');
    },
  };
}
