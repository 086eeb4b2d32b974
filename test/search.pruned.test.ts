/**
 * search_memory's local answer does less work than it used to — it gathers what each row matched
 * only for the groups the page shows, reads a row's group and kind from arrays, and tells an exact
 * name once a group — and must answer exactly as before. On random libraries (names sharing
 * words, aliases, superseded rows, sessions and notes over the same words, workstreams), with a
 * small cap on the rows grouped (so that the cut at the best rows is crossed), the answer is
 * compared with the unpruned path written here as it was: every kept row's matches gathered,
 * every row grouped and asked for its exactness one by one.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { agentsInScope, createContext } from '../src/core/context.js';
import { findEntityMatches } from '../src/core/operations/queries.js';
import { LibraryStore } from '../src/core/store/library.js';
import { stringifyYaml } from '../src/core/store/yaml.js';
import { dayOf } from '../src/core/store/dates.js';
import { searchIndex, type IndexedRow } from '../src/core/operations/search-index.js';
import { fold, words } from '../src/core/operations/search-words.js';
import {
  localSearch,
  MATCH_WEIGHTS,
  SUPERSEDED_WEIGHT,
  termQueries,
  type SearchFilters,
} from '../src/core/operations/search-memory.js';
import type { OperationContext } from '../src/core/context.js';
import { tempDir } from './helpers/fixtures.js';

const NOW = new Date(2026, 5, 14, 12, 0, 0);
const TODAY = '2026-06-14';
const WORDS = ['sync', 'synch', 'engine', 'router', 'routes', 'tide', 'tidewater', 'ledger', 'van', 'café'];
const word = fc.constantFrom(...WORDS);
const phrase = fc.array(word, { minLength: 1, maxLength: 3 }).map((parts) => parts.join(' '));

const entity = fc.record({
  name: phrase,
  aliases: fc.array(phrase, { maxLength: 2 }),
  summary: fc.option(phrase, { nil: undefined }),
  tags: fc.array(word, { maxLength: 2 }),
  valid_to: fc.constantFrom(undefined, undefined, '2020-01-01', '2030-01-01'),
});
const session = fc.record({
  date: fc.constantFrom('2026-06-01', '2026-06-10'),
  project_focus: fc.array(fc.constantFrom('Tide', 'tide', 'Ledger sync'), { maxLength: 1 }),
  key_actions: fc.array(phrase, { minLength: 1, maxLength: 2 }),
});
const note = fc.record({ date: fc.constant('2026-06-11'), title: phrase, text: phrase });
const agent = fc.record({
  entities: fc.array(entity, { maxLength: 8 }),
  sessions: fc.array(session, { maxLength: 3 }),
  notes: fc.array(note, { maxLength: 2 }),
});
const query = fc.oneof(phrase, fc.constantFrom('tidewatr', 'rotuer', 'syn', 'cafe', 'ledger sync', 'qz'));

function write(library: string, agents: AgentDoc[]): void {
  fs.mkdirSync(path.join(library, 'agents'), { recursive: true });
  agents.forEach((doc, i) => {
    const clean = (value: object) => JSON.parse(JSON.stringify(value)) as object;
    const manifest = {
      spec_version: '0.1',
      agent: { id: `agent-${i}`, type: 'other' },
      known_entities: doc.entities.map((e) => clean({ type: 'project', ...e })),
      recent_sessions: doc.sessions.map((s) => ({ cwd: '/x', ...s })),
      notes: doc.notes,
    };
    fs.writeFileSync(path.join(library, 'agents', `agent-${i}.l5.yaml`), stringifyYaml(manifest));
  });
}
type AgentDoc = { entities: object[]; sessions: object[]; notes: object[] };

/** The answer as search_memory gave it before the pruning: every kept row's details, grouped one by one. */
function unpruned(ctx: OperationContext, text: string, filters: SearchFilters, limit: number, maxHits: number) {
  const terms = [...new Set(words(text))].slice(0, 12);
  if (!terms.length) return { groups: [], total: 0 };
  const index = searchIndex(ctx, 'team');
  const origin = new Map<string, string>();
  const superseded = (row: IndexedRow) =>
    row.kind === 'entity' && row.entity.valid_to !== null && (dayOf(row.entity.valid_to) ?? TODAY) < TODAY;
  const { hits, total } = index.postings.search(
    termQueries(terms, origin, (term) => index.knows(term)),
    {
      weights: MATCH_WEIGHTS,
      boost: (id) => {
        const row = index.rowAt(id)!;
        if (filters.kinds && !filters.kinds.has(row.kind)) return 0;
        return superseded(row) ? SUPERSEDED_WEIGHT : 1;
      },
      limit: maxHits,
    },
  );
  const query = words(text).join(' ');
  type Group = { label: string; score: number; exact: number; fields: Set<string> };
  const all: Group[] = [];
  const byKey = new Map<string, Group>();
  for (const hit of hits) {
    const row = index.rowAt(hit.id)!;
    const key =
      row.kind === 'entity' ? `e:${row.entity.name}` : row.kind === 'workstream' ? `w:${fold(row.name)}` : null;
    let group = key === null ? undefined : byKey.get(key);
    if (!group) {
      const label =
        row.kind === 'entity'
          ? `entity:${row.entity.name}`
          : row.kind === 'workstream'
            ? `workstream:${row.name}`
            : row.kind === 'session'
              ? `session:${row.agent.id}:${row.session.date}:${row.session.key_actions.join('|')}`
              : `note:${row.agent.id}:${row.position}`;
      group = { label, score: 0, exact: 0, fields: new Set() };
      all.push(group);
      if (key !== null) byKey.set(key, group);
    }
    const covered = new Set(hit.queryTerms.map((term) => origin.get(term) ?? term)).size / terms.length;
    group.score = Math.max(group.score, hit.score * covered * covered);
    const names =
      row.kind === 'entity' ? [row.entity.name, ...row.entity.aliases] : row.kind === 'workstream' ? [row.name] : [];
    for (const name of names) {
      const held = words(name);
      if (held.join(' ') === query) group.exact = 2;
      else if (held.length === terms.length && held.every((w) => Object.hasOwn(hit.match, w)))
        group.exact = Math.max(group.exact, 1);
    }
    for (const fields of Object.values(hit.match)) for (const field of fields) group.fields.add(field);
  }
  const top = all.reduce((best, group) => Math.max(best, group.score), 0);
  const groups = all
    .map((group) => ({ ...group, final: group.score + (top * group.exact) / 2 }))
    .sort((a, b) => b.final - a.final)
    .slice(0, limit)
    .map((group) => ({
      label: group.label,
      score: Math.round(group.final * 1000) / 1000,
      matched: [...group.fields].sort(),
    }));
  return { groups, total: hits.length < total ? total : all.length };
}

