/**
 * `bourdon sync push`: this machine's manifests, filtered to a level and redacted
 * (publish.ts), as one commit in its own folder of the remote. The library is only read. A
 * push that loses the race to another machine's fetches again, rebuilds its commit on top of
 * the new head (the machines' folders are disjoint, so nothing of theirs is touched) and tries
 * again. git's push is atomic per branch: a push killed at any point leaves the remote at the
 * commit before or the one after.
 */
import { plural } from '../core/store/words.js';
import fs from 'node:fs';
import path from 'node:path';
import type { Env } from '../core/context.js';
import { BourdonError } from '../core/errors.js';
import { libraryPaths } from '../core/store/library.js';
import type { AccessLevel } from '../core/trust/access.js';
import { blobId, gitReason, pushOptions, runGit } from './git.js';
import {
  classifyPath,
  machineFolder,
  manifestPath,
  parsePublication,
  PUBLICATION_FORMAT,
  publicationPath,
  type PublicationRecord,
} from './layout.js';
import { libraryKey, manifestDigest, signPublication, type LibraryKey } from './signing.js';
import { checkSignature } from './trust.js';
import { buildPublication, type Publication, type PublishedAgent, type RenderCache } from './publish.js';
import {
  checkoutFolder,
  commitEnv,
  commitFolder,
  ensureWork,
  fetchRemote,
  historyRewritten,
  rewriteError,
  type TreeEntry,
} from './work.js';
import {
  libraryId,
  readState,
  requireRemoteConfig,
  syncMachineName,
  syncPaths,
  withSyncLock,
  writeState,
  type SyncPaths,
} from './workspace.js';

const MAX_ATTEMPTS = 8;

export interface PushOptions {
  library: string;
  env: Env;
  level: AccessLevel;
  acceptRewrite?: boolean;
  warn?: (message: string) => void;
  now?: () => Date;
}

export interface AgentChange {
  agent: string;
  change: 'added' | 'changed' | 'removed';
  entities?: number;
  sessions?: number;
  notes?: number;
}

export interface PushResult {
  machine: string;
  access_level: AccessLevel;
  /** False when the remote already had exactly this publication. */
  pushed: boolean;
  commit: string | null;
  agents: number;
  changes: AgentChange[];
  skipped: { file: string; reason: string }[];
  /** Agents with no rows at the level, not published (Publication.empty). */
  empty: string[];
  /** Agents past what one machine may publish in all, not published (Publication.over_cap). */
  over_cap: string[];
  attempts: number;
}

function renderCacheFile(paths: SyncPaths): string {
  return path.join(paths.dir, 'rendered.json');
}

function readRenderCache(paths: SyncPaths): RenderCache | null {
  try {
    return JSON.parse(fs.readFileSync(renderCacheFile(paths), 'utf8')) as RenderCache;
  } catch {
    return null;
  }
}

/**
 * What this machine would publish now. A manifest unchanged since the last push is not parsed
 * again: its earlier rendering is taken from the working tree, when it still holds those bytes.
 */
export function preparePublication(
  paths: SyncPaths,
  machine: string,
  level: AccessLevel,
): { publication: Publication; cache: RenderCache } {
  const reuse = (id: string, blob: string): Buffer | null => {
    try {
      const bytes = readRegular(path.join(paths.work, manifestPath(machine, id)));
      return bytes && blobId(bytes) === blob ? bytes : null;
    } catch {
      return null;
    }
  };
  return buildPublication(libraryPaths(paths.library).agents, level, readRenderCache(paths), reuse);
}

