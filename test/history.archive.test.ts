/**
 * Version archives are packed (writes/archive.ts): gzip of a delta against a base copy, or of the
 * whole file. What a user relies on: every version comes back byte for byte — through the history
 * readers, rollback and explain — whatever the bytes are; versions archived whole by an earlier
 * release still read; pruning never strands a kept version without its base; and small commits
 * to a large manifest cost a small share of it on disk.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createContext, type OperationContext } from '../src/core/context.js';
import { LibraryStore } from '../src/core/store/library.js';
import { REAL_FILES } from '../src/core/fs/atomic.js';
import { decodeArchive, listArchiveNames, writeArchive } from '../src/core/writes/archive.js';
import { readArchive, readArchivedBytes, readHistory } from '../src/core/writes/history.js';
import { sha256 } from '../src/core/writes/version-record.js';
import { explainMemoryChange, rollbackAgentMemory } from './helpers/write-calls.js';
import { commitLive } from '../src/core/writes/writes.js';
import { tempDir } from './helpers/fixtures.js';
import { at } from './helpers/items.js';

function context(library: string, env: Record<string, string> = {}): OperationContext {
  const home = tempDir('bourdon-archive-home-');
  return createContext(new LibraryStore(library, { warn: () => {} }), {
    warn: () => {},
    env: { BOURDON_HOME: home, ...env },
    config: {
      home,
      registry: path.join(home, 'federation.yaml'),
      audit: path.join(home, 'audit.jsonl'),
      peers: path.join(home, 'peers.yaml'),
    },
  });
}

function freshLibrary(): string {
  const library = tempDir('bourdon-archive-');
  fs.mkdirSync(path.join(library, 'agents'));
  return library;
}

const commit = (ctx: OperationContext, rows: Record<string, unknown>) =>
  commitLive(ctx, { agent_id: 'a', agent_type: 'other', ...rows }, { op: 'commit', actor: null });

function bigEntities(count: number, tag: string) {
  return Array.from({ length: count }, (_, i) => ({
    name: `Entity ${tag} ${i}`,
    type: 'project',
    summary: `Summary of entity ${i} about ${tag}, long enough to look like a real row of a manifest.`,
    tags: [tag, `t${i % 7}`],
  }));
}

function historyBytes(library: string): number {
  const dir = path.join(library, 'history', 'a');
  return fs.readdirSync(dir).reduce((sum, name) => sum + fs.statSync(path.join(dir, name)).size, 0);
}

describe('packed version archives', () => {
  it('any bytes come back exactly, whether archived as a delta or a new base', () => {
    const line = fc.oneof(
      fc.constantFrom('  - name: x', '    type: project', '', 'last_updated: now', '\r'),
      fc.uint8Array({ maxLength: 12 }).map((bytes) => Buffer.from(bytes).toString('latin1').replace(/\n/g, '')),
    );
    fc.assert(
      fc.property(fc.array(fc.array(line, { maxLength: 60 }), { minLength: 1, maxLength: 6 }), (versions) => {
        const dir = tempDir('bourdon-archive-prop-');
        versions.forEach((lines, index) => {
          const data = Buffer.from(lines.join('\n'), 'latin1');
          const listing = listArchiveNames(dir, fs.readdirSync(dir));
          writeArchive(dir, index + 1, data, { writer: REAL_FILES, listing });
          expect(
            decodeArchive(path.join(dir, `v${String(index + 1).padStart(6, '0')}.l5.yaml.gz`), REAL_FILES),
          ).toEqual(data);
        });
        fs.rmSync(dir, { recursive: true, force: true });
      }),
      { numRuns: 60 },
    );
  });

  it('small commits to a large manifest keep the history a small share of it; rollback and explain read every version', async () => {
    const library = freshLibrary();
    const ctx = context(library);
    await commit(ctx, { entities: bigEntities(600, 'base') });
    const manifest = fs.statSync(path.join(library, 'agents', 'a.l5.yaml')).size;
    const before = historyBytes(library);
    const lives: Buffer[] = [];
    for (let i = 0; i < 20; i++) {
      await commit(ctx, { entities: [{ name: `Added ${i}`, type: 'concept' }] });
      lives.push(fs.readFileSync(path.join(library, 'agents', 'a.l5.yaml')));
    }
    // Twenty versions of a ~100 KB manifest take less room than one more copy of it would.
    expect(historyBytes(library) - before).toBeLessThan(manifest);
    const state = readHistory(ctx.store.paths, 'a');
    for (const [index, bytes] of lives.entries()) {
      expect(readArchive(state, index + 2)?.equals(bytes)).toBe(true);
    }
    const explained = await explainMemoryChange(ctx, { agent_id: 'a', version: 15 });
    expect(JSON.stringify(explained)).toContain('Added 13');
    const rolled = await rollbackAgentMemory(ctx, { agent_id: 'a', version: 10 });
    expect(rolled).not.toHaveProperty('error');
    expect(fs.readFileSync(path.join(library, 'agents', 'a.l5.yaml')).equals(at(lives, 8))).toBe(true);
  });

  it('reads, explains and rolls back to versions an earlier release archived whole', async () => {
    const library = freshLibrary();
    const ctx = context(library);
    await commit(ctx, { entities: [{ name: 'One' }] });
    const first = fs.readFileSync(path.join(library, 'agents', 'a.l5.yaml'));
    await commit(ctx, { entities: [{ name: 'Two' }] });
    // As an earlier release left it: version 1 as plain bytes, no packed file.
    const dir = path.join(library, 'history', 'a');
    fs.writeFileSync(path.join(dir, 'v000001.l5.yaml'), first);
    fs.rmSync(path.join(dir, 'v000001.l5.yaml.gz'));
    expect(readArchivedBytes(dir, 1).equals(first)).toBe(true);
    const state = readHistory(ctx.store.paths, 'a');
    expect(state.damaged).toBe(false);
    expect(state.records.map((record) => record.version)).toEqual([1, 2]);
    expect(JSON.stringify(await explainMemoryChange(ctx, { agent_id: 'a', version: 2 }))).toContain('Two');
    expect(await rollbackAgentMemory(ctx, { agent_id: 'a', version: 1 })).not.toHaveProperty('error');
    expect(fs.readFileSync(path.join(library, 'agents', 'a.l5.yaml')).equals(first)).toBe(true);
  });

  it('pruning removes bases no kept version needs, and every kept version still reads', async () => {
    const library = freshLibrary();
    const ctx = context(library, { BOURDON_HISTORY_KEEP: '3' });
    const lives: Buffer[] = [];
    // Each commit replaces most of the manifest: every version takes a new base.
    for (let i = 0; i < 8; i++) {
      await commitLive(
        ctx,
        { agent_id: 'a', agent_type: 'other', mode: 'replace', entities: bigEntities(120, `round${i}`) },
        { op: 'commit', actor: null },
      );
      lives.push(fs.readFileSync(path.join(library, 'agents', 'a.l5.yaml')));
    }
    const dir = path.join(library, 'history', 'a');
    const names = fs.readdirSync(dir);
    expect(names.filter((name) => name.startsWith('base-')).sort()).toEqual([
      'base-000006.l5.yaml.gz',
      'base-000007.l5.yaml.gz',
      'base-000008.l5.yaml.gz',
    ]);
    const state = readHistory(ctx.store.paths, 'a');
    expect(state.records.map((record) => record.version)).toEqual([6, 7, 8]);
    for (const record of state.records) {
      const bytes = readArchive(state, record.version)!;
      expect(sha256(bytes)).toBe(record.sha256);
      expect(bytes.equals(at(lives, record.version - 1))).toBe(true);
    }
  });
});
