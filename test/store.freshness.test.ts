/**
 * A long-lived store (the server) does not stat every manifest per request: it learns of
 * changes from the change stamp our writers replace, the `agents/` folder's stat and OS events,
 * with a bounded fallback sweep. These tests edit manifests from other processes the ways users
 * and tools do — PyYAML as the engine writes, an in-place write, an editor's rename-over, a
 * commit by another writer — and check each is seen, driven by the watcher's events and an
 * injected clock, never by sleeping.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createContext } from '../src/core/context.js';
import { SWEEP_MS_UNWATCHED } from '../src/core/store/freshness.js';
import { LibraryStore } from '../src/core/store/library.js';
import { commitLive } from '../src/core/writes/writes.js';
import { tempDir } from './helpers/fixtures.js';

const MANIFEST = `agent:
  id: a
  type: other
known_entities:
  - name: Alpha
    type: project
`;

const stores: LibraryStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});

function library(): { root: string; file: string } {
  const root = tempDir();
  fs.mkdirSync(path.join(root, 'agents'));
  const file = path.join(root, 'agents', 'a.l5.yaml');
  fs.writeFileSync(file, MANIFEST);
  return { root, file };
}

/** A store whose fallback sweep never comes due unless the test moves `clock.ms`. */
function watchedStore(root: string, watch: boolean) {
  const clock = { ms: 1_000_000 };
  const store = new LibraryStore(root, { warn: () => {}, freshness: { watch, now: () => clock.ms } });
  stores.push(store);
  return { store, clock };
}

const names = (store: LibraryStore) =>
  store
    .snapshot()
    .byId.get('a')!
    .entities.map((entity) => entity.name);