function labelOf(result: ReturnType<typeof localSearch>['results'][number]): string {
  switch (result.kind) {
    case 'entity':
      return `entity:${result.name}`;
    case 'workstream':
      return `workstream:${result.name}`;
    case 'session':
      return `session:${result.agent}:${result.date}:${result.key_actions.join('|')}`;
    case 'note':
      return `note:${result.id}`;
  }
}

/** The local answer (its count, and each result's label, score and fields matched) is the unpruned path's. */
function expectUnpruned(ctx: OperationContext, text: string, filters: SearchFilters, limit: number, maxHits: number) {
  const expected = unpruned(ctx, text, filters, limit, maxHits);
  const got = localSearch(ctx, text, 'team', filters, limit, maxHits);
  expect(got.total).toBe(expected.total);
  expect(
    got.results.map((result) => ({ label: labelOf(result), score: result.score, matched: result.matched })),
  ).toEqual(expected.groups);
  // An entity's holders, types and tags: find_entity's group for its name, as before.
  for (const result of got.results) {
    if (result.kind !== 'entity') continue;
    const whole = findEntityMatches(agentsInScope(ctx), result.name, 'team').find((m) => m.name === result.name)!;
    expect({ agents: result.agents, types: result.types, tags: result.tags }).toEqual({
      agents: whole.agents,
      types: whole.types,
      tags: whole.tags,
    });
  }
}

