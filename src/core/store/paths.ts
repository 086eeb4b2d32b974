/** Where a library's parts live under its root (spec §2). */
import path from 'node:path';
import { changeStampPath } from './freshness.js';

export interface LibraryPaths {
  root: string;
  agents: string;
  staging: string;
  history: string;
  lock: string;
  /** The change stamp writers replace after every write (freshness.ts). */
  stamp: string;
}

export function libraryPaths(root: string): LibraryPaths {
  const resolved = path.resolve(root);
  return {
    root: resolved,
    agents: path.join(resolved, 'agents'),
    staging: path.join(resolved, 'staging'),
    history: path.join(resolved, 'history'),
    lock: path.join(resolved, '.bourdon.lock'),
    stamp: changeStampPath(resolved),
  };
}
