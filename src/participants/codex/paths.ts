/**
 * Where Codex keeps its memory: the Codex home (`$CODEX_HOME`, else `~/.codex`), the
 * `~/codex-brain` overlay, and the sources the engine reports as capabilities. Every read goes
 * through the kit's SourceReader (`readerFor`): the Codex home and the overlay are its source
 * roots (either may itself be a link), so no read follows a link out of them. Nothing here writes.
 */
import path from 'node:path';
import type { ExportEnvironment, SourceStatus } from '../kit/participant.js';
import { SourceReader } from '../kit/source-reader.js';
import { CODEX_STATE_DB, findCodexHome, isDirectory, normalizeLocalPath } from '../../core/native/codex-home.js';
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

export async function locate(environment: ExportEnvironment): Promise<CodexLocations> {
  const home = path.resolve(environment.home);
  const cwd = path.resolve(environment.cwd);
  const codexHome = await findCodexHome({ home, cwd, env: environment.env, platform: environment.platform });
  const brain = path.join(home, 'codex-brain');
  const codexBrain = (await isDirectory(brain)) ? brain : undefined;
  return { home, cwd, platform: environment.platform, codexHome, codexBrain };
}

/**
 * The reader every Codex read goes through: the home, and a `$CODEX_HOME` outside it (a folder
 * the user named). The Codex home and the overlay become its source roots as the sources are
 * looked at (`discoverSources`, first).
 */
export function readerFor(where: CodexLocations): SourceReader {
  const reader = new SourceReader([where.home], { workingFolder: where.cwd });
  if (where.codexHome !== undefined) reader.allow(where.codexHome);
  return reader;
}

/**
 * Codex's walk caps (SourceReader.walk, list): a file per session, `archived_sessions/` in one
 * folder, so a folder may hold every session a user had (the kit's default is 20,000 a folder).
 */
export const CODEX_WALK = { files: 200_000, entries: 200_000 } as const;

/** Orders walked files as Python sorts `Path` objects: part by part. */
export function compareParts(a: readonly string[], b: readonly string[]): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const order = compareCodePoints(a[i] ?? '', b[i] ?? '');
    if (order !== 0) return order;
  }
  return a.length - b.length;
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

/**
 * Every source, found or not, with its path and last modification; one that may not be read is
 * not found (said through the reader's warnings). The Codex home is looked at first, so it is
 * the source root of every file in it.
 */
export function discoverSources(where: CodexLocations, reader: SourceReader): SourceStatus[] {
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
    const info = homeMissing ? null : reader.stat(file);
    const found = info !== null && (wantsDirectory.has(name) ? info.isDirectory() : info.isFile());
    statuses.push(
      found ? { name, path: file, found, modified: info.mtime.toISOString() } : { name, path: file, found },
    );
  }
  return statuses;
}
