/**
 * search_memory's ranking and visibility on a library built for the purpose, in process: the
 * kinds of query the judged set stands for (typos and swaps, accents, aliases, tags, actions,
 * notes, several words), superseded rows below current ones, hidden rows never a result, a
 * snippet redacted as every read is, the filters, a quarantined caller's scope, and a changed
 * manifest re-indexed alone.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoke } from '../src/core/operations/invoke.js';
import { searchMemoryOperation } from '../src/core/operations/read-operations.js';
import { searchIndex, warmSearchIndex } from '../src/core/operations/search-index.js';
import { searchSuggestions } from '../src/core/operations/search-memory.js';
import { agentsInScope, createContext, type OperationContext } from '../src/core/context.js';
import { LibraryStore } from '../src/core/store/library.js';
import { stringifyYaml } from '../src/core/store/yaml.js';
import { REDACTED } from '../src/core/trust/redaction.js';
import { tempDir } from './helpers/fixtures.js';
import { warmSearchMemory } from '../src/core/operations/search-memory.js';
import { warmSearchCode } from '../src/core/operations/search-warm.js';

const AGENTS = {
  alpha: {
    spec_version: '0.1',
    agent: { id: 'alpha', type: 'code-assistant' },
    known_entities: [
      { name: 'Meridian', type: 'project', aliases: ['MRD'], summary: 'Route planner for delivery vans.' },
      { name: 'Meridian export', type: 'tool', summary: 'Exports meridian routes as CSV.' },
      { name: 'Crème brûlée', type: 'dish', tags: ['dessert'] },
      { name: 'Old router', type: 'service', summary: 'Van routing service.', valid_to: '2020-01-01' },
      { name: 'New router', type: 'service', summary: 'Van routing service.' },
      { name: 'Vault', type: 'service', summary: 'The api_key for vault is kept in 1Password.' },
      { name: 'Secret plan', type: 'project', summary: 'Quietly acquire the bakery.', visibility: 'private' },
    ],
    recent_sessions: [
      {
        date: '2026-06-10',
        cwd: '/src/meridian',
        project_focus: ['Meridian'],
        key_actions: ['Fixed the depot timezone bug'],
      },
      { date: '2026-05-01', cwd: '/src/meridian', project_focus: ['Meridian'], key_actions: ['Tuned the solver'] },
    ],
    notes: [
      { date: '2026-06-11', title: 'Solver freeze', text: 'No solver changes before the audit.', tags: ['decision'] },
    ],
  },
  beta: {
    spec_version: '0.1',
    agent: { id: 'beta', type: 'other' },
    known_entities: [{ name: 'Meridian', type: 'project', tags: ['logistics'] }],
    recent_sessions: [
      {
        date: '2026-06-12',
        cwd: '/x',
        project_focus: ['Harbor'],
        key_actions: ['Hidden payroll fix'],
        visibility: 'private',
      },
    ],
  },
};

let library: string;
const NOW = new Date(2026, 5, 14, 12, 0, 0);

function ctx(overrides: Partial<OperationContext> = {}): OperationContext {
  return createContext(new LibraryStore(library, { warn: () => {} }), {
    now: () => NOW,
    warn: () => {},
    env: {},
    ...overrides,
  });
}

async function search(query: string, extra: Record<string, unknown> = {}, context = ctx()) {
  const answer = await invoke(searchMemoryOperation, context, { query, access_level: 'team', ...extra });
  if ('error' in answer) throw new Error(String(answer.error));
  return answer;
}
const labels = (answer: { results: { kind: string; name?: string; agent?: string }[] }) =>
  answer.results.map((result) => `${result.kind}:${result.name ?? result.agent}`);

/**
 * Every query's answer in `context` is what a fresh store (a fresh index) answers: the same
 * results in the same order with the same fields, snippets and scores (the field lengths' means
 * BM25 reads are exact sums over counts, whatever order rows came and went in).
 */
async function expectFreshAnswers(context: OperationContext) {
  const queries = ['meridian', 'lighthouse', 'van routing', 'solver', 'mrd', 'logistcs', 'rout', 'harbor'];
  for (const level of ['public', 'team', 'private'])
    for (const query of queries) {
      const changed = await search(query, { access_level: level }, context);
      expect(changed).toEqual(await search(query, { access_level: level }));
    }
}

