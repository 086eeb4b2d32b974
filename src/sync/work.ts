/**
 * The working area: a git repository under the config dir where the published tree is built
 * and the remote is fetched. It belongs to sync alone, so anything odd in it (a push killed
 * half-way, a stale index lock) is dealt with by resetting it to the remote, or making it
 * afresh.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BourdonError } from '../core/errors.js';
import { git, runGit, gitReason } from './git.js';
import type { RemoteConfig, SyncPaths, SyncState } from './workspace.js';

/** The remote-tracking ref the branch is fetched into. */
export function trackingRef(config: RemoteConfig): string {
  return `refs/remotes/origin/${config.branch}`;
}

async function isUsable(paths: SyncPaths, config: RemoteConfig): Promise<boolean> {
  if (!fs.existsSync(path.join(paths.work, '.git', 'HEAD'))) return false;
  // Asked of this repository exactly (--git-dir): never of a repository around the config dir.
  const url = await runGit(['--git-dir', path.join(paths.work, '.git'), 'config', '--get', 'remote.origin.url']);
  return url.code === 0 && url.stdout.toString('utf8').trim() === config.remote;
}

/** The working area, made when missing, remade when it is not a repository for this remote. */
export async function ensureWork(paths: SyncPaths, config: RemoteConfig): Promise<void> {
  if (await isUsable(paths, config)) {
    // A git process killed mid-write leaves its index lock; only sync uses this repository,
    // and it holds the sync lock, so the lock is stale.
    fs.rmSync(`${paths.work}/.git/index.lock`, { force: true });
    return;
  }
  fs.rmSync(paths.work, { recursive: true, force: true });
  fs.mkdirSync(paths.work, { recursive: true, mode: 0o700 });
  const cwd = paths.work;
  await git(['init', '-q'], { cwd });
  await git(['symbolic-ref', 'HEAD', `refs/heads/${config.branch}`], { cwd });
  await git(['remote', 'add', 'origin', config.remote], { cwd });
  // The user's hooks and signing setup are for their own repositories, not this one.
  await git(['config', 'core.hooksPath', '/dev/null'], { cwd });
  await git(['config', 'commit.gpgsign', 'false'], { cwd });
  await git(['config', 'gc.auto', '0'], { cwd });
  await git(['config', 'core.autocrlf', 'false'], { cwd });
}

/** Fetches the branch; answers the remote's head commit, or null when the branch does not exist yet. */
export async function fetchRemote(paths: SyncPaths, config: RemoteConfig): Promise<string | null> {
  const result = await runGit(
    ['fetch', '--quiet', '--no-tags', '--prune', 'origin', `+refs/heads/*:refs/remotes/origin/*`],
    { cwd: paths.work },
  );
  if (result.code !== 0) throw new BourdonError(`cannot fetch from the remote: ${gitReason(result)}`, 'unavailable');
  const head = await runGit(['rev-parse', '--verify', '--quiet', `${trackingRef(config)}^{commit}`], {
    cwd: paths.work,
  });
  return head.code === 0 ? head.stdout.toString('utf8').trim() : null;
}

/**
 * Whether the remote's history still contains the last commit this machine saw there. When it
 * does not (a force-push rewrote or removed it), sync refuses to go on: the remote is not the
 * one this machine knew, and what it says now cannot be taken as the team's history.
 */
export async function historyRewritten(paths: SyncPaths, state: SyncState, head: string | null): Promise<boolean> {
  if (!state.known_head) return false;
  if (head === null) return true;
  if (head === state.known_head) return false;
  const known = await runGit(['cat-file', '-e', `${state.known_head}^{commit}`], { cwd: paths.work });
  if (known.code !== 0) return true;
  const ancestor = await runGit(['merge-base', '--is-ancestor', state.known_head, head], { cwd: paths.work });
  return ancestor.code !== 0;
}

export function rewriteError(state: SyncState, head: string | null): BourdonError {
  const what = head === null ? 'the branch is gone' : `its head is now ${head.slice(0, 12)}`;
  return new BourdonError(
    `the remote's history was rewritten: the commit this machine last saw there (${state.known_head!.slice(0, 12)}) is no longer in it (${what}); nothing was changed. If the rewrite was intended, run again with --accept-rewrite`,
    'conflict',
  );
}

/** Commit identity: the user's own when git has one, else one naming this machine. */
export async function commitEnv(paths: SyncPaths, machine: string): Promise<NodeJS.ProcessEnv> {
  const [email, name] = await Promise.all([
    runGit(['config', '--get', 'user.email'], { cwd: paths.work }),
    runGit(['config', '--get', 'user.name'], { cwd: paths.work }),
  ]);
  const env: NodeJS.ProcessEnv = {};
  if (name.code !== 0 && !process.env.GIT_AUTHOR_NAME) {
    env.GIT_AUTHOR_NAME = `bourdon (${machine})`;
    env.GIT_COMMITTER_NAME = `bourdon (${machine})`;
  }
  if (email.code !== 0 && !process.env.GIT_AUTHOR_EMAIL) {
    env.GIT_AUTHOR_EMAIL = `bourdon@${machine}`;
    env.GIT_COMMITTER_EMAIL = `bourdon@${machine}`;
  }
  return env;
}

