/**
 * Where the official MCP memory server (`@modelcontextprotocol/server-memory`) keeps its graph:
 * MEMORY_FILE_PATH when set (`--file` sets it too), else the paths the user's MCP host configs
 * give that server in its `env.MEMORY_FILE_PATH`, else the server's own default, `memory.jsonl`
 * beside its installed code (npx's cache, or a global install). The host configs read are the
 * ones `bourdon mcp-config` writes to (docs/mcp-hosts.md): Claude Code (`~/.claude.json`, also
 * per project, and `./.mcp.json`), Claude Desktop, Cursor (`~/.cursor/mcp.json`,
 * `./.cursor/mcp.json`), VS Code (`./.vscode/mcp.json`, the user's `mcp.json`), Windsurf, and
 * Codex (`~/.codex/config.toml`).
 */
import { jsonValueOf } from '../kit/line-streams.js';
import path from 'node:path';
import type { ExportEnvironment } from '../kit/participant.js';
import type { SourceReader } from '../kit/source-reader.js';

/** The server's package, as a host config names it in `args` (or its bin in `command`). */
const SERVER_PACKAGE = /@modelcontextprotocol\/server-memory|(?:^|[/\\])mcp-server-memory(?:\.cmd)?$/;
/** Most npx cache folders looked into for the server's default file. */
const MAX_NPX_CACHES = 500;

export interface MemoryFileCandidate {
  path: string;
  /** Where the path came from (`MEMORY_FILE_PATH`, a host config's file, `server default`). */
  origin: string;
}

