/**
 * The sync workspace of a library is found again after its folder name changed (the name is a
 * digest of the library's path; an earlier build used another digest): the folder whose
 * remote.json names the library is moved to the current name, and no other library's is taken.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readRemoteConfig, syncPaths } from '../src/sync/workspace.js';
import { tempDir } from './helpers/fixtures.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function workspaceUnder(home: string, name: string, library: string): string {
  const dir = path.join(home, 'sync', name);
  fs.mkdirSync(path.join(dir, 'work'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'remote.json'),
    JSON.stringify({ remote: 'https://example.com/team.git', branch: 'bourdon', library }),
  );
  fs.writeFileSync(path.join(dir, 'state.json'), JSON.stringify({ known_head: 'abc' }));
  return dir;
}

describe('sync workspace under an earlier name', () => {
  it('is moved to the current name and read as before; another library’s stays where it is', () => {
    const home = tempDir('bourdon-sync-ws-');
    const library = tempDir('bourdon-sync-lib-');
    made.push(home, library);
    const env = { BOURDON_HOME: home };
    const paths = syncPaths(library, env);
    const other = workspaceUnder(home, 'library-00000000000000aa', path.join(library, 'elsewhere'));
    const earlier = workspaceUnder(home, 'library-0123456789abcdef', paths.library);
    expect(readRemoteConfig(paths)).toEqual({ remote: 'https://example.com/team.git', branch: 'bourdon' });
    expect(fs.existsSync(earlier)).toBe(false);
    expect(JSON.parse(fs.readFileSync(paths.stateFile, 'utf8'))).toEqual({ known_head: 'abc' });
    expect(fs.existsSync(path.join(paths.work))).toBe(true);
    expect(fs.existsSync(path.join(other, 'remote.json'))).toBe(true);
  });

  it('answers no remote when no folder names the library', () => {
    const home = tempDir('bourdon-sync-ws-');
    const library = tempDir('bourdon-sync-lib-');
    made.push(home, library);
    workspaceUnder(home, 'library-00000000000000aa', path.join(library, 'elsewhere'));
    expect(readRemoteConfig(syncPaths(library, { BOURDON_HOME: home }))).toBeNull();
  });
});