/** Runs a Python snippet with `path` bound to the manifest; fails the test on any error. */
function python(code: string, file: string): void {
  const result = spawnSync('python3', ['-c', `import os, yaml\npath = ${JSON.stringify(file)}\n${code}`], {
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`python3 failed: ${result.stderr}`);
}

const PYYAML_APPEND = `
with open(path) as f:
    doc = yaml.safe_load(f)
doc['known_entities'].append({'name': 'Beta', 'type': 'project'})
with open(path, 'w') as f:  # truncates and rewrites the same file
    yaml.safe_dump(doc, f, sort_keys=False)
`;

// Same size, same inode: only the bytes and the file's times change.
const IN_PLACE_SAME_SIZE = `
with open(path, 'r+b') as f:
    data = f.read()
    f.seek(data.index(b'Alpha'))
    f.write(b'Gamma')
`;

const EDITOR_RENAME_OVER = `
with open(path) as f:
    text = f.read()
with open(path + '.swp', 'w') as f:
    f.write(text.replace('Alpha', 'Delta'))
os.replace(path + '.swp', path)
`;

describe('a watched store sees edits by other processes', () => {
  it('a PyYAML rewrite in place is seen once its OS event arrives', async () => {
    const { root, file } = library();
    const { store } = watchedStore(root, true);
    expect(names(store)).toEqual(['Alpha']);
    expect(store.freshness!.watchState).toBe('watching');
    const event = store.freshness!.nextEvent();
    python(PYYAML_APPEND, file);
    await event;
    expect(names(store)).toEqual(['Alpha', 'Beta']);
  });

  it('a same-size write into the file is seen once its OS event arrives', async () => {
    const { root, file } = library();
    const { store } = watchedStore(root, true);
    expect(names(store)).toEqual(['Alpha']);
    const event = store.freshness!.nextEvent();
    python(IN_PLACE_SAME_SIZE, file);
    await event;
    expect(names(store)).toEqual(['Gamma']);
  });

  it("an editor's rename-over is seen at the next read, even without OS events", () => {
    const { root, file } = library();
    const { store } = watchedStore(root, false);
    expect(names(store)).toEqual(['Alpha']);
    python(EDITOR_RENAME_OVER, file);
    expect(names(store)).toEqual(['Delta']);
  });

  it('a file added or removed by another process is seen at the next read, without OS events', () => {
    const { root } = library();
    const { store } = watchedStore(root, false);
    expect(store.snapshot().agents.map((agent) => agent.id)).toEqual(['a']);
    const other = path.join(root, 'agents', 'b.l5.yaml');
    python(`with open(path, 'w') as f:\n    yaml.safe_dump({'agent': {'id': 'b', 'type': 'other'}}, f)`, other);
    expect(store.snapshot().agents.map((agent) => agent.id)).toEqual(['a', 'b']);
    fs.rmSync(other);
    expect(store.snapshot().agents.map((agent) => agent.id)).toEqual(['a']);
  });

  it("another writer's commit is seen at the next read through the change stamp", async () => {
    const { root } = library();
    const { store } = watchedStore(root, false);
    expect(names(store)).toEqual(['Alpha']);
    const stampBefore = fs.existsSync(store.paths.stamp) ? fs.readFileSync(store.paths.stamp, 'utf8') : '';
    // Another store stands for another process: this one is not told of the write.
    const writer = createContext(new LibraryStore(root, { warn: () => {} }), { warn: () => {} });
    const result = await commitLive(
      writer,
      { agent_id: 'a', entities: [{ name: 'Epsilon', type: 'project' }] },
      { op: 'commit', actor: null },
    );
    expect(result).not.toHaveProperty('error');
    expect(fs.readFileSync(store.paths.stamp, 'utf8')).not.toBe(stampBefore);
    expect(names(store)).toEqual(['Alpha', 'Epsilon']);
  });

  it('without OS events, an in-place write is seen once the fallback sweep is due', () => {
    const { root, file } = library();
    const { store, clock } = watchedStore(root, false);
    expect(names(store)).toEqual(['Alpha']);
    python(IN_PLACE_SAME_SIZE, file);
    // The documented staleness: nothing told the store yet.
    expect(names(store)).toEqual(['Alpha']);
    clock.ms += SWEEP_MS_UNWATCHED;
    expect(names(store)).toEqual(['Gamma']);
  });

  it('a write by this process is seen at once (the writer invalidates its own store)', async () => {
    const { root } = library();
    const { store } = watchedStore(root, true);
    expect(names(store)).toEqual(['Alpha']);
    const ctx = createContext(store, { warn: () => {} });
    await commitLive(
      ctx,
      { agent_id: 'a', entities: [{ name: 'Zeta', type: 'project' }] },
      { op: 'commit', actor: null },
    );
    expect(names(store)).toEqual(['Alpha', 'Zeta']);
    // The writer hands its manifest to the store instead of a re-parse: the same record a reader
    // of the file gets.
    const fresh = new LibraryStore(root, { warn: () => {} }).snapshot().byId.get('a');
    expect(store.snapshot().byId.get('a')).toEqual(fresh);
  });

  it('a sweep that failed is made again at the next read, not trusted to have seen the change', () => {
    const { root } = library();
    const { store } = watchedStore(root, false);
    expect(store.snapshot().agents.map((agent) => agent.id)).toEqual(['a']);
    python(
      `with open(path, 'w') as f:\n    yaml.safe_dump({'agent': {'id': 'b', 'type': 'other'}}, f)`,
      path.join(root, 'agents', 'b.l5.yaml'),
    );
    // A sweep in the background (the search index's warm-up) meets a fault and its error is
    // dropped: the change it was looking at must still be seen by the next request.
    const listing = vi.spyOn(fs, 'readdirSync').mockImplementationOnce(() => {
      throw new Error('EIO: i/o error, scandir');
    });
    expect(() => store.snapshot()).toThrow(/EIO/);
    listing.mockRestore();
    expect(store.snapshot().agents.map((agent) => agent.id)).toEqual(['a', 'b']);
  });

  it('a store without freshness options still sweeps at every snapshot', () => {
    const { root, file } = library();
    const store = new LibraryStore(root, { warn: () => {} });
    expect(names(store)).toEqual(['Alpha']);
    python(IN_PLACE_SAME_SIZE, file);
    expect(names(store)).toEqual(['Gamma']);
  });
});
