/**
 * The configuration each MCP host wants for a Bourdon server (`bourdon mcp-config`, `bourdon
 * init`): the exact JSON or TOML, where it goes, and a one-line command where the host has one.
 *
 * Formats, as each host documents them (checked when this was written; docs/mcp-hosts.md):
 * - Claude Code: `.mcp.json` at the project root, `{"mcpServers": {name: {type, …}}}`; it expands
 *   `${VAR}` in command, args, env, url and headers. CLI: `claude mcp add`.
 * - Claude Desktop: `claude_desktop_config.json`, `{"mcpServers": {name: {command, args, env}}}`,
 *   stdio only: a URL goes through our own stdio bridge (`bourdon serve --url`), so no third-party
 *   package ever handles the token; it reads the token from a BOURDON_PEER_* variable set in the
 *   env block, since Claude Desktop does not pass the shell's variables.
 * - Cursor: `.cursor/mcp.json` or `~/.cursor/mcp.json`, `{"mcpServers": {…}}`; remote servers
 *   are `{url, headers}`, and header values expand `${env:VAR}`.
 * - Codex: `~/.codex/config.toml`, a `[mcp_servers.<name>]` table with command/args/env, or
 *   url + `bearer_token_env_var` (Codex refuses an inline token). CLI: `codex mcp add`.
 * - VS Code: `.vscode/mcp.json`, `{"servers": {name: {type: "stdio"|"http", …}}}`; header values
 *   expand `${env:VAR}` (and `${input:…}`).
 *
 * A token is never part of a snippet: HTTP snippets name the variable that holds it. How the
 * server is reached (the target a snippet is for) is host-targets.ts; the tools it offers,
 * host-tools.ts.
 */
import { UsageError } from '../core/errors.js';
import { BRIDGE_TOKEN_ENV, type ServerTarget, type StdioTarget } from './host-targets.js';
import { colors, commandText, shellWord, type Verbatim } from './output.js';

export const HOSTS = ['claude-code', 'claude-desktop', 'cursor', 'codex', 'vscode'] as const;
export type Host = (typeof HOSTS)[number];

export const DEFAULT_SERVER_NAME = 'bourdon';

const HOST_TITLES: Record<Host, string> = {
  'claude-code': 'Claude Code',
  'claude-desktop': 'Claude Desktop',
  cursor: 'Cursor',
  codex: 'Codex',
  vscode: 'VS Code',
};

export interface HostSnippet {
  host: Host;
  title: string;
  transport: 'stdio' | 'http';
  format: 'json' | 'toml';
  /** Where the snippet goes. */
  file: string;
  /** The snippet, exactly as the host reads it (merge it into an existing file). */
  text: string;
  /** A command that adds the same server, where the host has one; else null. */
  command: string | null;
  notes: string[];
}

function checkServerName(name: string): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name))
    throw new UsageError(`invalid server name ${JSON.stringify(name)}: use letters, digits, - and _`);
  return name;
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** A TOML key: bare when it can be, else a basic string. */
function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : tomlString(key);
}

