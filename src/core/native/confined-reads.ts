/**
 * The one rule for reading an agent's files (docs/security.md, "What an export reads"): a path
 * read under a source root is read only when its real path stays inside the root's real path,
 * so a link in the store that leads out (to ~/.pgpass) is never followed; each refusal is one
 * warning naming the file, and so is a link that loops or leads to nothing, and a FIFO, a device
 * or a socket (skipped, never opened), while a file that is simply missing is said nothing of (a source not on this machine). The root itself may be a
 * link (a brain folder kept in a synced drive).
 *
 * Every reader of native files decides by this: the participants' SourceReader
 * (src/participants/kit/source-reader.ts, which adds which roots an export may read; every
 * participant, codex included, reads through it) and the turn compiler (operations/codex-turn/,
 * reading Codex's state database). Synchronous, as SourceReader is: a decision is two or three stats.
 * Nothing here writes.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { DatabaseFiles } from './sqlite.js';
import { errnoOf } from '../errors.js';

/** Where a refusal is said: one warning line, naming the file. */
export type Warn = (message: string) => void;

/** The real path of `target`, or null when it does not resolve (missing, a broken link, a loop). */
export function realOrNull(target: string): string | null {
  try {
    return fs.realpathSync.native(target);
  } catch {
    return null;
  }
}

/** Whether `target` is `folder` or lies inside it (both absolute, same spelling). */
export function within(target: string, folder: string): boolean {
  return target === folder || target.startsWith(folder.endsWith(path.sep) ? folder : folder + path.sep);
}

/**
 * Why `target`, which does not resolve, is worth a warning: a link that loops or leads to
 * nothing; undefined when it is simply missing (a source not on this machine).
 */
export function brokenLink(target: string): string | undefined {
  try {
    if (!fs.lstatSync(target, { throwIfNoEntry: false })) return undefined;
  } catch (error) {
    // A folder on the way loops.
    return errnoOf(error) === 'ELOOP' ? 'a link that loops' : undefined;
  }
  try {
    fs.statSync(target);
    return undefined;
  } catch (error) {
    return errnoOf(error) === 'ELOOP' ? 'a link that loops' : 'a link to nothing';
  }
}

/**
 * The real path to read `file` at, when it may be read under the source root `root`; undefined
 * when it is missing, or refused (then with one warning through `warn`). A path inside the root
 * whose real path is not (it, or a folder on its way, is a link leading out) is refused; so is a
 * path outside the root (one a store's file names) unless its real path lies inside it.
 */
export function confinedPath(file: string, root: string, warn: Warn): string | undefined {
  const target = path.resolve(file);
  const real = realOrNull(target);
  if (real === null) {
    const broken = brokenLink(target);
    if (broken) warn(`${file}: skipped, ${broken}`);
    return undefined;
  }
  const base = path.resolve(root);
  if (target === base) return real;
  const baseReal = realOrNull(base);
  if (baseReal !== null && within(real, baseReal)) return real;
  warn(`${file}: skipped, ${within(target, base) ? 'it is a link leading outside' : 'it leads outside'} ${root}`);
  return undefined;
}

/** What a path that is neither a regular file nor a folder is (a FIFO, a device, a socket); undefined for a file or a folder. */
export function specialKind(info: fs.Stats | fs.Dirent): string | undefined {
  if (info.isFIFO()) return 'a FIFO';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  if (info.isSocket()) return 'a socket';
  return undefined;
}

/**
 * Says, through `warn`, that `file` is skipped because it is a FIFO, a device or a socket (never
 * opened for reading: a FIFO would block). One message for one cause, the same wherever the
 * file is met, so a reader that says each message once says it once. True when it said so.
 */
export function warnIfSpecial(file: string, info: fs.Stats | fs.Dirent, warn: Warn): boolean {
  const kind = specialKind(info);
  if (kind) warn(`${file}: skipped, not a regular file (${kind})`);
  return kind !== undefined;
}

/**
 * The stats of `file` (read where its links lead) when it may be read under `root`; else
 * undefined (see confinedPath). A FIFO, a device or a socket is named in a warning (and its
 * stats returned: it is neither a file nor a folder to the caller).
 */
export function confinedStat(file: string, root: string, warn: Warn): fs.Stats | undefined {
  const real = confinedPath(file, root, warn);
  if (real === undefined) return undefined;
  try {
    const info = fs.statSync(real);
    warnIfSpecial(file, info, warn);
    return info;
  } catch {
    return undefined;
  }
}

/** The stats of a regular file that may be read under `root`; undefined otherwise. */
export function confinedFile(file: string, root: string, warn: Warn): fs.Stats | undefined {
  const info = confinedStat(file, root, warn);
  return info?.isFile() ? info : undefined;
}

/** Whether `dir` is a folder that may be read under `root`. */
export function confinedDirectory(dir: string, root: string, warn: Warn): boolean {
  return confinedStat(dir, root, warn)?.isDirectory() ?? false;
}

/**
 * The files SQLite would read for the database `file`, each confined to `root` as any file is;
 * undefined when the database itself is missing or refused. A write-ahead log or rollback
 * journal beside it that is refused is left out (one warning), and the database is read as if
 * it had none (its checkpointed rows). A database that is itself the source root keeps its
 * companions inside its own folder.
 */
export function confinedDatabaseFiles(file: string, root: string, warn: Warn): DatabaseFiles | undefined {
  const main = confinedPath(file, root, warn);
  if (main === undefined) return undefined;
  const companionRoot = path.resolve(file) === path.resolve(root) ? path.dirname(path.resolve(file)) : root;
  const companion = (suffix: string): string | undefined => {
    const beside = file + suffix;
    if (!fs.lstatSync(beside, { throwIfNoEntry: false })) return undefined;
    return confinedPath(beside, companionRoot, warn);
  };
  return { main, wal: companion('-wal'), journal: companion('-journal') };
}
