/**
 * Where sync keeps its things and what it remembers. Per library (keyed by the library's
 * resolved path), under the config dir: `<BOURDON_HOME>/sync/<digest>/` holds `remote.json`
 * (the remote and branch `sync init` recorded), `state.json` (the last remote commit this
 * machine saw and verified, for the rewrite check, and when it last pulled and pushed), `work/`
 * (the git working area the published tree is built in; the library itself is never a git
 * repository) and the lock that keeps two syncs of one library apart. Pulled manifests live in
 * the library (`pulled/`, read by the store: store/pulled.ts).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Env } from '../core/context.js';
import { BourdonError, describeError, readFailureCode, errnoOf } from '../core/errors.js';
import { configPaths, envValue } from '../core/store/config.js';
import { nameHash } from '../core/store/hashing.js';
import { isValidAgentId } from '../core/store/ids.js';
import { writeFileDurably } from '../core/fs/atomic.js';
import { lockFileSync } from '../core/fs/gate.js';
import { maskUrl } from './git.js';

export interface SyncPaths {
  /** The library root, resolved. */
  library: string;
  dir: string;
  remoteFile: string;
  stateFile: string;
  work: string;
  lock: string;
}

export interface RemoteConfig {
  remote: string;
  branch: string;
}

export interface SyncState {
  /** The newest remote commit this machine has seen and accepted (after a push or a pull). */
  known_head: string | null;
  last_pulled: string | null;
  last_pulled_at: string | null;
  last_pushed: string | null;
  last_pushed_at: string | null;
}

const EMPTY_STATE: SyncState = {
  known_head: null,
  last_pulled: null,
  last_pulled_at: null,
  last_pushed: null,
  last_pushed_at: null,
};

export function syncPaths(libraryRoot: string, env: Env): SyncPaths {
  const library = path.resolve(libraryRoot);
  const dir = path.join(configPaths(env).home, 'sync', `library-${nameHash(library)}`);
  return {
    library,
    dir,
    remoteFile: path.join(dir, 'remote.json'),
    stateFile: path.join(dir, 'state.json'),
    work: path.join(dir, 'work'),
    lock: path.join(dir, 'sync'),
  };
}

/**
 * This machine's name on the remote: BOURDON_LOCAL_NAME, which must be a valid id (it names a
 * folder), else the host name folded into one (lower case, other characters as `-`).
 */
export function syncMachineName(env: Env): string {
  const named = envValue(env, 'BOURDON_LOCAL_NAME')?.trim();
  if (named !== undefined) {
    if (!isValidAgentId(named))
      throw new BourdonError(
        `BOURDON_LOCAL_NAME ${JSON.stringify(named)} cannot name this machine on the remote: it must match ^[a-z0-9][a-z0-9_-]*$ (64 characters at most)`,
        'invalid_input',
      );
    return named;
  }
  const folded = os
    .hostname()
    .toLowerCase()
    .split('.')[0]!
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+/, '')
    .slice(0, 64);
  if (!isValidAgentId(folded))
    throw new BourdonError(
      `the host name ${JSON.stringify(os.hostname())} cannot name this machine on the remote: set BOURDON_LOCAL_NAME`,
      'invalid_input',
    );
  return folded;
}

/** The file in the library root that holds its id (libraryId). */
const LIBRARY_ID_FILE = '.bourdon-library-id';

/**
 * This library's id: generated once (a random UUID) and kept in the library root, so a machine
 * folder on the remote can say which library owns it — two machines that fold to one name
 * (the same host name) are then told apart, and neither replaces the other's folder. A link
 * or anything but a small regular file there is refused, never read through.
 */
export function libraryId(library: string): string {
  const file = path.join(library, LIBRARY_ID_FILE);
  return libraryRootFile(file, {
    what: 'id file',
    maxBytes: 100,
    read: (text) => {
      const id = text.trim();
      if (!/^[0-9a-f-]{36}$/.test(id))
        throw new BourdonError(`${file} holds no valid library id: remove it`, 'invalid_input');
      return id;
    },
    make: () => ({ text: `${randomUUID()}\n`, mode: 0o644 }),
  })!;
}

/**
 * A small file the library root keeps for sync (its id, its signing key): read, or made once
 * (`make`). A link or anything but a regular file of at most `maxBytes` is refused, never read
 * through; one made by another process at the same moment is read, not replaced. Null when
 * there is none and nothing is to be made.
 */
export function libraryRootFile<T>(
  file: string,
  options: {
    what: string;
    maxBytes: number;
    read: (text: string, stat: fs.Stats) => T;
    make?: () => { text: string; mode: number };
  },
): T | null {
  const read = (): T | null => {
    const stat = fs.lstatSync(file, { throwIfNoEntry: false });
    if (!stat) return null;
    if (!stat.isFile() || stat.size > options.maxBytes)
      throw new BourdonError(
        `${file} is not the library's ${options.what} (a link or something else): remove it`,
        'invalid_input',
      );
    return options.read(fs.readFileSync(file, 'utf8'), stat);
  };
  const known = read();
  if (known !== null || !options.make) return known;
  const made = options.make();
  try {
    fs.writeFileSync(file, made.text, { flag: 'wx', mode: made.mode });
  } catch (error) {
    // Made by another process just now: read it below.
    if (errnoOf(error) !== 'EEXIST') throw error;
  }
  return read();
}

