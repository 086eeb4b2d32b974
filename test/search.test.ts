/**
 * The page's entity search (core/operations/search.ts) on a library built for it: part of a
 * name, an alias or a summary matches in any case; whole names come first; rows above the level
 * stay hidden; the answer stops at its bound and says so, on a library large enough that the
 * scan yields to the event loop on the way.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../src/core/context.js';
import { SEARCH_MATCH_LIMIT, searchEntities } from '../src/core/operations/search.js';
import { LibraryStore } from '../src/core/store/library.js';
import { stringifyYaml } from '../src/core/store/yaml.js';
import { tempDir } from './helpers/fixtures.js';

let library: string;
const ctx = () => createContext(new LibraryStore(library, { warn: () => {} }), { warn: () => {}, env: {} });

const manifest = (id: string, entities: object[]) => ({
  spec_version: '0.1',
  agent: { id, type: 'other' },
  known_entities: entities,
});

beforeAll(() => {
  library = tempDir('bourdon-search-');
  fs.mkdirSync(path.join(library, 'agents'));
  const docs = {
    alpha: manifest('alpha', [
      { name: 'Sync engine', type: 'component', summary: 'Moves manifests through git.' },
      { name: 'Ledger', aliases: ['sync'], summary: 'Where versions are kept.' },
      { name: 'Vault', summary: 'Holds the SYNC secrets.', visibility: 'private' },
    ]),
    beta: manifest('beta', [{ name: 'Sync engine', type: 'project', summary: 'The engine beta knows.' }]),
    // Enough rows that the scan yields at least once, and more matching names than the bound.
    bulk: manifest(
      'bulk',
      Array.from({ length: 12_000 }, (_, i) => ({
        name: `Row ${i}`,
        summary: i % 100 === 0 ? 'bulk match' : 'filler',
      })),
    ),
  };
  for (const [id, doc] of Object.entries(docs))
    fs.writeFileSync(path.join(library, 'agents', `${id}.l5.yaml`), stringifyYaml(doc));
});
afterAll(() => fs.rmSync(library, { recursive: true, force: true }));

describe('searchEntities', () => {
  it('matches part of a name, an alias or a summary in any case, whole names first, grouped across agents', async () => {
    const answer = await searchEntities(ctx(), { text: 'SYNC', access_level: 'team' });
    expect('error' in answer).toBe(false);
    // Ledger's alias is the whole text, so it leads; Sync engine holds it as part of its name.
    expect(answer.matches.map((match) => match.name)).toEqual(['Ledger', 'Sync engine']);
    const engine = answer.matches[1];
    expect(engine.agents).toEqual(['alpha', 'beta']);
    expect(engine.types).toEqual(['component', 'project']);
    expect(engine.summaries).toEqual({ alpha: 'Moves manifests through git.', beta: 'The engine beta knows.' });
    expect(answer.truncated).toBe(false);
  });

  it('finds by summary text, and keeps rows above the level hidden', async () => {
    const team = await searchEntities(ctx(), { text: 'secrets', access_level: 'team' });
    expect(team.matches).toEqual([]);
    const mine = await searchEntities(ctx(), { text: 'secrets', access_level: 'private' });
    expect(mine.matches.map((match) => match.name)).toEqual(['Vault']);
  });

  it('stops at its bound and says so', async () => {
    const answer = await searchEntities(ctx(), { text: 'bulk match', access_level: 'public' });
    expect(answer.matches).toHaveLength(SEARCH_MATCH_LIMIT);
    expect(answer.truncated).toBe(true);
    const few = await searchEntities(ctx(), { text: 'row 1100', access_level: 'public' });
    expect(few.matches.map((match) => match.name)).toEqual([
      'Row 1100',
      ...Array.from({ length: 10 }, (_, i) => `Row 1100${i}`),
    ]);
    expect(few.truncated).toBe(false);
  });

  it('answers nothing for blank text, and an error for an unknown level', async () => {
    expect((await searchEntities(ctx(), { text: '   ' })).matches).toEqual([]);
    const bad = await searchEntities(ctx(), { text: 'sync', access_level: 'secret' });
    expect('error' in bad && bad.error).toBeTruthy();
  });
});
