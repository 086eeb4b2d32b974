/**
 * Reads of an agent's files confined to its source roots (docs/security.md, "What an export
 * reads"): a path is read only when its real path stays inside one of the roots, so a link in
 * the store that leads out (to ~/.pgpass) is never followed. The codex exporter
 * (src/participants/codex) and the turn compiler (operations/codex-turn.ts) both read Codex's
 * home through this, so they follow one rule. Nothing here writes.
 */
import type { Stats } from 'node:fs';
import { lstat, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { DatabaseFiles } from './sqlite.js';

/** The real path of `file`, or `file` resolved when it does not exist. */
export async function realOrSelf(file: string): Promise<string> {
  try {
    return await realpath(file);
  } catch {
    return path.resolve(file);
  }
}

/** Is `real` (a resolved path) inside one of the roots? */
function insideRoots(real: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    const relative = path.relative(root, real);
    return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
  });
}

/**
 * The stats of a file or directory we may read, following a symlink only when it resolves inside
 * the roots; undefined when absent or pointing out.
 */
export async function safeStat(file: string, roots: readonly string[]): Promise<Stats | undefined> {
  let info: Stats;
  try {
    info = await lstat(file);
  } catch {
    return undefined;
  }
  if (!info.isSymbolicLink()) {
    // The path itself may pass through a symlinked parent; check where it really is.
    if (!insideRoots(await realOrSelf(file), roots)) return undefined;
    return info;
  }
  try {
    const real = await realpath(file);
    if (!insideRoots(real, roots)) return undefined;
    return await stat(real);
  } catch {
    return undefined;
  }
}

export async function safeFile(file: string, roots: readonly string[]): Promise<Stats | undefined> {
  const info = await safeStat(file, roots);
  return info?.isFile() ? info : undefined;
}

export async function safeDirectory(dir: string, roots: readonly string[]): Promise<boolean> {
  return (await safeStat(dir, roots))?.isDirectory() ?? false;
}

/**
 * The files SQLite would read for the database `file`, each confined to the roots as any file
 * is: a write-ahead log or rollback journal beside it that leads out is left out, with one
 * warning, and the database is read as if it had none (its checkpointed rows).
 */
export async function confinedDatabaseFiles(
  file: string,
  roots: readonly string[],
  warnings: string[],
): Promise<DatabaseFiles> {
  const companion = async (suffix: string): Promise<string | undefined> => {
    const beside = file + suffix;
    if (!(await lstat(beside).catch(() => undefined))) return undefined;
    if (await safeFile(beside, roots)) return beside;
    warnings.push(`${beside}: skipped, it is a link leading outside ${roots.join(' and ')}`);
    return undefined;
  };
  return { main: file, wal: await companion('-wal'), journal: await companion('-journal') };
}