describe('search_memory with less work per search', () => {
  it('answers exactly as the unpruned path on random libraries, across the cut at the best rows', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(agent, { minLength: 1, maxLength: 3 }),
        fc.array(
          fc.record({
            text: query,
            limit: fc.integer({ min: 1, max: 6 }),
            maxHits: fc.integer({ min: 1, max: 40 }),
            kinds: fc.constantFrom(null, new Set(['entity', 'workstream'] as const), new Set(['session'] as const)),
          }),
          { minLength: 1, maxLength: 5 },
        ),
        async (agents, searches) => {
          const library = tempDir('bourdon-pruned-');
          try {
            write(library, agents as AgentDoc[]);
            const store = new LibraryStore(library, { warn: () => {} });
            const ctx = createContext(store, { now: () => NOW, warn: () => {}, env: {} });
            for (const { text, limit, maxHits, kinds } of searches) {
              expectUnpruned(ctx, text, { kinds, agent: null, since: null }, limit, maxHits);
            }
          } finally {
            fs.rmSync(library, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  // The best rows are grouped in no order (only the shown groups' rows are ordered): among equal
  // scores, a group must still come where its best row would have come (a higher score, or an
  // equal one and a lower id). Rows that tie are made here on purpose — the same notes and names
  // in every agent — and a manifest is written again between searches, so that the re-added rows
  // take freed ids and the order the postings meet the rows in is no longer the order of ids.
  it('keeps the order of equal scores when rows tie and ids are reused', async () => {
    const few = fc.constantFrom('tide', 'ledger', 'tide ledger', 'ledger tide');
    const tied = fc.record({
      entities: fc.array(
        fc.record({ name: few, aliases: fc.array(few, { maxLength: 1 }), summary: fc.option(few, { nil: undefined }) }),
        { maxLength: 4 },
      ),
      sessions: fc.constant([] as object[]),
      notes: fc.array(fc.record({ date: fc.constant('2026-06-11'), title: few, text: few }), { maxLength: 4 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(tied, { minLength: 2, maxLength: 4 }),
        fc.array(
          fc.record({
            text: fc.constantFrom('tide', 'ledger', 'tide ledger', 'ledger tide', 'tid', 'ldeger'),
            limit: fc.integer({ min: 1, max: 12 }),
            maxHits: fc.integer({ min: 1, max: 30 }),
            rewrite: fc.integer({ min: 0, max: 3 }),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        async (agents, searches) => {
          const library = tempDir('bourdon-pruned-');
          try {
            const docs = agents as AgentDoc[];
            write(library, docs);
            const store = new LibraryStore(library, { warn: () => {} });
            const ctx = createContext(store, { now: () => NOW, warn: () => {}, env: {} });
            for (const [i, { text, limit, maxHits, rewrite }] of searches.entries()) {
              if (i > 0) {
                // The same manifest again with one note more or less: its rows leave and come back.
                const at = rewrite % docs.length;
                const doc = docs[at]!;
                docs[at] = {
                  ...doc,
                  notes:
                    doc.notes.length % 2
                      ? doc.notes.slice(1)
                      : [...doc.notes, doc.notes[0] ?? { date: '2026-06-11', title: 'van', text: 'van' }],
                };
                write(library, docs);
              }
              expectUnpruned(ctx, text, { kinds: null, agent: null, since: null }, limit, maxHits);
            }
          } finally {
            fs.rmSync(library, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 80 },
    );
  });

  // Whether a name or alias can be the query is told from how many words it has before its words
  // are read (bench/README.md, "Fewer row reads per search"), and a row's aliases are read once,
  // their word counts kept with the row: names and aliases of one to five words, repeated words
  // included (the query's distinct words then number fewer than its phrase's), asked as they are,
  // misspelt, with a word repeated or left out, one search after another on the same index.
  it('tells exact names and aliases of every length, repeated words included', async () => {
    const short = fc.constantFrom('tide', 'ledger', 'van', 'router');
    const name = fc.array(short, { minLength: 1, maxLength: 5 }).map((parts) => parts.join(' '));
    const named = fc.record({
      entities: fc.array(fc.record({ name, aliases: fc.array(name, { maxLength: 3 }) }), { maxLength: 6 }),
      sessions: fc.constant([] as object[]),
      notes: fc.constant([] as object[]),
    });
    const change = fc.constantFrom('as is', 'misspelt', 'repeated', 'shorter');
    await fc.assert(
      fc.asyncProperty(
        fc.array(named, { minLength: 1, maxLength: 3 }),
        fc.array(fc.record({ pick: fc.nat(), change, limit: fc.integer({ min: 1, max: 8 }) }), {
          minLength: 1,
          maxLength: 6,
        }),
        async (agents, searches) => {
          const library = tempDir('bourdon-pruned-');
          try {
            const docs = agents;
            write(library, docs);
            const store = new LibraryStore(library, { warn: () => {} });
            const ctx = createContext(store, { now: () => NOW, warn: () => {}, env: {} });
            const names = docs.flatMap((doc) => doc.entities.flatMap((e) => [e.name, ...e.aliases]));
            for (const { pick, change, limit } of searches) {
              const parts = (names.length ? names[pick % names.length]! : 'tide van').split(' ');
              const text =
                change === 'misspelt'
                  ? parts.map((part) => (part === 'ledger' ? 'ldeger' : part === 'router' ? 'rotuer' : part)).join(' ')
                  : change === 'repeated'
                    ? [...parts, parts[0]].join(' ')
                    : change === 'shorter' && parts.length > 1
                      ? parts.slice(1).join(' ')
                      : parts.join(' ');
              expectUnpruned(ctx, text, { kinds: null, agent: null, since: null }, limit, 50);
            }
          } finally {
            fs.rmSync(library, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 80 },
    );
  });
});
