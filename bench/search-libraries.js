#!/usr/bin/env node
// How search_memory's library was chosen: MiniSearch, Orama and FlexSearch (devDependencies for
// this bench only) each index the same rows — the judged library's (test/fixtures/search) at the
// level each judged query reads, and a generated library's — with the same field weights and
// their own typo tolerance, and answer the 22 judged queries, judged as the README says (rows
// ungrouped: an entity by its name, a session by agent and action, a note by agent and title).
// Reported per library: queries passed, index build time and median query time on the generated
// library. After a build: node bench/search-libraries.js [--agents 10]
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import MiniSearch from 'minisearch';
import { create, insertMultiple, search as oramaSearch } from '@orama/orama';
import FlexSearch from 'flexsearch';
import { generateLibrary } from './generate.js';
import { flagReader, ROOT } from './lib.js';

const dist = (file) => import(pathToFileURL(path.join(ROOT, 'dist', file)).href);
const { LibraryStore } = await dist('core/store/library.js');
const { createContext } = await dist('core/context.js');
const { searchIndex, FIELD_BOOSTS, fold } = await dist('core/operations/search-index.js');
const { editsFor } = await dist('core/operations/search-memory.js');

const FIELDS = Object.keys(FIELD_BOOSTS);
const SEARCH_DIR = path.join(ROOT, 'test', 'fixtures', 'search');
const { queries } = JSON.parse(fs.readFileSync(path.join(SEARCH_DIR, 'queries.json'), 'utf8'));

/** The rows search_memory indexes at `level`, as plain documents with the same fields. */
function documents(library, level) {
  const ctx = createContext(new LibraryStore(library, { warn: () => {} }), { warn: () => {} });
  const index = searchIndex(ctx, level);
  const docs = [];
  for (const [id, row] of index.rows) {
    const doc = { id: String(id), kind: row.kind, agent: row.agent.id };
    for (const field of FIELDS) doc[field] = '';
    if (row.kind === 'entity') {
      Object.assign(doc, {
        name: row.entity.name,
        aliases: row.entity.aliases.join(' '),
        tags: row.entity.tags.join(' '),
      });
      Object.assign(doc, { type: row.entity.type ?? '', summary: row.entity.summary ?? '' });
    } else if (row.kind === 'session') {
      Object.assign(doc, {
        key_actions: row.session.key_actions.join(' \n '),
        project_focus: row.session.project_focus.join(' '),
      });
      Object.assign(doc, { cwd: row.session.cwd ?? '', files_touched: row.session.files_touched.join(' ') });
      doc.actions = row.session.key_actions;
    } else if (row.kind === 'note') {
      Object.assign(doc, { title: row.title ?? '', text: row.text, tags: row.note.tags.join(' ') });
    } else doc.name = row.name;
    docs.push(doc);
  }
  return docs;
}

const ENGINES = {
  minisearch: {
    build(docs) {
      const engine = new MiniSearch({ fields: FIELDS, processTerm: (term) => fold(term) || null });
      engine.addAll(docs);
      return engine;
    },
    search(engine, query) {
      return engine
        .search(query, { boost: FIELD_BOOSTS, prefix: (t) => t.length >= 3, fuzzy: (t) => editsFor(t) })
        .map((hit) => hit.id);
    },
  },
  orama: {
    build(docs) {
      const db = create({ schema: Object.fromEntries(FIELDS.map((field) => [field, 'string'])) });
      insertMultiple(
        db,
        docs.map((doc) => Object.fromEntries([['id', doc.id], ...FIELDS.map((f) => [f, fold(doc[f])])])),
      );
      return db;
    },
    search(db, query) {
      const term = fold(query);
      const words = term.split(/\s+/);
      const tolerance = Math.max(...words.map((word) => editsFor(word)));
      const found = oramaSearch(db, { term, properties: FIELDS, boost: FIELD_BOOSTS, tolerance, limit: 50 });
      return found.hits.map((hit) => hit.id);
    },
  },
  flexsearch: {
    build(docs) {
      const index = new FlexSearch.Document({
        document: { id: 'id', index: FIELDS },
        tokenize: 'forward',
        encoder: 'LatinBalance',
      });
      for (const doc of docs) index.add(Object.fromEntries([['id', doc.id], ...FIELDS.map((f) => [f, doc[f]])]));
      return index;
    },
    search(index, query) {
      // No relevance scores: the fields' own rankings, merged by field weight and rank.
      const scores = new Map();
      for (const { field, result } of index.search(query, { limit: 50, suggest: true })) {
        result.forEach((id, rank) => scores.set(id, (scores.get(id) ?? 0) + FIELD_BOOSTS[field] / (rank + 1)));
      }
      return [...scores.entries()].sort((a, b) => b[1] - a[1]).map(([id]) => String(id));
    },
  },
};

function matches(doc, expected) {
  if (expected.kind === 'any') return true;
  if (doc.kind !== expected.kind) return false;
  const lower = (value) => String(value ?? '').toLowerCase();
  if (doc.kind === 'entity') return lower(doc.name) === lower(expected.name);
  if (doc.kind === 'session')
    return doc.agent === expected.agent && doc.actions.some((a) => lower(a).includes(lower(expected.action)));
  if (doc.kind === 'note') return doc.agent === expected.agent && doc.title === expected.title;
  return false;
}

/** Rows as results: an entity once per name, as search_memory groups them. */
function ranked(ids, byId) {
  const seen = new Set();
  const out = [];
  for (const id of ids) {
    const doc = byId.get(String(id));
    const key = doc.kind === 'entity' ? `e:${doc.name}` : doc.kind === 'workstream' ? `w:${doc.name}` : id;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(doc);
  }
  return out;
}

const judgedLibrary = path.join(SEARCH_DIR, 'library');
const byLevel = Object.fromEntries(['team', 'private'].map((level) => [level, documents(judgedLibrary, level)]));
const agents = Number(flagReader()('--agents', '10'));
const generated = path.join(ROOT, '.bench-data', `search-libraries-${agents}`);
if (!fs.existsSync(path.join(generated, 'agents'))) generateLibrary(generated, { agents });
const bigDocs = documents(generated, 'team');
const bigQueries = ['sync engine', 'ledgr', 'Project tide 5', 'rollback peer federation', 'qxzvw'];

for (const [name, engine] of Object.entries(ENGINES)) {
  let passed = 0;
  const failedQueries = [];
  for (const query of queries) {
    const docs = byLevel[query.access_level];
    const results = ranked(engine.search(engine.build(docs), query.query), new Map(docs.map((d) => [d.id, d])));
    const top = results.slice(0, query.within);
    const ok =
      (!query.expect_any || query.expect_any.some((e) => top.some((doc) => matches(doc, e)))) &&
      !(query.forbid ?? []).some((f) => results.some((doc) => matches(doc, f)));
    if (ok) passed++;
    else failedQueries.push(query.query);
  }
  let start = performance.now();
  const built = engine.build(bigDocs);
  const buildMs = performance.now() - start;
  const samples = [];
  for (let i = 0; i < 5; i++)
    for (const query of bigQueries) {
      start = performance.now();
      engine.search(built, query);
      samples.push(performance.now() - start);
    }
  samples.sort((a, b) => a - b);
  process.stdout.write(
    `${name.padEnd(11)} judged ${passed}/${queries.length}${failedQueries.length ? ` (missed: ${failedQueries.join(', ')})` : ''}; ` +
      `${agents} generated agents (${bigDocs.length} rows): build ${Math.round(buildMs)} ms, median query ${samples[Math.floor(samples.length / 2)].toFixed(1)} ms\n`,
  );
}