/** The changes a publication makes to this machine's folder as the working tree has it. */
function changesAgainst(dir: string, agents: readonly PublishedAgent[]): AgentChange[] {
  const changes: AgentChange[] = [];
  const published = new Set<string>();
  for (const agent of agents) {
    published.add(agent.id);
    let existing: Buffer | null;
    try {
      existing = readRegular(path.join(dir, `${agent.id}.l5.yaml`));
    } catch {
      existing = null;
    }
    if (existing && existing.equals(agent.bytes)) continue;
    changes.push({ agent: agent.id, change: existing ? 'changed' : 'added', ...agent.counts });
  }
  let present: string[];
  try {
    present = fs.readdirSync(dir).filter((name) => name.endsWith('.l5.yaml'));
  } catch {
    present = [];
  }
  for (const name of present) {
    const id = name.slice(0, -'.l5.yaml'.length);
    if (!published.has(id)) changes.push({ agent: id, change: 'removed' });
  }
  return changes.sort((a, b) => (a.agent < b.agent ? -1 : a.agent > b.agent ? 1 : 0));
}

/** The commit message: the machine and what changed, readable in `git log`. */
function commitMessage(machine: string, level: AccessLevel, total: number, changes: AgentChange[]): string {
  const count = (kind: AgentChange['change']) => changes.filter((change) => change.change === kind).length;
  const parts = (['added', 'changed', 'removed'] as const)
    .filter((kind) => count(kind) > 0)
    .map((kind) => `${count(kind)} ${kind}`);
  const subject = `${machine}: publish ${total} agent${total === 1 ? '' : 's'} at ${level}${parts.length ? ` (${parts.join(', ')})` : ''}`;
  const lines = changes.map((change) =>
    change.change === 'removed'
      ? `removed  ${change.agent}`
      : `${change.change.padEnd(8)} ${change.agent}: ${plural(change.entities ?? 0, 'entity', 'entities')}, ${plural(change.sessions ?? 0, 'session')}, ${plural(change.notes ?? 0, 'note')}`,
  );
  return lines.length ? `${subject}\n\n${lines.join('\n')}\n` : `${subject}\n`;
}

/** A new file in place of whatever was there (a link is removed, not written through). */
function writeFresh(file: string, data: Buffer | string): void {
  fs.rmSync(file, { force: true });
  fs.writeFileSync(file, data, { flag: 'wx', mode: 0o644 });
}

/** A regular file's bytes; null when absent, empty when something else (a link) is there. */
function readRegular(file: string): Buffer | null {
  const stat = fs.lstatSync(file, { throwIfNoEntry: false });
  if (!stat) return null;
  return stat.isFile() ? fs.readFileSync(file) : Buffer.alloc(0);
}

/**
 * Whether the working tree's publication record is this library's, signed by its key, at
 * `level`, over exactly these manifests: then a push with no manifest changed has nothing to do.
 */
function signedAsIs(
  paths: SyncPaths,
  machine: string,
  level: AccessLevel,
  owner: { library_id: string; key: LibraryKey },
  digests: Record<string, string>,
): boolean {
  let record: PublicationRecord;
  try {
    const bytes = readRegular(path.join(paths.work, publicationPath(machine)));
    if (!bytes) return false;
    record = parsePublication(bytes, machine);
  } catch {
    return false;
  }
  const signed = record.digests ?? {};
  return (
    record.access_level === level &&
    record.library_id === owner.library_id &&
    record.public_key === owner.key.publicKey &&
    Object.keys(signed).length === Object.keys(digests).length &&
    Object.entries(digests).every(([agent, digest]) => signed[agent] === digest) &&
    checkSignature(record).ok
  );
}

