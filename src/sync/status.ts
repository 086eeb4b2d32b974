/**
 * `bourdon sync status`: what this machine has not published yet (ahead), what the remote has
 * that this machine has not pulled (behind), and when each machine last published. Fetches
 * first unless offline; changes nothing but the working area's copy of the remote.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Env } from '../core/context.js';
import { PULLED_DIR, PULLED_MARK } from '../core/store/pulled.js';
import { isAccessLevel, type AccessLevel } from '../core/trust/access.js';
import { git, maskUrl, runGit } from './git.js';
import { classifyPath, MACHINES_DIR, parsePublication } from './layout.js';
import { preparePublication, pushBlocker, type AgentChange } from './push.js';
import { ensureWork, fetchRemote, historyRewritten, listTree, readBlobs, trackingRef } from './work.js';
import { readState, requireRemoteConfig, syncMachineName, syncPaths, withSyncLock } from './workspace.js';
import { libraryKey } from './signing.js';
import { keyState, ownPublicationProblem, readTrusted, type KeyState } from './trust.js';

export interface MachineStatus {
  machine: string;
  this_machine: boolean;
  access_level: AccessLevel | null;
  published_at: string | null;
  agents: number;
  /** When this machine's pulled copy was published (null: never pulled); always null for this machine. */
  pulled_published_at: string | null;
  /** The remote has a newer publication than the pulled copy. */
  behind: boolean;
  /** The fingerprint of the key its publication is signed by; null when unsigned or mis-signed. */
  key: string | null;
  /** How that publication stands with this library (trust.ts KeyState). */
  signature: KeyState;
}

export interface SyncStatus {
  remote: string;
  branch: string;
  machine: string;
  offline: boolean;
  head: string | null;
  history_rewritten: boolean;
  ahead: AgentChange[];
  /** Commits on the remote since this machine last pulled that changed other machines' publications. */
  behind_commits: number;
  last_pulled_at: string | null;
  last_pushed_at: string | null;
  /** Why a push from this machine would be refused as the remote is now (push.ts pushBlocker), or null. */
  push_blocked: string | null;
  /** This library's own key's fingerprint; null until its first push makes one. */
  key: string | null;
  /** When the remote's publication for this machine is not one this library signed: why (trust.ts). */
  foreign_publication: string | null;
  machines: MachineStatus[];
}

function pulledPublishedAt(library: string, machine: string): string | null {
  try {
    const mark = JSON.parse(fs.readFileSync(path.join(library, PULLED_DIR, machine, PULLED_MARK), 'utf8')) as {
      published_at?: unknown;
      access_level?: unknown;
    };
    return typeof mark.published_at === 'string' && isAccessLevel(mark.access_level) ? mark.published_at : null;
  } catch {
    return null;
  }
}

export async function syncStatus(options: { library: string; env: Env; offline?: boolean }): Promise<SyncStatus> {
  const paths = syncPaths(options.library, options.env);
  const config = requireRemoteConfig(paths);
  const own = syncMachineName(options.env);
  return withSyncLock(paths, async () => {
    await ensureWork(paths, config);
    const state = readState(paths);
    let head: string | null;
    if (options.offline) {
      const known = await runGit(['rev-parse', '--verify', '--quiet', `${trackingRef(config)}^{commit}`], {
        cwd: paths.work,
      });
      head = known.code === 0 ? known.stdout.toString('utf8').trim() : null;
    } else head = await fetchRemote(paths, config);
    const rewritten = await historyRewritten(paths, state, head);
    // Listed even when rewritten: status reports what the remote says now, and flags it.
    const entries = head ? await listTree(paths, head, MACHINES_DIR) : [];
    const publications = entries.filter((entry) => classifyPath(entry.path).kind === 'publication');
    const blobs = await readBlobs(
      paths,
      publications.map((entry) => entry.blob),
    );
    const machines: MachineStatus[] = [];
    let ownLevel: AccessLevel | null = null;
    const trusted = readTrusted(paths);
    const ownKey = libraryKey(paths.library, false);
    for (const entry of publications) {
      const machine = entry.path.split('/')[1]!; // machines/<name>/publication.json
      let record: ReturnType<typeof parsePublication> | null;
      try {
        record = parsePublication(blobs.get(entry.blob) ?? Buffer.alloc(0), machine);
      } catch {
        record = null;
      }
      const mine = machine === own;
      if (mine) ownLevel = record?.access_level ?? null;
      const pulled = mine ? null : pulledPublishedAt(paths.library, machine);
      const signed = record
        ? keyState(record, trusted, mine, ownKey?.publicKey ?? null)
        : { key: null, signature: 'unsigned' as const };
      machines.push({
        machine,
        this_machine: mine,
        access_level: record?.access_level ?? null,
        published_at: record?.published_at || null,
        agents: record?.agents.length ?? 0,
        pulled_published_at: pulled,
        behind: !mine && record !== null && pulled !== record.published_at,
        ...signed,
      });
    }
    // Ahead: what a push at the level last published (public when never) would change.
    const level = ownLevel ?? 'public';
    const { publication } = preparePublication(paths, own, level);
    const remoteBlobs = new Map<string, string>();
    for (const entry of entries) {
      const where = classifyPath(entry.path);
      if (where.kind === 'manifest' && where.machine === own) remoteBlobs.set(where.agent, entry.blob);
    }
    const ahead: AgentChange[] = [];
    for (const agent of publication.agents) {
      const blob = remoteBlobs.get(agent.id);
      if (blob !== agent.blob) ahead.push({ agent: agent.id, change: blob ? 'changed' : 'added', ...agent.counts });
      remoteBlobs.delete(agent.id);
    }
    for (const agent of remoteBlobs.keys()) ahead.push({ agent, change: 'removed' });
    let behind = 0;
    if (head && !rewritten) {
      const range = state.last_pulled ? `${state.last_pulled}..${head}` : head;
      // Only other machines' publications count: this machine's own pushes are not news to it.
      const others = ['--', MACHINES_DIR, `:(exclude)${MACHINES_DIR}/${own}`];
      behind = Number((await git(['rev-list', '--count', range, ...others], { cwd: paths.work })).trim()) || 0;
    }
    return {
      remote: maskUrl(config.remote),
      branch: config.branch,
      machine: own,
      offline: Boolean(options.offline),
      head,
      history_rewritten: rewritten,
      ahead: ahead.sort((a, b) => (a.agent < b.agent ? -1 : a.agent > b.agent ? 1 : 0)),
      behind_commits: behind,
      last_pulled_at: state.last_pulled_at,
      last_pushed_at: state.last_pushed_at,
      push_blocked: await pushBlocker(paths, own, head),
      key: ownKey?.fingerprint ?? null,
      foreign_publication: await ownPublicationProblem(paths, own, head, ownKey?.publicKey ?? null),
      machines: machines.sort((a, b) => (a.machine < b.machine ? -1 : 1)),
    };
  });
}
