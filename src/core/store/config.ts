/**
 * Where things live (spec §2) and how flags and environment variables combine: a flag wins
 * over its variable, and a variable set to the empty string counts as unset.
 */
import os from 'node:os';
import path from 'node:path';
import { nameHash } from './hashing.js';

/** The environment variables a call sees (process.env, or a test's own). */
export type Env = Record<string, string | undefined>;

/** Paths of the config files (registry, audit, peers), resolved from flags and env. */
export interface ConfigPaths {
  home: string;
  registry: string;
  audit: string;
  peers: string;
}

/** An environment variable's value, or undefined when unset or empty. */
export function envValue(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

export function defaultLibraryRoot(env: Env): string {
  return envValue(env, 'BOURDON_LIBRARY') ?? path.join(os.homedir(), 'agent-library');
}

export function configPaths(env: Env): ConfigPaths {
  const home = envValue(env, 'BOURDON_HOME') ?? path.join(os.homedir(), '.bourdon');
  return {
    home,
    registry: envValue(env, 'BOURDON_FEDERATION_CONFIG') ?? path.join(home, 'federation.yaml'),
    audit: envValue(env, 'BOURDON_AUDIT_PATH') ?? path.join(home, 'audit.jsonl'),
    peers: path.join(home, 'peers.yaml'),
  };
}

/**
 * The folder where the CLI keeps its parsed-library cache for a library root, or null when
 * disabled (BOURDON_NO_CACHE=1). It lives in the config dir, owner-only: it holds private rows too.
 */
export function parsedLibraryCachePath(root: string, env: Env = process.env): string | null {
  if (envValue(env, 'BOURDON_NO_CACHE')) return null;
  const digest = nameHash(path.resolve(root));
  return path.join(configPaths(env).home, 'cache', `library-${digest}`);
}
