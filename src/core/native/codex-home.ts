/**
 * Where Codex keeps its state: the Codex home (`$CODEX_HOME` when it names a directory, else
 * `~/.codex`) and the state database in it. The codex exporter (src/participants/codex) and the
 * turn compiler (operations/codex-turn/) both find Codex through this, so they cannot disagree
 * about which home or which database they read.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { pyStrip } from './scrub.js';

/** Codex's state database, in the Codex home: threads, memory jobs, Stage 1 outputs. */
export const CODEX_STATE_DB = 'state_5.sqlite';

/** The engine's `_normalize_local_path` on a POSIX runtime: `C:\x\y` → `/mnt/c/x/y`. */
export function normalizeLocalPath(value: string, platform: NodeJS.Platform): string {
  const raw = pyStrip(value);
  if (platform === 'win32') {
    const wsl = /^\/mnt\/([A-Za-z])(?:\/(.*))?$/.exec(raw);
    if (!wsl) return raw;
    const rest = (wsl[2] ?? '').replaceAll('/', '\\');
    return `${wsl[1]!.toUpperCase()}:\\${rest}`;
  }
  const drive = /^([A-Za-z]):[\\/](.*)$/s.exec(raw);
  return drive ? `/mnt/${drive[1]!.toLowerCase()}/${drive[2]!.replaceAll('\\', '/')}` : raw;
}

export async function isDirectory(dir: string): Promise<boolean> {
  try {
    return (await stat(dir)).isDirectory();
  } catch {
    return false;
  }
}

/** What locating Codex depends on: the home, the working directory, the environment, the platform. */
export interface CodexSearch {
  readonly home: string;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly platform: NodeJS.Platform;
}

/** The Codex home: `$CODEX_HOME` when set and a directory (relative to the cwd), else `~/.codex` when one; else undefined. */
export async function findCodexHome(search: CodexSearch): Promise<string | undefined> {
  const fromEnv = search.env.CODEX_HOME;
  if (fromEnv) {
    const candidate = path.resolve(search.cwd, normalizeLocalPath(fromEnv, search.platform));
    if (await isDirectory(candidate)) return candidate;
  }
  const candidate = path.join(path.resolve(search.home), '.codex');
  return (await isDirectory(candidate)) ? candidate : undefined;
}
