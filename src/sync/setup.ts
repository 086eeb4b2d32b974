/**
 * `bourdon sync init <remote>` and the doctor's sync checks: recording the remote (after git
 * has reached it) and checking that it is still there, reachable and writable.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Env } from '../core/context.js';
import { BourdonError, describeError } from '../core/errors.js';
import { gitReason, gitVersion, isLocalRemote, maskUrl, pushOptions, runGit } from './git.js';
import { ensureWork, fetchRemote, listTree, readBlobs } from './work.js';
import { classifyPath, MACHINES_DIR, parsePublication } from './layout.js';
import { libraryKey } from './signing.js';
import { keyState, ownPublicationProblem, readTrusted } from './trust.js';
import { pushBlocker } from './push.js';
import {
  checkBranch,
  checkRemote,
  readRemoteConfig,
  readState,
  syncMachineName,
  syncPaths,
  withSyncLock,
  writeRemoteConfig,
  writeState,
} from './workspace.js';

/** A local path as an absolute one: the working area runs git elsewhere. */
function absoluteRemote(remote: string): string {
  if (!isLocalRemote(remote) || /^file:\/\//i.test(remote)) return remote;
  return path.resolve(remote);
}

/** The branch the remote's HEAD names, else the user's default branch, else git's. */
async function defaultBranch(remote: string): Promise<string> {
  const symref = await runGit(['ls-remote', '--symref', '--', remote, 'HEAD'], { timeoutMs: 60_000 });
  const match = /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(symref.stdout.toString('utf8'));
  if (match) return match[1]!;
  // An empty repository advertises no HEAD; a local one can still be asked what it names.
  if (isLocalRemote(remote)) {
    const local = await runGit(['symbolic-ref', '--short', 'HEAD'], { cwd: remote.replace(/^file:\/\//i, '') });
    const name = local.stdout.toString('utf8').trim();
    if (local.code === 0 && name) return name;
  }
  const configured = await runGit(['config', '--get', 'init.defaultBranch']);
  const name = configured.stdout.toString('utf8').trim();
  return configured.code === 0 && name ? name : 'master';
}

export interface InitResult {
  remote: string;
  branch: string;
  machine: string;
  library: string;
  working_area: string;
}

export async function initSync(options: {
  library: string;
  env: Env;
  remote: string;
  branch?: string;
}): Promise<InitResult> {
  const paths = syncPaths(options.library, options.env);
  if (!fs.existsSync(paths.library))
    throw new BourdonError(`library not found: ${paths.library} (run \`bourdon init\` first)`, 'not_found');
  const machine = syncMachineName(options.env);
  const remote = absoluteRemote(checkRemote(options.remote));
  if ((await gitVersion()) === null)
    throw new BourdonError('git is not installed or not on PATH: `bourdon sync` uses your own git', 'unavailable');
  const reached = await runGit(['ls-remote', '--heads', '--', remote], { timeoutMs: 60_000 });
  if (reached.code !== 0)
    throw new BourdonError(
      `cannot reach the remote ${maskUrl(remote)}: ${gitReason(reached)}; nothing was recorded`,
      'unavailable',
    );
  const branch = checkBranch(options.branch ?? (await defaultBranch(remote)));
  return withSyncLock(paths, async () => {
    const before = readRemoteConfig(paths);
    writeRemoteConfig(paths, { remote, branch });
    // Another remote (or branch) is another history: what this machine knew of the old one does not apply.
    if (before?.remote !== remote || before.branch !== branch)
      writeState(paths, { ...readState(paths), known_head: null, last_pulled: null, last_pushed: null });
    await ensureWork(paths, { remote, branch });
    return { remote: maskUrl(remote), branch, machine, library: paths.library, working_area: paths.work };
  });
}

export interface SyncCheck {
  id: string;
  title: string;
  verdict: 'ok' | 'info' | 'warn' | 'fail';
  summary: string;
  details: string[];
}

/** The doctor's sync checks for a library: git present, the remote reachable and writable. */
export async function syncDoctorChecks(options: { library: string; env: Env; offline: boolean }): Promise<SyncCheck[]> {
  const check = (verdict: SyncCheck['verdict'], summary: string, details: string[] = []): SyncCheck => ({
    id: 'sync',
    title: 'sync remote',
    verdict,
    summary,
    details,
  });
  const paths = syncPaths(options.library, options.env);
  let config;
  try {
    config = readRemoteConfig(paths);
  } catch (error) {
    return [check('fail', describeError(error))];
  }
  if (!config) return [check('info', 'not set up (`bourdon sync init <remote>` shares this library through git)')];
  const remote = maskUrl(config.remote);
  const version = await gitVersion();
  if (!version) return [check('fail', `git is not installed or not on PATH; the remote is ${remote}`)];
  try {
    syncMachineName(options.env);
  } catch (error) {
    return [check('fail', describeError(error))];
  }
  if (options.offline) return [check('info', `${remote} (${config.branch}); not contacted (--offline)`, [version])];
  const reached = await runGit(['ls-remote', '--heads', '--', config.remote], { timeoutMs: 30_000 });
  if (reached.code !== 0) return [check('fail', `cannot reach ${remote}: ${gitReason(reached)}`, [version])];
  const writable = await writableVerdict(paths, config);
  const own = syncMachineName(options.env);
  // Writable is not enough: the folder this machine publishes into may be another library's, or
  // hold a publication this library did not sign. Each machine's key is listed in the details.
  const seen = await withSyncLock(paths, async () => {
    await ensureWork(paths, config);
    const head = await fetchRemote(paths, config);
    const ownKey = libraryKey(paths.library, false);
    return {
      blocked: writable.verdict === 'fail' ? null : await pushBlocker(paths, own, head),
      foreign: await ownPublicationProblem(paths, own, head, ownKey?.publicKey ?? null),
      keys: [
        `this library's key: ${ownKey?.fingerprint ?? 'none yet (the first push makes it)'}`,
        ...(await publicationKeys(paths, head, own, ownKey?.publicKey ?? null)),
      ],
    };
  });
  const details = [version, ...seen.keys];
  if (seen.blocked)
    return [check('fail', `${remote} (${config.branch}): reachable; cannot push: ${seen.blocked}`, details)];
  if (seen.foreign) return [check('fail', `${remote} (${config.branch}): reachable; ${seen.foreign}`, details)];
  return [check(writable.verdict, `${remote} (${config.branch}): reachable; ${writable.summary}`, details)];
}

/** One line per machine publishing on the remote: its key's fingerprint and how it stands here. */
async function publicationKeys(
  paths: ReturnType<typeof syncPaths>,
  head: string | null,
  own: string,
  ownKey: string | null,
): Promise<string[]> {
  if (!head) return [];
  const records = (await listTree(paths, head, MACHINES_DIR)).filter(
    (entry) => classifyPath(entry.path).kind === 'publication',
  );
  const blobs = await readBlobs(
    paths,
    records.map((entry) => entry.blob),
  );
  const trusted = readTrusted(paths);
  return records.map((entry) => {
    const machine = entry.path.split('/')[1]!; // machines/<name>/publication.json
    const mine = machine === own;
    let state: { key: string | null; signature: string };
    try {
      state = keyState(parsePublication(blobs.get(entry.blob) ?? Buffer.alloc(0), machine), trusted, mine, ownKey);
    } catch {
      state = { key: null, signature: 'invalid publication' };
    }
    return `${machine}${mine ? ' (this)' : ''}: ${state.key ? `key ${state.key} ` : ''}(${state.signature})`;
  });
}

async function writableVerdict(
  paths: ReturnType<typeof syncPaths>,
  config: { remote: string; branch: string },
): Promise<{ verdict: SyncCheck['verdict']; summary: string }> {
  if (isLocalRemote(config.remote)) {
    const dir = config.remote.replace(/^file:\/\//i, '');
    try {
      fs.accessSync(path.join(dir, fs.existsSync(path.join(dir, 'objects')) ? 'objects' : '.git'), fs.constants.W_OK);
      return { verdict: 'ok', summary: 'writable' };
    } catch {
      return { verdict: 'fail', summary: 'not writable by you: pushes will fail' };
    }
  }
  const known = readState(paths).known_head;
  if (!known) return { verdict: 'info', summary: 'writability is checked by the first push' };
  return withSyncLock(paths, async () => {
    await ensureWork(paths, config);
    const dry = await runGit(
      ['push', ...pushOptions(config.remote), '--dry-run', '--quiet', 'origin', `${known}:refs/heads/${config.branch}`],
      {
        cwd: paths.work,
        timeoutMs: 30_000,
      },
    );
    return dry.code === 0
      ? { verdict: 'ok', summary: 'writable (dry-run push)' }
      : { verdict: 'fail', summary: `a dry-run push fails: ${gitReason(dry)}` };
  });
}
