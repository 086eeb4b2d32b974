/**
 * Where Codex keeps its memory, and safe access to it: the Codex home (`$CODEX_HOME`, else
 * `~/.codex`), the `~/codex-brain` overlay, the sources the engine reports as capabilities, and
 * reads that are bounded and never follow a link out of their source root (the Codex home or
 * the overlay; either may itself be a link). The rule, and its one warning per refused file, is
 * core/native/confined-reads.ts, which SourceReader and the turn compiler follow too. Nothing
 * here writes.
 */
import type { Dirent, Stats } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ExportEnvironment, SourceStatus } from '../kit/participant.js';
import { CODEX_STATE_DB, findCodexHome, isDirectory, normalizeLocalPath } from '../../core/native/codex-home.js';
import {
  confinedDirectory,
  confinedFile,
  confinedStat,
  warnIfSpecial,
  type Warn,
} from '../../core/native/confined-reads.js';
import { compareCodePoints } from './text.js';

export { normalizeLocalPath };

export interface CodexLocations {
  readonly home: string;
  readonly cwd: string;
  /** The platform whose path spellings apply. */
  readonly platform: NodeJS.Platform;
  /** The Codex home, when it is a directory. */
  readonly codexHome: string | undefined;
  /** `~/codex-brain`, when it is a directory. */
  readonly codexBrain: string | undefined;
}

/**
 * A `Warn` that adds each message to `warnings` once: several reads ask about the same file (the
 * sources, then the read), and each refusal is one warning.
 */
export function warnOnceInto(warnings: string[]): Warn {
  return (message) => {
    if (!warnings.includes(message)) warnings.push(message);
  };
}

async function statOrUndefined(file: string): Promise<Stats | undefined> {
  try {
    return await stat(file);
  } catch {
    return undefined;
  }
}

export async function locate(environment: ExportEnvironment): Promise<CodexLocations> {
  const home = path.resolve(environment.home);
  const cwd = path.resolve(environment.cwd);
  const codexHome = await findCodexHome({ home, cwd, env: environment.env, platform: environment.platform });
  const brain = path.join(home, 'codex-brain');
  const codexBrain = (await isDirectory(brain)) ? brain : undefined;
  return { home, cwd, platform: environment.platform, codexHome, codexBrain };
}

/** Most files a directory walk returns (a runaway tree is cut there). */
const MAX_WALK_FILES = 200_000;

export interface WalkedFile {
  readonly path: string;
  /** Path parts below the walk root (the engine sorts `Path` objects by their parts). */
  readonly parts: readonly string[];
  /** Bytes; -1 when the walk was asked not to stat. */
  readonly size: number;
}

/**
 * Every regular file below `dir` (read under the source root `root`) whose name passes `accept`,
 * depth first in name order. Symlinked directories are not entered (as `Path.rglob` does not); a
 * symlinked file is kept only when it resolves inside the root, else refused through `warn`; a
 * FIFO, a device or a socket with an accepted name is named through `warn` and skipped.
 */
export async function walkFiles(
  dir: string,
  root: string,
  accept: (name: string) => boolean,
  warn: Warn,
  options: { sizes: boolean } = { sizes: true },
): Promise<WalkedFile[]> {
  const found: WalkedFile[] = [];
  const visit = async (folder: string, prefix: readonly string[]): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (found.length >= MAX_WALK_FILES) return;
      const full = path.join(folder, entry.name);
      const parts = [...prefix, entry.name];
      if (entry.isDirectory()) {
        await visit(full, parts);
      } else if (accept(entry.name)) {
        if (entry.isFile()) {
          if (!options.sizes) {
            found.push({ path: full, parts, size: -1 });
            continue;
          }
          const info = await statOrUndefined(full);
          if (info) found.push({ path: full, parts, size: info.size });
        } else if (entry.isSymbolicLink()) {
          const info = confinedFile(full, root, warn);
          if (info) found.push({ path: full, parts, size: info.size });
        } else warnIfSpecial(full, entry, warn);
      }
    }
  };
  if (confinedDirectory(dir, root, warn)) await visit(dir, []);
  return found;
}

/** Orders walked files as Python sorts `Path` objects: part by part. */
export function compareParts(a: readonly string[], b: readonly string[]): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const order = compareCodePoints(a[i] ?? '', b[i] ?? '');
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

/** The first `maxBytes` of a file. */
export async function readHead(file: string, maxBytes: number): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    // Sized by the file (plus one byte, to see growth), never by the bound alone.
    const size = (await handle.stat()).size;
    const buffer = Buffer.allocUnsafe(Math.min(maxBytes, size + 1));
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

/** Largest memory file read whole; a larger one is read up to this size (and reported). */
const MAX_TEXT_FILE_BYTES = 16 * 1024 * 1024;

/** A text file as UTF-8 (invalid bytes replaced), up to MAX_TEXT_FILE_BYTES. */
export async function readText(file: string): Promise<{ text: string; truncated: boolean }> {
  const head = await readHead(file, MAX_TEXT_FILE_BYTES + 1);
  const truncated = head.length > MAX_TEXT_FILE_BYTES;
  return { text: head.subarray(0, MAX_TEXT_FILE_BYTES).toString('utf8'), truncated };
}

/** The source names the engine reports, in its order (capabilities are the found ones, sorted). */
const SOURCE_NAMES = [
  'codex_home',
  'state_db',
  'session_index',
  'sessions_dir',
  'memories_dir',
  'memory_md',
  'raw_memories',
  'rollout_summaries_dir',
  'codex_brain',
] as const;

export type SourceName = (typeof SOURCE_NAMES)[number];

function isoModified(info: Stats | undefined): string | undefined {
  return info ? new Date(info.mtimeMs).toISOString() : undefined;
}

/** Every source, found or not, with its path and last modification; one that may not be read is not found (said through `warn`). */
export function discoverSources(where: CodexLocations, warn: Warn): SourceStatus[] {
  const base = where.codexHome ?? path.join(where.home, '.codex');
  const memories = path.join(base, 'memories');
  const paths: Record<SourceName, string> = {
    codex_home: base,
    state_db: path.join(base, CODEX_STATE_DB),
    session_index: path.join(base, 'session_index.jsonl'),
    sessions_dir: path.join(base, 'sessions'),
    memories_dir: memories,
    memory_md: path.join(memories, 'MEMORY.md'),
    raw_memories: path.join(memories, 'raw_memories.md'),
    rollout_summaries_dir: path.join(memories, 'rollout_summaries'),
    codex_brain: where.codexBrain ?? path.join(where.home, 'codex-brain'),
  };
  const wantsDirectory = new Set<SourceName>([
    'codex_home',
    'sessions_dir',
    'memories_dir',
    'rollout_summaries_dir',
    'codex_brain',
  ]);
  const statuses: SourceStatus[] = [];
  for (const name of SOURCE_NAMES) {
    const file = paths[name];
    const homeMissing = where.codexHome === undefined && name !== 'codex_brain';
    const root = name === 'codex_brain' ? paths.codex_brain : base;
    const info = homeMissing ? undefined : confinedStat(file, root, warn);
    const found = info !== undefined && (wantsDirectory.has(name) ? info.isDirectory() : info.isFile());
    statuses.push(found ? { name, path: file, found, modified: isoModified(info) } : { name, path: file, found });
  }
  return statuses;
}
