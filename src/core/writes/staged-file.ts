/**
 * A staged file on disk: where a member's staged write for an agent lives
 * (`staging/<caller>/<agent>.l5.yaml`), reading it as a manifest within the size cap, and the
 * folder checks and clean-up listing and deleting it need.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BourdonError } from '../errors.js';
import { MANIFEST_SUFFIX, MAX_MANIFEST_BYTES, type LibraryStore } from '../store/library.js';
import type { RawObject } from '../store/manifest.js';
import { NotYamlMapping, parseYamlMapping } from '../store/yaml.js';
import { readLive } from './history.js';

export function stagedPath(store: LibraryStore, caller: string, agentId: string): string {
  return path.join(store.paths.staging, caller, `${agentId}${MANIFEST_SUFFIX}`);
}

export function readStagedDoc(file: string): RawObject | null {
  return parseStaged(file, readLive(file));
}

/** The staged file's bytes as a manifest (null when absent); refused when too large or not a mapping. */
export function parseStaged(file: string, data: Buffer | null): RawObject | null {
  if (!data) return null;
  if (data.length > MAX_MANIFEST_BYTES)
    throw new BourdonError(
      `staged file ${file} is ${data.length} bytes; the limit is ${MAX_MANIFEST_BYTES}`,
      'invalid_input',
    );
  try {
    return parseYamlMapping(data) ?? {};
  } catch (error) {
    if (error instanceof NotYamlMapping && error.syntax)
      throw new BourdonError(`staged file ${file} is unreadable (${error.message})`, 'invalid_input');
    throw new BourdonError(`staged file ${file} is not a YAML mapping`, 'invalid_input');
  }
}

export function listOf(doc: RawObject, key: string): unknown[] {
  const value = doc[key];
  return Array.isArray(value) ? [...value] : [];
}

export function isDirectory(full: string): boolean {
  try {
    const stat = fs.lstatSync(full);
    return stat.isDirectory() && !stat.isSymbolicLink();
  } catch {
    return false;
  }
}

export function pruneEmptyDir(dir: string): void {
  try {
    if (fs.readdirSync(dir).length === 0) fs.rmdirSync(dir);
  } catch {
    // not empty, or gone
  }
}
