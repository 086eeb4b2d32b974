/**
 * The official MCP Inspector, installed only for the test that drives it. It needs Node 22 by its
 * engines field (its CLI runs on Node 20) and pulls a web UI the project never uses, so it is not a
 * dev dependency: it is installed once, pinned, into node_modules/.cache (a cache, reused by later
 * runs and removed with node_modules), straight from the npm registry.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './fixtures.js';

export const INSPECTOR_VERSION = '2.12.0';
const CACHE = path.join(REPO_ROOT, 'node_modules', '.cache', `bourdon-inspector-${INSPECTOR_VERSION}`);
const LAUNCHER = path.join(
  CACHE,
  'node_modules',
  '@modelcontextprotocol',
  'inspector',
  'clients',
  'launcher',
  'build',
  'index.js',
);

export type InspectorInstall = { bin: string } | { unavailable: string };

/** The launcher script, installing it first when it is not cached; or why it cannot be had. */
export async function installInspector(): Promise<InspectorInstall> {
  if (fs.existsSync(LAUNCHER)) return { bin: LAUNCHER };
  fs.mkdirSync(CACHE, { recursive: true });
  try {
    await promisify(execFile)(
      'npm',
      [
        'install',
        '--prefix',
        CACHE,
        '--no-audit',
        '--no-fund',
        '--omit=dev',
        '--ignore-scripts',
        '--loglevel=error',
        `@modelcontextprotocol/inspector@${INSPECTOR_VERSION}`,
      ],
      { timeout: 150_000, maxBuffer: 16 * 1024 * 1024 },
    );
  } catch (error) {
    const { stderr = '' } = error as { stderr?: string };
    const reason = stderr.trim().split('\n').pop() ?? String(error);
    return {
      unavailable: `the npm registry did not serve @modelcontextprotocol/inspector@${INSPECTOR_VERSION}: ${reason}`,
    };
  }
  return fs.existsSync(LAUNCHER) ? { bin: LAUNCHER } : { unavailable: `npm installed no launcher at ${LAUNCHER}` };
}