beforeAll(() => {
  library = tempDir('bourdon-search-');
  fs.mkdirSync(path.join(library, 'agents'));
  for (const [id, doc] of Object.entries(AGENTS))
    fs.writeFileSync(path.join(library, 'agents', `${id}.l5.yaml`), stringifyYaml(doc));
});
afterAll(() => fs.rmSync(library, { recursive: true, force: true }));

describe('search_memory ranking', () => {
  it('puts an exact alias first and groups an entity by name across agents', async () => {
    const answer = await search('mrd');
    expect(labels(answer)[0]).toBe('entity:Meridian');
    expect(answer.results[0]).toMatchObject({ agents: ['alpha', 'beta'], matched: ['aliases'] });
    const byName = await search('meridian');
    expect(labels(byName)[0]).toBe('entity:Meridian');
    expect(labels(byName)).toContain('entity:Meridian export');
  });

  it('puts a name first that the whole query names, even past the words it looks up', async () => {
    // Twelve words are looked up; a thirteen-word name the query spells out is still its exact
    // name, above a twelve-word one holding every word looked up (a name with a typo's rank).
    const root = tempDir('bourdon-search-long-');
    const twelve = 'one two three four five six seven eight nine ten eleven twelve';
    const manifest = {
      spec_version: '0.1',
      agent: { id: 'gamma', type: 'other' },
      known_entities: [
        { name: twelve, type: 'list' },
        { name: `${twelve} thirteen`, type: 'list' },
      ],
    };
    fs.mkdirSync(path.join(root, 'agents'));
    fs.writeFileSync(path.join(root, 'agents', 'gamma.l5.yaml'), stringifyYaml(manifest));
    try {
      const context = createContext(new LibraryStore(root, { warn: () => {} }), {
        now: () => NOW,
        warn: () => {},
        env: {},
      });
      expect(labels(await search(`${twelve} thirteen`, {}, context))).toEqual([
        `entity:${twelve} thirteen`,
        `entity:${twelve}`,
      ]);
      expect(labels(await search(twelve, {}, context))[0]).toBe(`entity:${twelve}`);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('forgives one edit in a short word, two in a long one, and a swap as one edit', async () => {
    expect(labels(await search('meridan'))[0]).toBe('entity:Meridian');
    expect(labels(await search('mreidian'))[0]).toBe('entity:Meridian');
    expect(labels(await search('soolver'))).toContain('note:alpha');
    expect(labels(await search('slover'))).toContain('note:alpha');
    // Two edits in a seven-letter word are too many.
    expect(labels(await search('sxxlver'))).not.toContain('note:alpha');
  });

  it('takes a word the library holds as written, and expands only a word it lacks', async () => {
    // "router" is indexed: rows holding only "routes" or "route" (one edit away) are not its matches.
    const known = labels(await search('router'));
    expect(known).toEqual(expect.arrayContaining(['entity:New router', 'entity:Old router']));
    expect(known).not.toContain('entity:Meridian export');
    expect(known).not.toContain('entity:Meridian');
    // "routr" is not: its neighbours are looked up, as is a prefix of an indexed word.
    expect(labels(await search('routr'))).toContain('entity:New router');
    expect(labels(await search('rout'))).toContain('entity:New router');
  });

  it('folds accents and case both ways', async () => {
    expect(labels(await search('creme brulee'))[0]).toBe('entity:Crème brûlée');
    expect(labels(await search('CRÈME'))[0]).toBe('entity:Crème brûlée');
  });

  it('finds tags, session actions and note text, and a row holding every word first', async () => {
    expect(labels(await search('logistics'))[0]).toBe('entity:Meridian');
    expect(labels(await search('depot timezone'))[0]).toBe('session:alpha');
    expect(labels(await search('audit'))[0]).toBe('note:alpha');
    const both = await search('meridian timezone');
    expect(labels(both)[0]).toBe('session:alpha');
  });

  it('ranks a row whose valid_to is past below a current one, and says it is superseded', async () => {
    const answer = await search('van routing');
    expect(labels(answer).slice(0, 2)).toEqual(['entity:New router', 'entity:Old router']);
    expect(answer.results[1]).toMatchObject({ superseded: true });
    expect(answer.results[0]).toMatchObject({ superseded: false });
  });

  it('weighs a row by its valid_to on the day of each search, one index serving both days', async () => {
    const store = new LibraryStore(library, { warn: () => {} });
    const on = (day: Date) => createContext(store, { now: () => day, warn: () => {}, env: {} });
    const scores = async (day: Date) => {
      const answer = await search('van routing', {}, on(day));
      return Object.fromEntries(
        answer.results.slice(0, 2).map((result) => [labels({ results: [result] })[0], result.score]),
      );
    };
    const current = await scores(new Date(2019, 5, 1, 12));
    // Before its valid_to, the old router's summary weighs as the new one's: the same score.
    expect(current['entity:Old router']).toBe(current['entity:New router']);
    const later = await scores(NOW);
    expect(later['entity:Old router']).toBeLessThan(later['entity:New router']!);
    expect(await scores(new Date(2019, 5, 1, 12))).toEqual(current);
    store.close();
  });

  it('marks the matching words in a snippet, and redacts a snippet as every read redacts', async () => {
    const [route] = (await search('delivery')).results;
    expect(route?.snippet).toBe('Route planner for **delivery** vans.');
    const [vault] = (await search('vault')).results;
    expect(vault).toMatchObject({ name: 'Vault', snippet: REDACTED });
  });
});

describe('search_memory visibility and filters', () => {
  it('never answers, counts or suggests a row the level hides', async () => {
    for (const level of ['public', 'team']) {
      const answer = await search('bakery payroll secret', { access_level: level });
      expect(answer.results).toEqual([]);
      expect(answer.truncated).toBe(false);
    }
    expect(searchSuggestions(ctx(), 'secrt plan', 'team')).not.toContain('Secret plan');
    // A hidden row's words are not even in the level's vocabulary (which decides typo expansion).
    const team = ctx();
    expect(searchIndex(team, 'team').knows('payroll')).toBe(false);
    expect(searchIndex(team, 'private').knows('payroll')).toBe(true);
    expect(searchSuggestions(ctx(), 'secrt plan', 'private')).toContain('Secret plan');
    const privately = await search('bakery payroll', { access_level: 'private' });
    expect(labels(privately)).toEqual(expect.arrayContaining(['entity:Secret plan', 'session:beta']));
  });

  it('keeps the kinds, agent and days asked for, and cuts to the limit saying so', async () => {
    expect(new Set((await search('meridian', { kind: 'session' })).results.map((r) => r.kind))).toEqual(
      new Set(['session']),
    );
    const agent = await search('meridian', { agent: 'beta' });
    expect(agent.results.every((result) => 'agents' in result && result.agents.includes('beta'))).toBe(true);
    const since = await search('meridian', { since: '2026-06-01' });
    expect(since.results.every((result) => result.kind !== 'entity')).toBe(true);
    expect(labels(since)).toContain('session:alpha');
    const cut = await search('meridian', { limit: 1 });
    expect(cut.results).toHaveLength(1);
    expect(cut.truncated).toBe(true);
    const refused = await invoke(searchMemoryOperation, ctx(), { query: 'x', kind: 'planet' });
    expect(refused).toMatchObject({ error: expect.stringMatching(/unknown kind "planet"/), results: [] });
  });

  it('searches only the namespaces a quarantined caller was granted', async () => {
    const scoped = ctx({ caller: { agent_id: 'beta', tier: 'quarantined', grants: ['beta'], ceiling: 'team' } });
    const answer = await search('meridian', {}, scoped);
    expect(labels(answer)).toEqual(['entity:Meridian']);
    expect(answer.results[0]).toMatchObject({ agents: ['beta'] });
  });

  it('re-indexes a changed manifest alone, and answers from it in the next call', async () => {
    const context = ctx();
    await search('meridian', {}, context);
    const index = searchIndex(context, 'team');
    // A row is re-indexed when its object is new (ids of rows taken out are reused).
    const rowsOf = (agent: string) => [...index.indexed()].filter((row) => row.agent.id === agent);
    const alphaRows = rowsOf('alpha');
    const betaRows = rowsOf('beta');
    expect(index.knows('logistics')).toBe(true);
    // With a row whose valid_to is past: the weights by row follow the rows that came in.
    const beta = {
      ...AGENTS.beta,
      known_entities: [
        { name: 'Lighthouse', type: 'project' },
        { name: 'Lighthouse keeper', type: 'person', summary: 'Kept the old lighthouse.', valid_to: '2020-01-01' },
      ],
    };
    fs.writeFileSync(path.join(library, 'agents', 'beta.l5.yaml'), stringifyYaml(beta));
    const after = await search('lighthouse', {}, context);
    expect(labels(after)[0]).toBe('entity:Lighthouse');
    expect(searchIndex(context, 'team')).toBe(index);
    expect(rowsOf('alpha').every((row, i) => row === alphaRows[i])).toBe(true);
    expect(rowsOf('alpha')).toHaveLength(alphaRows.length);
    expect(rowsOf('beta').some((row) => betaRows.includes(row))).toBe(false);
    // The vocabulary follows: the old manifest's words are gone, the new one's are in.
    expect(index.knows('logistics')).toBe(false);
    expect(index.knows('lighthouse')).toBe(true);
    // It answers as an index built afresh from the changed library (a new store), and again once
    // the manifest is back (the removed rows' ids reused, the words' postings packed anew).
    await expectFreshAnswers(context);
    fs.writeFileSync(path.join(library, 'agents', 'beta.l5.yaml'), stringifyYaml(AGENTS.beta));
    await expectFreshAnswers(context);
  });

  it('builds an index in the background, a manifest per turn, and a search meanwhile finishes it', async () => {
    const context = ctx();
    const agents = agentsInScope(context);
    const { index, done } = warmSearchIndex(context, 'public');
    // One manifest now, the next at the next turn of the event loop: a request can run between.
    expect(agents.filter((agent) => index.holds(agent))).toHaveLength(1);
    const answer = await search('meridian', { access_level: 'public' }, context);
    expect(answer.results[0]).toMatchObject({ name: 'Meridian', agents: ['alpha', 'beta'] });
    expect(agents.every((agent) => index.holds(agent))).toBe(true);
    await done;
    expect(searchIndex(context, 'public')).toBe(index);
    // Only the public rows: the level's own index, the private plan not in it.
    expect(index.knows('bakery')).toBe(false);
  });

  it('sees a manifest written in place just before the call, in a server watching the library', async () => {
    const root = tempDir('bourdon-search-inplace-');
    fs.mkdirSync(path.join(root, 'agents'));
    const file = path.join(root, 'agents', 'beta.l5.yaml');
    fs.writeFileSync(file, stringifyYaml(AGENTS.beta));
    // As `bourdon serve` opens the library (OS events on agents/), on a clock that never moves,
    // so that no fallback sweep is due: only the write's own event can tell the store.
    const store = new LibraryStore(root, { warn: () => {}, freshness: { watch: true, now: () => 0 } });
    try {
      const context = createContext(store, { now: () => NOW, warn: () => {}, env: {} });
      expect(labels(await search('meridian', {}, context))).toEqual(['entity:Meridian']);
      // Written in place (same file, same inode), and searched in the same turn of the event loop.
      const beta = { ...AGENTS.beta, known_entities: [{ name: 'Zanzibar lighthouse', type: 'project' }] };
      fs.writeFileSync(file, stringifyYaml(beta));
      expect(labels(await search('zanzibar lighthouse', {}, context))).toEqual(['entity:Zanzibar lighthouse']);
    } finally {
      store.close();
    }
  });
});

describe('the searches a server runs as it starts', () => {
  it('leave every answer as a fresh server gives it, and write nothing to the library', async () => {
    const store = new LibraryStore(library, { warn: () => {} });
    const before = fs.readdirSync(library, { recursive: true }).sort();
    await warmSearchMemory(store, {});
    await warmSearchCode(store, {});
    expect(fs.readdirSync(library, { recursive: true }).sort()).toEqual(before);
    const warmed = createContext(store, { now: () => NOW, warn: () => {}, env: {} });
    for (const query of ['meridian', 'mrd', 'payroll', 'harbr']) {
      for (const level of [{}, { access_level: 'team' }]) {
        const fresh = await invoke(searchMemoryOperation, ctx(), { query, ...level });
        expect(await invoke(searchMemoryOperation, warmed, { query, ...level })).toEqual(fresh);
      }
    }
    store.close();
  });
});
