/**
 * How an MCP host reaches a Bourdon server (`bourdon mcp-config`, `bourdon init`): the stdio
 * launch (the command, absolute paths, the config variables passed on) or the HTTP URL, with the
 * bridge a stdio-only host starts to reach it. host-config.ts writes each host's snippet for a
 * target; host-tools.ts says which tools it offers.
 */
import path from 'node:path';
import { packageRoot } from '../core/admin/package-root.js';
import { packageInfo } from '../core/admin/version.js';
import { UsageError } from '../core/errors.js';
import { normalisePeerUrl } from '../core/federation/peers-config.js';

/** How the host starts `bourdon serve` for stdio. */
export const LAUNCHERS = ['node', 'npx', 'bourdon'] as const;
export type Launcher = (typeof LAUNCHERS)[number];

export const DEFAULT_TOKEN_ENV = 'BOURDON_TOKEN';

/** Variables a host-started server should see as the CLI does: where its config lives. */
const PASSED_ENV = ['BOURDON_HOME', 'BOURDON_FEDERATION_CONFIG', 'BOURDON_AUDIT_PATH'] as const;

export interface StdioTarget {
  transport: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  /** The --tools profile the started server offers (all when unset). */
  tools?: string;
}

interface HttpTarget {
  transport: 'http';
  url: string;
  tokenEnv: string;
  /** How a stdio-only host starts the bridge (`bourdon serve --url`) to reach the URL. */
  bridge: { command: string; args: string[] };
  /** The --tools profile the bridge offers (all when unset); the server's own decides for the others. */
  tools?: string;
}

export type ServerTarget = StdioTarget | HttpTarget;

/** The compiled CLI entry, for hosts that start the server with an absolute path. */
function binPath(): string {
  return path.join(packageRoot(), 'bin', 'run.js');
}

function checkEnvName(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new UsageError(`invalid variable name ${JSON.stringify(name)}`);
  return name;
}

/** How a host runs `bourdon <args>` with this launcher. */
function launch(launcher: Launcher, args: string[]): { command: string; args: string[] } {
  // Pinned to this exact version: an unpinned name would run whatever the registry serves under it.
  if (launcher === 'npx') return { command: 'npx', args: ['-y', `bourdon@${packageInfo().version}`, ...args] };
  if (launcher === 'bourdon') return { command: 'bourdon', args };
  return { command: process.execPath, args: [binPath(), ...args] };
}

/** `--tools <profile>` for serve, unless the profile is the default (all). */
function toolsArgs(tools: string | undefined): string[] {
  return tools && tools !== 'all' ? ['--tools', tools] : [];
}

/** The stdio launch: absolute paths, so a host started outside a shell finds everything. */
export function stdioTarget(
  libraryRoot: string,
  launcher: Launcher = 'node',
  env: NodeJS.ProcessEnv = process.env,
  tools?: string,
): StdioTarget {
  const serve = ['serve', '--library', path.resolve(libraryRoot), ...toolsArgs(tools)];
  const passed: Record<string, string> = {};
  for (const name of PASSED_ENV) {
    const value = env[name];
    if (value) passed[name] = path.resolve(value);
  }
  return { transport: 'stdio', ...launch(launcher, serve), env: passed, ...(tools ? { tools } : {}) };
}

/** The variable the bridge reads its token from in a host's env block (peer-token namespace). */
export const BRIDGE_TOKEN_ENV = 'BOURDON_PEER_TOKEN';

/** The HTTP target: the URL checked as peers are (https unless loopback; /mcp appended). */
export function httpTarget(
  rawUrl: string,
  tokenEnv = DEFAULT_TOKEN_ENV,
  launcher: Launcher = 'node',
  tools?: string,
): HttpTarget {
  const url = normalisePeerUrl(rawUrl, '--http url');
  return {
    transport: 'http',
    url,
    tokenEnv: checkEnvName(tokenEnv),
    bridge: launch(launcher, ['serve', '--url', url, '--token-env', BRIDGE_TOKEN_ENV, ...toolsArgs(tools)]),
    ...(tools ? { tools } : {}),
  };
}
