/**
 * Issue 50, item 3: a pull has a total bound, and pulled rows never make a warm read slow. A
 * push leaves out the agents past what one machine may publish (32 MiB), in one line; a pull
 * refuses a machine folder over it, and the machines past what it keeps in all (64 MiB), each in
 * one line; a warm one-shot read parses no pulled manifest again (the parsed cache).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { parsedLibraryCachePath } from '../src/core/store/config.js';
import { PartialLibraryStore } from '../src/core/store/partial-store.js';
import { tempDir } from './helpers/fixtures.js';
import {
  bareRemote,
  commitToRemote,
  gitSync,
  makeMachine,
  signedPublication,
  simpleManifest,
  strayKey,
} from './helpers/sync.js';

const MiB = 1024 * 1024;

/** A manifest of about `size` bytes: one entity whose summary fills it. */
function bigManifest(id: string, size: number): string {
  const head = `agent:\n  id: ${id}\nknown_entities:\n  - name: Big ${id}\n    summary: "`;
  return head + 'y'.repeat(size - head.length - 2) + '"\n';
}

/** The files of a machine folder of hand-made manifests, signed as a push signs them. */
function folderByHand(machine: string, manifests: Record<string, string>): Record<string, string> {
  const files: Record<string, string> = {
    [`machines/${machine}/publication.json`]: signedPublication(machine, manifests, strayKey()),
  };
  for (const [agent, text] of Object.entries(manifests)) files[`machines/${machine}/agents/${agent}.l5.yaml`] = text;
  return files;
}

describe('sync caps', () => {
  it('a push leaves out, in one line, the agents past what one machine may publish', async () => {
    const remote = bareRemote();
    const laptop = makeMachine('laptop');
    // Five manifests of about 7.6 MB published each (one entity with 3,800 tags of 2,000 characters).
    const tags = Array.from({ length: 3800 }, (_, i) => `"${String(i).padStart(6, '0')}${'t'.repeat(1994)}"`).join(
      ', ',
    );
    for (const id of ['a1', 'a2', 'a3', 'a4', 'a5'])
      laptop.writeManifest(id, `agent:\n  id: ${id}\nknown_entities:\n  - name: Tagged ${id}\n    tags: [${tags}]\n`);
    expect((await laptop.run(['sync', 'init', remote])).code).toBe(0);
    const push = await laptop.run(['sync', 'push']);
    expect(push.code, push.stderr).toBe(0);
    expect(push.stdout).toMatch(/^not published, over the 32 MiB one machine may publish: 1 agent \(a5\)$/m);
    const files = gitSync(['ls-tree', '-r', '--name-only', 'main', 'machines/laptop/agents/'], remote)
      .trim()
      .split('\n');
    expect(files).toEqual(['a1', 'a2', 'a3', 'a4'].map((id) => `machines/laptop/agents/${id}.l5.yaml`));
    const json = await laptop.json<{ over_cap: string[] }>(['sync', 'push']);
    expect(json.over_cap).toEqual(['a5']);
  }, 120_000);

  it('a pull refuses a machine over what one machine may publish, and the machines past what it keeps in all', async () => {
    const remote = bareRemote();
    const desk = makeMachine('desk');
    expect((await desk.run(['sync', 'init', remote])).code).toBe(0);
    const many = (prefix: string, count: number, size: number) =>
      Object.fromEntries(
        Array.from({ length: count }, (_, i) => [`${prefix}${i}`, bigManifest(`${prefix}${i}`, size)]),
      );
    commitToRemote(
      remote,
      {
        ...folderByHand('huge', many('h', 5, 7 * MiB)), // 35 MiB: over the 32 one machine may publish
        ...folderByHand('m1', many('a', 4, 7.5 * MiB)), // 30 MiB
        ...folderByHand('m2', many('b', 4, 7.5 * MiB)), // 30 MiB: 60 in all
        ...folderByHand('m3', { small: simpleManifest('small', 'Small') }),
        ...folderByHand('m4', many('d', 1, 5 * MiB)), // would make 65 MiB and more
      },
      'five machines by hand',
    );
    const pull = await desk.run(['sync', 'pull']);
    expect(pull.code).toBe(1);
    const refused = pull.stderr.split('\n').filter((line) => line.includes('refused'));
    expect(refused).toEqual([
      expect.stringMatching(/machine huge refused: its manifests are 35 MiB, over the 32 MiB one machine may publish/),
      expect.stringMatching(/machine m4 refused: a pull keeps at most 64 MiB of other machines' manifests in all/),
    ]);
    expect(fs.readdirSync(path.join(desk.library, 'pulled')).sort()).toEqual(['m1', 'm2', 'm3']);
    expect(pull.stdout).toMatch(/^m1: 4 agents at public/m);
    expect(pull.stdout).toMatch(/^m2: 4 agents at public/m);
    expect(pull.stdout).toMatch(/^m3: 1 agent at public/m);
  }, 180_000);

  it('a warm read parses no pulled manifest again: it reads the parsed cache', async () => {
    const home = tempDir('bourdon-sync-home-');
    const root = tempDir('bourdon-sync-warm-');
    fs.mkdirSync(path.join(root, 'agents'));
    const dir = path.join(root, 'pulled', 'laptop');
    fs.mkdirSync(path.join(dir, 'agents'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'publication.json'), JSON.stringify({ machine: 'laptop', access_level: 'team' }));
    const pulled = path.join(dir, 'agents', 'codex.l5.yaml');
    fs.writeFileSync(
      pulled,
      simpleManifest('codex', 'Orbit') + '  - date: "2026-11-29"\n    cwd: /w\n    key_actions: [a second session]\n',
    );
    // Past the cache's racy window, so the entry written next is trusted by its stat alone.
    const past = new Date(Date.now() - 60_000);
    fs.utimesSync(pulled, past, past);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const cachePath = parsedLibraryCachePath(root, { BOURDON_HOME: home })!;
    const read = (view: ConstructorParameters<typeof PartialLibraryStore>[1]) =>
      new PartialLibraryStore(root, view, { cachePath, warn: () => {} }).snapshot().byId.get('sync:laptop:codex');
    const cold = read({ entity: 'Orbit' });
    expect(cold?.entities.map((entity) => entity.name)).toEqual(['Orbit']);
    const spy = vi.spyOn(fs, 'readFileSync');
    try {
      const warm = read({ entity: 'Orbit' });
      expect(warm?.entities.map((entity) => [entity.name, entity.summary])).toEqual([['Orbit', 'Orbit summary']]);
      const recent = read({ sessionsSince: null });
      expect(recent?.sessions.map((session) => session.date)).toEqual(['2026-11-30', '2026-11-29']);
      expect(spy.mock.calls.filter(([file]) => String(file) === pulled)).toEqual([]);
    } finally {
      spy.mockRestore();
    }
  });
});