/** A TOML basic string. */
function tomlString(value: string): string {
  // eslint-disable-next-line no-control-regex
  const escaped = value.replace(/[\\"\u0000-\u001f\u007f]/g, (ch) => {
    if (ch === '\\') return '\\\\';
    if (ch === '"') return '\\"';
    if (ch === '\n') return '\\n';
    if (ch === '\t') return '\\t';
    if (ch === '\r') return '\\r';
    return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
  return `"${escaped}"`;
}

function stdioEntry(target: StdioTarget, withType: boolean): Record<string, unknown> {
  const entry: Record<string, unknown> = withType ? { type: 'stdio' } : {};
  entry.command = target.command;
  entry.args = target.args;
  if (Object.keys(target.env).length) entry.env = target.env;
  return entry;
}

function envFlags(flag: string, env: Record<string, string>): string[] {
  return Object.entries(env).flatMap(([key, value]) => [flag, `${key}=${value}`]);
}

function commandLine(words: string[]): string {
  return words.map(shellWord).join(' ');
}

type HttpTarget = Extract<ServerTarget, { transport: 'http' }>;

/** What a host's snippet says besides who it is for (HostSnippet without host, title and transport). */
type SnippetBody = Omit<HostSnippet, 'host' | 'title' | 'transport'>;

/** How one host is configured: for a server it starts (stdio), and for one at a URL (http). */
interface HostFormat {
  stdio(target: StdioTarget, name: string): SnippetBody;
  http(target: HttpTarget, name: string): SnippetBody;
}

/** The header value a host expands from the variable holding the token (`${VAR}`, `${env:VAR}`). */
const bearerOf = (variable: string) => ({ Authorization: `Bearer \${${variable}}` });

const claudeCode: HostFormat = {
  stdio: (target, name) => ({
    format: 'json',
    file: '.mcp.json at the project root (shared with the team), or run the command for your user only',
    text: json({ mcpServers: { [name]: { ...stdioEntry(target, true), env: target.env } } }),
    command: commandLine([
      'claude',
      'mcp',
      'add',
      ...envFlags('-e', target.env),
      name,
      '--',
      target.command,
      ...target.args,
    ]),
    notes: [],
  }),
  http: (target, name) => ({
    format: 'json',
    file: '.mcp.json at the project root',
    text: json({ mcpServers: { [name]: { type: 'http', url: target.url, headers: bearerOf(target.tokenEnv) } } }),
    command: commandLine([
      'claude',
      'mcp',
      'add',
      '--scope',
      'project',
      '--transport',
      'http',
      name,
      target.url,
      '--header',
      `Authorization: Bearer \${${target.tokenEnv}}`,
    ]),
    notes: [
      `Claude Code expands \${${target.tokenEnv}} from its environment when it connects: export ${target.tokenEnv} before starting it.`,
    ],
  }),
};

/** The stdio snippet of a host that reads `{"mcpServers": {name: {command, args, env}}}` from `file` and has no command. */
function mcpServersStdio(file: string): HostFormat['stdio'] {
  return (target, name) => ({
    format: 'json',
    file,
    text: json({ mcpServers: { [name]: stdioEntry(target, false) } }),
    command: null,
    notes: [],
  });
}

const CLAUDE_DESKTOP_FILE =
  'claude_desktop_config.json (macOS: ~/Library/Application Support/Claude/, Windows: %APPDATA%\\Claude\\); restart Claude Desktop after editing';

const claudeDesktop: HostFormat = {
  stdio: mcpServersStdio(CLAUDE_DESKTOP_FILE),
  // Stdio only: the URL is reached through our own bridge, given the token in its env block.
  http: (target, name) => ({
    format: 'json',
    file: CLAUDE_DESKTOP_FILE,
    text: json({
      mcpServers: {
        [name]: { ...target.bridge, env: { [BRIDGE_TOKEN_ENV]: `<paste the token from $${target.tokenEnv}>` } },
      },
    }),
    command: null,
    notes: [
      'Claude Desktop starts local (stdio) servers only; `bourdon serve --url` bridges them to the URL (no third-party package sees the token).',
      `It does not read your shell's variables: replace the placeholder with the token, and keep the file private (chmod 600).`,
    ],
  }),
};

const CURSOR_FILE = '.cursor/mcp.json in the project, or ~/.cursor/mcp.json for every project';

const cursor: HostFormat = {
  stdio: mcpServersStdio(CURSOR_FILE),
  http: (target, name) => ({
    format: 'json',
    file: CURSOR_FILE,
    text: json({ mcpServers: { [name]: { url: target.url, headers: bearerOf(`env:${target.tokenEnv}`) } } }),
    command: null,
    notes: [`Cursor reads \${env:${target.tokenEnv}} from the environment it was started in.`],
  }),
};

const CODEX_FILE = '~/.codex/config.toml (or .codex/config.toml in a trusted project)';

/** Codex's `[mcp_servers.<name>]` table for a server it starts, with its env table when there is one. */
function codexStdioToml(target: StdioTarget, table: string): string {
  const lines = [
    `[${table}]`,
    `command = ${tomlString(target.command)}`,
    `args = [${target.args.map(tomlString).join(', ')}]`,
  ];
  if (Object.keys(target.env).length) {
    lines.push(
      '',
      `[${table}.env]`,
      ...Object.entries(target.env).map(([key, value]) => `${tomlKey(key)} = ${tomlString(value)}`),
    );
  }
  return lines.join('\n');
}

const codex: HostFormat = {
  stdio: (target, name) => ({
    format: 'toml',
    file: CODEX_FILE,
    text: codexStdioToml(target, `mcp_servers.${tomlKey(name)}`),
    command: commandLine([
      'codex',
      'mcp',
      'add',
      name,
      ...envFlags('--env', target.env),
      '--',
      target.command,
      ...target.args,
    ]),
    notes: [],
  }),
  // Codex refuses an inline token: the table names the variable that holds it.
  http: (target, name) => ({
    format: 'toml',
    file: CODEX_FILE,
    text: [
      `[mcp_servers.${tomlKey(name)}]`,
      `url = ${tomlString(target.url)}`,
      `bearer_token_env_var = ${tomlString(target.tokenEnv)}`,
    ].join('\n'),
    command: commandLine(['codex', 'mcp', 'add', name, '--url', target.url, '--bearer-token-env-var', target.tokenEnv]),
    notes: [
      `Codex sends Authorization: Bearer <token from $${target.tokenEnv}> on every request; it refuses a token written in the file.`,
    ],
  }),
};

const VSCODE_FILE = '.vscode/mcp.json in the workspace (or your user mcp.json: "MCP: Open User Configuration")';

/** VS Code's `servers` entry, and the `code --add-mcp` command that adds the same. */
function vscodeBody(name: string, entry: Record<string, unknown>, notes: string[]): SnippetBody {
  return {
    format: 'json',
    file: VSCODE_FILE,
    text: json({ servers: { [name]: entry } }),
    command: commandLine(['code', '--add-mcp', JSON.stringify({ name, ...entry })]),
    notes,
  };
}

const vscode: HostFormat = {
  stdio: (target, name) => vscodeBody(name, stdioEntry(target, true), []),
  http: (target, name) =>
    vscodeBody(name, { type: 'http', url: target.url, headers: bearerOf(`env:${target.tokenEnv}`) }, [
      `VS Code reads \${env:${target.tokenEnv}} from the environment it was started in.`,
    ]),
};

const FORMATS: Record<Host, HostFormat> = {
  'claude-code': claudeCode,
  'claude-desktop': claudeDesktop,
  cursor,
  codex,
  vscode,
};

/** The snippet one host wants for one server. */
export function hostSnippet(host: Host, target: ServerTarget, name = DEFAULT_SERVER_NAME): HostSnippet {
  checkServerName(name);
  const format = FORMATS[host];
  const body = target.transport === 'stdio' ? format.stdio(target, name) : format.http(target, name);
  return { host, title: HOST_TITLES[host], transport: target.transport, ...body };
}

/**
 * A snippet for people: title and file, the snippet, the command alternative, the notes. The
 * prose is wrapped at the width when printed; the snippet is file content, shown as it is; the
 * command is laid out to fit and still paste (commandText).
 */
export function renderSnippet(snippet: HostSnippet): (string | Verbatim)[] {
  const c = colors();
  const lines: (string | Verbatim)[] = [
    c.bold(snippet.title) + c.dim(` (${snippet.transport}) — ${snippet.file}`),
    { verbatim: snippet.text },
  ];
  if (snippet.command) lines.push(c.dim('or run:'), commandText(snippet.command));
  for (const note of snippet.notes) lines.push(c.dim(note));
  return lines;
}