/** Writes the publication into the working tree (this machine's folder only); answers the changes. */
function writeFolder(
  paths: SyncPaths,
  machine: string,
  level: AccessLevel,
  publication: Publication,
  now: Date,
  owner: { library_id: string; key: LibraryKey; repair: boolean },
): AgentChange[] {
  const folder = path.join(paths.work, machineFolder(machine));
  const agentsDir = path.join(folder, 'agents');
  // The working tree holds whatever the remote holds: a link or a file where this machine's
  // folders belong is removed (never followed), so nothing is read or written outside it.
  for (const dir of [path.dirname(folder), folder, agentsDir]) {
    const stat = fs.lstatSync(dir, { throwIfNoEntry: false });
    if (stat && !stat.isDirectory()) fs.rmSync(dir, { force: true });
  }
  const changes = changesAgainst(agentsDir, publication.agents);
  const digests: Record<string, string> = {};
  for (const agent of publication.agents) digests[agent.id] = manifestDigest(agent.bytes);
  if (changes.length === 0 && !owner.repair && signedAsIs(paths, machine, level, owner, digests)) return [];
  fs.mkdirSync(agentsDir, { recursive: true });
  for (const change of changes) {
    const file = path.join(paths.work, manifestPath(machine, change.agent));
    if (change.change === 'removed') fs.rmSync(file, { force: true });
  }
  for (const agent of publication.agents) {
    const file = path.join(paths.work, manifestPath(machine, agent.id));
    if (changes.some((change) => change.agent === agent.id)) writeFresh(file, agent.bytes);
  }
  const signed = {
    machine,
    library_id: owner.library_id,
    access_level: level,
    published_at: now.toISOString(),
    digests,
  };
  const record: PublicationRecord = {
    format: PUBLICATION_FORMAT,
    machine,
    access_level: level,
    published_at: signed.published_at,
    agents: publication.agents.map((agent) => agent.id),
    library_id: owner.library_id,
    digests,
    public_key: owner.key.publicKey,
    signature: signPublication(signed, owner.key),
  };
  writeFresh(path.join(paths.work, publicationPath(machine)), JSON.stringify(record, null, 2) + '\n');
  // A level change alone is a change too (the folder is republished at the new level), and so
  // is a repair (what the remote held in the folder that was not this machine's files is gone)
  // and a record this library did not sign as it stands (unsigned, by another key, forged).
  return changes.length ? changes : [{ agent: '*', change: 'changed' }];
}

export async function pushLibrary(options: PushOptions): Promise<PushResult> {
  if (options.level === 'private')
    throw new BourdonError('private rows never leave this machine: push at public or team', 'usage');
  const paths = syncPaths(options.library, options.env);
  const config = requireRemoteConfig(paths);
  const machine = syncMachineName(options.env);
  const warn = options.warn ?? (() => {});
  const now = options.now ?? (() => new Date());
  return withSyncLock(paths, async () => {
    const { publication, cache } = preparePublication(paths, machine, options.level);
    for (const skipped of publication.skipped) warn(`not published: agents/${skipped.file}: ${skipped.reason}`);
    await ensureWork(paths, config);
    const state = readState(paths);
    if (options.acceptRewrite) state.known_head = null;
    const [env, firstHead] = await Promise.all([commitEnv(paths, machine), fetchRemote(paths, config)]);
    const ownId = libraryId(paths.library);
    const key = libraryKey(paths.library)!;
    const folder = machineFolder(machine);
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const head = attempt === 1 ? firstHead : await fetchRemote(paths, config);
      if (await historyRewritten(paths, state, head)) throw rewriteError(state, head);
      const { dropped } = await checkoutFolder(paths, head, folder, ownFile(machine));
      refuseForeignFolder(machine, ownerOf(paths, machine), ownId);
      const changes = writeFolder(paths, machine, options.level, publication, now(), {
        library_id: ownId,
        key,
        repair: dropped > 0,
      });
      const result: PushResult = {
        machine,
        access_level: options.level,
        pushed: false,
        commit: head,
        agents: publication.agents.length,
        changes: changes.filter((change) => change.agent !== '*'),
        skipped: publication.skipped,
        empty: publication.empty,
        over_cap: publication.over_cap,
        attempts: attempt,
      };
      if (changes.length === 0) {
        writeState(paths, { ...state, known_head: head });
        saveRenderCache(paths, cache);
        return result;
      }
      const message = commitMessage(machine, options.level, publication.agents.length, result.changes);
      const commit = await commitFolder(paths, head, folder, message, env);
      if (commit === null) {
        writeState(paths, { ...state, known_head: head });
        saveRenderCache(paths, cache);
        return { ...result, changes: [] };
      }
      const pushed = await runGit(
        [
          'push',
          ...pushOptions(config.remote),
          '--porcelain',
          '--quiet',
          'origin',
          `${commit}:refs/heads/${config.branch}`,
        ],
        {
          cwd: paths.work,
        },
      );
      if (pushed.code === 0) {
        const at = now().toISOString();
        writeState(paths, { ...state, known_head: commit, last_pushed: commit, last_pushed_at: at });
        saveRenderCache(paths, cache);
        return { ...result, pushed: true, commit };
      }
      // Rejected (another machine pushed first) is reported by the porcelain as a `!` line; anything else is a failure.
      const rejected = pushed.stdout
        .toString('utf8')
        .split('\n')
        .some((line) => line.startsWith('!'));
      if (!rejected) throw new BourdonError(`cannot push to the remote: ${gitReason(pushed)}`, 'unavailable');
      await new Promise((resolve) => setTimeout(resolve, 50 + Math.floor(Math.random() * 150 * attempt)));
    }
    throw new BourdonError(`the remote kept moving: gave up after ${MAX_ATTEMPTS} attempts; try again`, 'busy');
  });
}