/**
 * A remote the user's git may reach: a path, an ssh or https URL. Refused: credentials in the
 * URL (they would be stored in plain text: use a credential helper or ssh), git's
 * `<transport>::<address>` form (it can run programs), and anything git would read as an option.
 */
export function checkRemote(remote: string): string {
  const value = remote.trim();
  if (!value) throw new BourdonError('the remote is empty', 'usage');
  if (value.startsWith('-'))
    throw new BourdonError(`invalid remote ${JSON.stringify(value)}: starts with "-"`, 'usage');
  if (/[\p{Cc}]/u.test(value)) throw new BourdonError('invalid remote: it contains control characters', 'usage');
  if (/^[a-z][a-z0-9+.-]*::/i.test(value))
    throw new BourdonError(
      `invalid remote ${JSON.stringify(value)}: the <transport>::<address> form is not accepted`,
      'usage',
    );
  if (maskUrl(value) !== value)
    throw new BourdonError(
      'the remote URL carries credentials: they would be stored in plain text; use your git credential helper or ssh instead',
      'usage',
    );
  return value;
}

/** The branch the published tree lives on: a plain branch name. */
export function checkBranch(branch: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$/.test(branch) || branch.includes('..') || branch.endsWith('.lock'))
    throw new BourdonError(`invalid branch ${JSON.stringify(branch)}`, 'usage');
  return branch;
}

export function readRemoteConfig(paths: SyncPaths): RemoteConfig | null {
  let text: string;
  try {
    text = fs.readFileSync(paths.remoteFile, 'utf8');
  } catch (error) {
    if (errnoOf(error) !== 'ENOENT')
      throw new BourdonError(`cannot read ${paths.remoteFile}: ${describeError(error)}`, readFailureCode(error));
    return adoptRenamedWorkspace(paths) ? readRemoteConfig(paths) : null;
  }
  try {
    const parsed = JSON.parse(text) as Partial<RemoteConfig>;
    if (typeof parsed.remote !== 'string' || typeof parsed.branch !== 'string') throw new Error('missing fields');
    return { remote: checkRemote(parsed.remote), branch: checkBranch(parsed.branch) };
  } catch (error) {
    throw new BourdonError(
      `${paths.remoteFile} is not valid (${describeError(error)}): run \`bourdon sync init <remote>\` again`,
      'invalid_input',
    );
  }
}

/**
 * Moves this library's workspace to `paths.dir` when it sits under another name in the same
 * folder (the name is a digest of the library's path, and the digest changed from FNV-1a to
 * SHA-256): the one whose remote.json names this library. True when one was moved.
 */
function adoptRenamedWorkspace(paths: SyncPaths): boolean {
  const parent = path.dirname(paths.dir);
  let names: string[];
  try {
    names = fs.readdirSync(parent).filter((name) => /^library-[0-9a-f]{16}$/.test(name));
  } catch {
    return false;
  }
  for (const name of names) {
    const dir = path.join(parent, name);
    if (dir === paths.dir) continue;
    try {
      const recorded = (JSON.parse(fs.readFileSync(path.join(dir, 'remote.json'), 'utf8')) as { library?: unknown })
        .library;
      if (recorded !== paths.library) continue;
      fs.renameSync(dir, paths.dir);
      return true;
    } catch {
      // Unreadable, not this library's, or moved by a sync running beside this one: go on.
      if (fs.existsSync(paths.remoteFile)) return true;
    }
  }
  return false;
}

/** The remote config, or a clear error saying how to set one. */
export function requireRemoteConfig(paths: SyncPaths): RemoteConfig {
  const config = readRemoteConfig(paths);
  if (!config)
    throw new BourdonError(
      `no sync remote for the library ${paths.library}: run \`bourdon sync init <remote>\` first`,
      'not_found',
    );
  return config;
}

export function writeRemoteConfig(paths: SyncPaths, config: RemoteConfig): void {
  fs.mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  writeFileDurably(paths.remoteFile, JSON.stringify({ ...config, library: paths.library }, null, 2) + '\n', 0o600);
}

export function readState(paths: SyncPaths): SyncState {
  try {
    const parsed = JSON.parse(fs.readFileSync(paths.stateFile, 'utf8')) as Partial<SyncState>;
    const sha = (value: unknown) => (typeof value === 'string' && /^[0-9a-f]{40,64}$/.test(value) ? value : null);
    const text = (value: unknown) => (typeof value === 'string' ? value : null);
    return {
      known_head: sha(parsed.known_head),
      last_pulled: sha(parsed.last_pulled),
      last_pulled_at: text(parsed.last_pulled_at),
      last_pushed: sha(parsed.last_pushed),
      last_pushed_at: text(parsed.last_pushed_at),
    };
  } catch {
    return { ...EMPTY_STATE };
  }
}

export function writeState(paths: SyncPaths, state: SyncState): void {
  writeFileDurably(paths.stateFile, JSON.stringify(state, null, 2) + '\n', 0o600);
}

/** Runs `fn` holding this library's sync lock: one push, pull or status at a time. */
export async function withSyncLock<T>(paths: SyncPaths, fn: () => Promise<T>): Promise<T> {
  fs.mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  const release = lockFileSync(paths.lock, { timeoutMs: 60_000 });
  try {
    return await fn();
  } finally {
    release();
  }
}