/**
 * Puts this machine's folder as `head` has it, and nothing else, in the working tree: every
 * other file is removed. Nothing is checked out: a teammate's commit may hold paths git refuses
 * to check out (`.git/config`), which would stop every push; other machines' folders are never
 * read here, and the commit is built by splicing this folder into `head`'s tree (commitFolder).
 * Only entries `keep` accepts (this machine's publication record and manifests, as regular
 * files) are written; answers how many others the folder held (a directory where a manifest
 * belongs, a link, a stray file), which the next commit removes.
 */
export async function checkoutFolder(
  paths: SyncPaths,
  head: string | null,
  folder: string,
  keep: (entry: TreeEntry) => boolean,
): Promise<{ dropped: number }> {
  for (const name of fs.readdirSync(paths.work))
    if (name !== '.git') fs.rmSync(path.join(paths.work, name), { recursive: true, force: true });
  if (!head) return { dropped: 0 };
  const entries = await listTree(paths, head, `${folder}/`);
  const kept = entries.filter(keep);
  const blobs = await readBlobs(
    paths,
    kept.map((entry) => entry.blob),
  );
  for (const entry of kept) {
    const file = path.join(paths.work, entry.path);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, blobs.get(entry.blob) ?? Buffer.alloc(0), { flag: 'wx', mode: 0o644 });
  }
  return { dropped: entries.length - kept.length };
}

/** A tree with `subtree` at `parts` (folders made or replaced on the way), written with mktree. */
async function spliceTree(paths: SyncPaths, tree: string | null, parts: readonly string[], subtree: string) {
  const entries = tree ? (await git(['ls-tree', '-z', tree], { cwd: paths.work })).split('\0').filter(Boolean) : [];
  const [name, ...rest] = parts;
  const at = entries.findIndex((line) => line.slice(line.indexOf('\t') + 1) === name);
  let id = subtree;
  if (rest.length) {
    const line = entries[at];
    const current = line !== undefined ? line.slice(0, line.indexOf('\t')).split(' ') : null;
    id = await spliceTree(paths, current?.[1] === 'tree' ? current[2]! : null, rest, subtree);
  }
  const entry = `040000 tree ${id}\t${name}`;
  if (at >= 0) entries[at] = entry;
  else entries.push(entry);
  return (await git(['mktree', '-z'], { cwd: paths.work, input: entries.map((line) => `${line}\0`).join('') })).trim();
}

/**
 * The commit that sets `folder` to what the working tree holds and keeps every other path of
 * `head` as it is; null when that changes nothing. Built in an index of its own, so nothing
 * of the other folders is ever checked out (see checkoutFolder).
 */
export async function commitFolder(
  paths: SyncPaths,
  head: string | null,
  folder: string,
  message: string,
  identity: NodeJS.ProcessEnv,
): Promise<string | null> {
  const index = path.join(paths.work, '.git', 'bourdon-folder-index');
  fs.rmSync(index, { force: true });
  const env = { GIT_INDEX_FILE: index };
  const cwd = paths.work;
  await git(['read-tree', '--empty'], { cwd, env });
  await git(['add', '-A', '--force', '--', folder], { cwd, env });
  const subtree = (await git(['write-tree', `--prefix=${folder}/`], { cwd, env })).trim();
  const headTree = head ? (await git(['rev-parse', `${head}^{tree}`], { cwd })).trim() : null;
  const tree = await spliceTree(paths, headTree, folder.split('/'), subtree);
  fs.rmSync(index, { force: true });
  if (tree === headTree) return null;
  const parents = head ? ['-p', head] : [];
  return (await git(['commit-tree', tree, ...parents, '-F', '-'], { cwd, env: identity, input: message })).trim();
}

export interface TreeEntry {
  mode: string;
  type: string;
  blob: string;
  size: number;
  path: string;
}

/** Every entry under `prefix` in a commit's tree, with sizes (`git ls-tree -r -l -z`). */
export async function listTree(paths: SyncPaths, commit: string, prefix: string): Promise<TreeEntry[]> {
  const out = await git(['ls-tree', '-r', '-l', '-z', '--full-tree', commit, '--', prefix], { cwd: paths.work });
  const entries: TreeEntry[] = [];
  for (const line of out.split('\0')) {
    if (!line) continue;
    const tab = line.indexOf('\t');
    // git ls-tree -l: `<mode> <type> <blob> <size>\t<path>`.
    const [mode, type, blob, size] = line.slice(0, tab).split(/ +/);
    entries.push({
      mode: mode!,
      type: type!,
      blob: blob!,
      size: size === '-' ? 0 : Number(size),
      path: line.slice(tab + 1),
    });
  }
  return entries;
}

/** The contents of blobs, read in one `git cat-file --batch`. */
export async function readBlobs(paths: SyncPaths, blobs: readonly string[]): Promise<Map<string, Buffer>> {
  const found = new Map<string, Buffer>();
  if (blobs.length === 0) return found;
  const result = await runGit(['cat-file', '--batch'], {
    cwd: paths.work,
    input: blobs.join('\n') + '\n',
    maxBuffer: 1024 * 1024 * 1024,
  });
  if (result.code !== 0) throw new BourdonError(`cannot read the remote's files: ${gitReason(result)}`, 'unavailable');
  const data = result.stdout;
  let at = 0;
  while (at < data.length) {
    const end = data.indexOf(0x0a, at);
    if (end < 0) break;
    const [sha = '', type, size] = data.subarray(at, end).toString('utf8').split(' '); // split gives at least one part
    at = end + 1;
    if (type === 'missing' || size === undefined) continue;
    const length = Number(size);
    found.set(sha, data.subarray(at, at + length));
    at += length + 1;
  }
  return found;
}
