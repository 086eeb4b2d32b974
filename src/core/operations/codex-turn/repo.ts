/**
 * Where a Codex turn runs: its working directory (as the engine resolves it) and the git
 * repository around it (name, root, the `origin` remote). Read-only; nothing runs git.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pyStrip } from '../../native/scrub.js';

export interface RepoIdentity {
  name: string | null;
  root: string | null;
  remote: string | null;
}

/** `~` and `~/…` against the home, as `Path.expanduser` does. */
export function expandUser(text: string, home: string): string {
  if (text === '~') return home;
  return text.startsWith('~/') ? path.join(home, text.slice(2)) : text;
}

/**
 * `Path.resolve(strict=False)`: absolute against `base`, symlinks resolved as far as the path
 * exists, the part that does not exist kept as written. Remembered per call in `seen` (a turn
 * resolves the same few session folders many times).
 */
export function resolveLoose(target: string, base: string, seen?: Map<string, string>): string {
  const absolute = path.resolve(base, target);
  const known = seen?.get(absolute);
  if (known !== undefined) return known;
  let resolved: string;
  try {
    resolved = fs.realpathSync(absolute);
  } catch {
    const parent = path.dirname(absolute);
    resolved = parent === absolute ? absolute : path.join(resolveLoose(parent, base, seen), path.basename(absolute));
  }
  seen?.set(absolute, resolved);
  return resolved;
}

/** The turn's folder: the server's own when none is given, none when blank, else resolved. */
export function resolveTurnCwd(asked: string | null, serverCwd: string, home: string): string | null {
  if (asked === null) return serverCwd;
  const text = pyStrip(asked);
  if (!text) return null;
  return resolveLoose(expandUser(text, home), serverCwd);
}

function isDirectory(file: string): boolean {
  try {
    return fs.statSync(file).isDirectory();
  } catch {
    return false;
  }
}

/** The nearest folder at or above `cwd` (its parent when `cwd` is no folder) holding an entry `.git`. */
function gitRoot(cwd: string): string | null {
  let current = isDirectory(cwd) ? cwd : path.dirname(cwd);
  for (;;) {
    if (fs.existsSync(path.join(current, '.git'))) return current;
    const parent = path.dirname(current);
    if (parent === current) return null;
    current = parent;
  }
}

/**
 * The `url` of `[remote "origin"]` in a git config, read as Python's `configparser` reads it (the
 * engine's reader): `key = value` or `key: value` lines, keys case-insensitive, a more indented
 * line continuing the value above, `#` and `;` lines comments. A file configparser refuses — a
 * line before any section, a line that is neither, a section or key given twice — has no remote.
 */
function originUrl(configText: string): string | null {
  const sections = new Map<string, Map<string, string>>();
  let section: Map<string, string> | null = null;
  let option: string | null = null;
  let optionIndent = 0;
  for (const line of configText.split(/\r\n|\r|\n/)) {
    const stripped = pyStrip(line);
    const indent = line.length - line.trimStart().length;
    if (!stripped || stripped.startsWith('#') || stripped.startsWith(';')) {
      if (!stripped && section && option) section.set(option, `${section.get(option)}\n`);
      continue;
    }
    if (section && option && indent > optionIndent) {
      section.set(option, `${section.get(option)}\n${stripped}`);
      continue;
    }
    const header = /^\[(.+)\]/.exec(stripped);
    if (header) {
      const name = header[1]!;
      if (sections.has(name)) return null;
      section = new Map();
      sections.set(name, section);
      option = null;
      continue;
    }
    if (!section) return null;
    const pair = /^(.*?)\s*([=:])\s*(.*)$/.exec(stripped);
    if (!pair || !pair[1]!.trimEnd()) return null;
    const key = pair[1]!.trimEnd().toLowerCase();
    if (section.has(key)) return null;
    section.set(key, pair[3]!);
    option = key;
    optionIndent = indent;
  }
  const url = sections.get('remote "origin"')?.get('url');
  // Values keep a blank continuation line as an empty line; trailing ones are dropped, as configparser does.
  const value = url === undefined ? '' : pyStrip(url.replace(/\n+$/, '').replaceAll('%%', '%'));
  return value ? value : null;
}

function readOrigin(root: string): string | null {
  const git = path.join(root, '.git');
  if (!isDirectory(git)) return null;
  const config = path.join(git, 'config');
  let text: string;
  try {
    if (!fs.statSync(config).isFile()) return null;
    text = new TextDecoder('utf-8', { fatal: true }).decode(fs.readFileSync(config));
  } catch {
    return null;
  }
  return originUrl(text.startsWith('\ufeff') ? text.slice(1) : text);
}

/** The repository around the turn's folder; without one, the folder's name alone. */
export function detectRepo(cwd: string | null): RepoIdentity {
  if (cwd === null) return { name: null, root: null, remote: null };
  const root = gitRoot(cwd);
  if (root === null) return { name: path.basename(cwd) || null, root: null, remote: null };
  return { name: path.basename(root), root, remote: readOrigin(root) };
}