/** The JSON host configs and where each keeps its servers. */
function jsonConfigs(environment: ExportEnvironment): string[] {
  const { home, cwd, platform, env } = environment;
  const appData = env.APPDATA;
  const desktop =
    platform === 'darwin'
      ? path.join(home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json')
      : platform === 'win32'
        ? appData
          ? path.join(appData, 'Claude', 'claude_desktop_config.json')
          : undefined
        : path.join(home, '.config', 'Claude', 'claude_desktop_config.json');
  const codeUser =
    platform === 'darwin'
      ? path.join(home, 'Library', 'Application Support', 'Code', 'User', 'mcp.json')
      : platform === 'win32'
        ? appData
          ? path.join(appData, 'Code', 'User', 'mcp.json')
          : undefined
        : path.join(home, '.config', 'Code', 'User', 'mcp.json');
  return [
    path.join(home, '.claude.json'),
    path.join(cwd, '.mcp.json'),
    desktop,
    path.join(home, '.cursor', 'mcp.json'),
    path.join(cwd, '.cursor', 'mcp.json'),
    path.join(cwd, '.vscode', 'mcp.json'),
    codeUser,
    path.join(home, '.codeium', 'windsurf', 'mcp_config.json'),
  ].filter((file): file is string => file !== undefined);
}

type Json = Record<string, unknown>;

function isJson(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isMemoryServer(server: Json): boolean {
  const words = [server.command, ...(Array.isArray(server.args) ? server.args : [])];
  return words.some((word) => typeof word === 'string' && SERVER_PACKAGE.test(word));
}

/** Every server table in a host config: `mcpServers`, `servers`, and Claude Code's per-project ones. */
function serverTables(config: Json): Json[] {
  const tables: Json[] = [];
  for (const key of ['mcpServers', 'servers']) if (isJson(config[key])) tables.push(config[key] as Json);
  if (isJson(config.mcp) && isJson((config.mcp as Json).servers)) tables.push((config.mcp as Json).servers as Json);
  if (isJson(config.projects)) {
    for (const project of Object.values(config.projects as Json)) {
      if (isJson(project) && isJson(project.mcpServers)) tables.push(project.mcpServers as Json);
    }
  }
  return tables;
}

/** MEMORY_FILE_PATH of each memory server a JSON config declares; null for one that sets none. */
function fromJsonConfig(reader: SourceReader, file: string): (string | null)[] {
  const text = reader.readText(file);
  if (text === null) return [];
  const config = jsonValueOf(text);
  if (!isJson(config)) return [];
  const found: (string | null)[] = [];
  for (const table of serverTables(config)) {
    for (const server of Object.values(table)) {
      if (!isJson(server) || !isMemoryServer(server)) continue;
      const env = isJson(server.env) ? server.env : {};
      found.push(typeof env.MEMORY_FILE_PATH === 'string' && env.MEMORY_FILE_PATH ? env.MEMORY_FILE_PATH : null);
    }
  }
  return found;
}

/** The same from Codex's TOML: a `[mcp_servers.<name>]` table naming the server, and its env. */
function fromCodexToml(reader: SourceReader, file: string): (string | null)[] {
  const text = reader.readText(file);
  if (text === null) return [];
  const found: (string | null)[] = [];
  // Each server's table, and its `[mcp_servers.<name>.env]` sub-table, run to the next table header.
  const sections = text.split(/^(?=\[)/m);
  const byServer = new Map<string, string>();
  for (const section of sections) {
    const server = /^\[mcp_servers\.("?)([^\]".]+)\1(\.env)?\]/.exec(section)?.[2];
    if (server !== undefined) byServer.set(server, (byServer.get(server) ?? '') + section);
  }
  for (const body of byServer.values()) {
    if (!/@modelcontextprotocol\/server-memory|mcp-server-memory/.test(body)) continue;
    const value = /MEMORY_FILE_PATH\s*=\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)')/.exec(body);
    const written = value ? (value[1] ?? value[2]) : undefined;
    found.push(written === undefined ? null : written.replace(/\\(.)/g, '$1'));
  }
  return found;
}

/** Where the server's code may be installed: npx's cache folders, then global installs. */
function serverInstallDirs(environment: ExportEnvironment, reader: SourceReader): string[] {
  const dirs: string[] = [];
  const npx = path.join(environment.home, '.npm', '_npx');
  for (const cache of reader.list(npx).slice(0, MAX_NPX_CACHES)) {
    dirs.push(path.join(npx, cache, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist'));
  }
  const globals = [
    path.join(environment.home, '.npm-global', 'lib', 'node_modules'),
    '/usr/local/lib/node_modules',
    '/usr/lib/node_modules',
    '/opt/homebrew/lib/node_modules',
  ];
  for (const root of globals) {
    const dist = path.join(root, '@modelcontextprotocol', 'server-memory', 'dist');
    reader.allow(dist); // a global install lives outside the home; only this folder is read there
    dirs.push(dist);
  }
  return dirs.filter((dir) => reader.isDir(dir));
}

/** A MEMORY_FILE_PATH as the server resolves it: absolute as is, relative against its code's folder. */
function resolveServerPath(value: string, installs: readonly string[], environment: ExportEnvironment): string[] {
  const expanded = value.startsWith('~/') ? path.join(environment.home, value.slice(2)) : value;
  if (path.isAbsolute(expanded)) return [expanded];
  return installs.length ? installs.map((dir) => path.join(dir, expanded)) : [path.resolve(environment.cwd, expanded)];
}

/** The graph files to read, in order of precedence, without duplicates. */
export function memoryFileCandidates(environment: ExportEnvironment, reader: SourceReader): MemoryFileCandidate[] {
  const candidates: MemoryFileCandidate[] = [];
  const add = (file: string, origin: string) => {
    if (!candidates.some((candidate) => candidate.path === file)) candidates.push({ path: file, origin });
  };
  const named = environment.env.MEMORY_FILE_PATH;
  if (named) {
    const file = path.resolve(
      environment.cwd,
      named.startsWith('~/') ? path.join(environment.home, named.slice(2)) : named,
    );
    reader.allow(path.dirname(file)); // a file the user named may live anywhere
    add(file, 'MEMORY_FILE_PATH');
    return candidates;
  }
  const installs = serverInstallDirs(environment, reader);
  let defaultWanted = false;
  const configs: [string, (string | null)[]][] = jsonConfigs(environment).map((file) => [
    file,
    fromJsonConfig(reader, file),
  ]);
  const codexHome = environment.env.CODEX_HOME || path.join(environment.home, '.codex');
  const codexConfig = path.join(codexHome, 'config.toml');
  configs.push([codexConfig, fromCodexToml(reader, codexConfig)]);
  for (const [file, values] of configs) {
    for (const value of values) {
      if (value === null) defaultWanted = true;
      else {
        for (const resolved of resolveServerPath(value, installs, environment)) {
          // A config in the working folder (a repository's .mcp.json) may not name a file outside it.
          if (!reader.namedBy(resolved, file)) continue;
          reader.allow(path.dirname(resolved)); // the user's own config names it
          add(resolved, file);
        }
      }
    }
  }
  // The server's default: when a host runs it without MEMORY_FILE_PATH, or no config names it at all.
  if (defaultWanted || candidates.length === 0) {
    for (const dir of installs) add(path.join(dir, 'memory.jsonl'), 'server default');
  }
  return candidates;
}