/** Which of the remote's entries under this machine's folder are its files: regular, where they belong. */
function ownFile(machine: string): (entry: TreeEntry) => boolean {
  return (entry) => {
    if (entry.type !== 'blob' || (entry.mode !== '100644' && entry.mode !== '100755')) return false;
    const where = classifyPath(entry.path);
    return where.kind !== 'refused' && where.machine === machine;
  };
}

/**
 * The library id this machine's folder on the remote was published by (its publication
 * record's `library_id`), as the working tree holds it after checkoutFolder; null when the
 * folder is new or was published before folders carried one.
 */
function ownerOf(paths: SyncPaths, machine: string): string | null {
  try {
    const bytes = readRegular(path.join(paths.work, publicationPath(machine)));
    const owner = bytes ? (JSON.parse(bytes.toString('utf8')) as { library_id?: unknown }).library_id : null;
    return typeof owner === 'string' ? owner : null;
  } catch {
    return null;
  }
}

/**
 * Refuses to publish into a folder another library owns: two machines under one name (the
 * same host name, no BOURDON_LOCAL_NAME) would otherwise replace each other's publication at
 * every push. One line, with the fix.
 */
function refuseForeignFolder(machine: string, owner: string | null, ownId: string): void {
  if (owner === null || owner === ownId) return;
  throw new BourdonError(foreignFolderReason(machine), 'conflict');
}

/** Why a push into another library's folder is refused, and what to do (push, status, doctor). */
function foreignFolderReason(machine: string): string {
  return `${machineFolder(machine)} on the remote belongs to another library (another machine publishes as "${machine}"): nothing was pushed; set BOURDON_LOCAL_NAME to a name of this machine's own and push again`;
}

/**
 * Whether this machine can push to the remote as it is at `head`, for status and doctor: the
 * reason it cannot (its folder belongs to another library), or null.
 */
export async function pushBlocker(paths: SyncPaths, machine: string, head: string | null): Promise<string | null> {
  if (!head) return null;
  const record = await runGit(['cat-file', 'blob', `${head}:${publicationPath(machine)}`], { cwd: paths.work });
  if (record.code !== 0) return null;
  let owner: unknown;
  try {
    owner = (JSON.parse(record.stdout.toString('utf8')) as { library_id?: unknown }).library_id;
  } catch {
    return null;
  }
  return typeof owner === 'string' && owner !== libraryId(paths.library) ? foreignFolderReason(machine) : null;
}

function saveRenderCache(paths: SyncPaths, cache: RenderCache): void {
  try {
    fs.writeFileSync(renderCacheFile(paths), JSON.stringify(cache));
  } catch {
    // a cache only
  }
}
