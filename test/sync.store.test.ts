/**
 * The store's side of sync: manifests in the library's pulled/ folder are served as
 * sync:<machine>:<agent>, only under a valid mark, never above the level the mark names (rows
 * and raw documents alike), and never in place of a local agent.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LibraryStore } from '../src/core/store/library.js';
import { tempDir } from './helpers/fixtures.js';

const MANIFEST = `agent:
  id: codex
  type: code-assistant
known_entities:
  - name: Public one
  - name: Team one
    visibility: team
  - name: Private one
    visibility: private
`;

function library(mark: unknown): { root: string; warnings: string[]; store: LibraryStore } {
  const root = tempDir('bourdon-sync-store-');
  fs.mkdirSync(path.join(root, 'agents'));
  fs.writeFileSync(path.join(root, 'agents', 'codex.l5.yaml'), 'agent:\n  id: codex\n  type: other\n');
  const dir = path.join(root, 'pulled', 'laptop');
  fs.mkdirSync(path.join(dir, 'agents'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'agents', 'codex.l5.yaml'), MANIFEST);
  if (mark !== undefined) fs.writeFileSync(path.join(dir, 'publication.json'), JSON.stringify(mark));
  const warnings: string[] = [];
  return { root, warnings, store: new LibraryStore(root, { warn: (message) => warnings.push(message) }) };
}

describe('the store serves pulled manifests', () => {
  it('under their provenance, beside the local agent of the same id, capped at the published level', () => {
    const { store } = library({ machine: 'laptop', access_level: 'team' });
    const snapshot = store.snapshot();
    expect(snapshot.agents.map((agent) => agent.id)).toEqual(['codex', 'sync:laptop:codex']);
    const pulled = snapshot.byId.get('sync:laptop:codex')!;
    expect(pulled.origin).toEqual({ machine: 'laptop', agent: 'codex', access_level: 'team' });
    expect(pulled.entities.map((entity) => [entity.name, entity.visibility])).toEqual([
      ['Public one', 'public'],
      ['Team one', 'team'],
    ]);
    // The raw document (the manifest resource) is capped the same way.
    const doc = store.document(pulled);
    expect((doc.known_entities as { name: string }[]).map((row) => row.name)).toEqual(['Public one', 'Team one']);
  });

  it('sees a pull that changed the level on the next snapshot', () => {
    const { root, store } = library({ machine: 'laptop', access_level: 'team' });
    expect(store.snapshot().byId.get('sync:laptop:codex')!.entities).toHaveLength(2);
    fs.writeFileSync(
      path.join(root, 'pulled', 'laptop', 'publication.json'),
      JSON.stringify({ machine: 'laptop', access_level: 'public', padding: 'changes the size' }),
    );
    expect(
      store
        .snapshot()
        .byId.get('sync:laptop:codex')!
        .entities.map((entity) => entity.name),
    ).toEqual(['Public one']);
  });

  it('not at all without a valid mark, or when the mark names another machine', () => {
    for (const mark of [
      undefined,
      { machine: 'desk', access_level: 'public' },
      { machine: 'laptop', access_level: 'all' },
    ]) {
      const { store, warnings } = library(mark);
      expect(store.snapshot().agents.map((agent) => agent.id)).toEqual(['codex']);
      expect(warnings.join('\n')).toMatch(/no valid publication\.json/);
    }
  });
});
