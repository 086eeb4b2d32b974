/**
 * The search index's own scorer against MiniSearch, the library it replaces for scoring: on
 * random small libraries (words that share prefixes and lie one or two edits apart, empty and
 * missing fields, rows weighted down or left out, rows taken out and their ids reused), the
 * postings rank the same rows with the same scores (within float rounding) as MiniSearch 7 with
 * the same fields, boosts, tokenizer, BM25 and prefix and fuzzy weights, matched by the same
 * query words through the same indexed words. Why a scorer of our own: bench/README.md, "Search".
 */
import fc from 'fast-check';
import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { FIELD_BOOSTS, INDEX_WORDS } from '../src/core/operations/search-index.js';
import { splitWords } from '../src/core/operations/search-words.js';
import { Postings } from '../src/core/operations/search-postings.js';
import {
  best,
  countFields,
  gather,
  estimate,
  KeptImpacts,
  kthLargest,
  type TermQuery,
} from '../src/core/operations/search-scoring.js';

const FIELDS = INDEX_WORDS.fields;
const WEIGHTS = { fuzzy: 0.45, prefix: 0.5 };
const VOCABULARY = [
  'meridian',
  'meridan',
  'route',
  'router',
  'routes',
  'rout',
  'solver',
  'slover',
  'café',
  'Cafe',
  'van',
  'vans',
  'sync',
  'synch',
  'engine',
  'engines',
  'a',
  'x',
];

const word = fc.constantFrom(...VOCABULARY);
const separator = fc.constantFrom(' ', '\n', ', ', '. ', '-', ' — ');
const text = fc
  .tuple(fc.array(fc.tuple(word, separator), { maxLength: 6 }), fc.constantFrom('', '.', '!'))
  .map(([parts, end]) => parts.map(([w, sep]) => w + sep).join('') + end);
/** A row: each field's text, or undefined when its kind has no such field. */
const row = fc.record({
  values: fc.array(fc.option(text, { nil: undefined }), { minLength: FIELDS.length, maxLength: FIELDS.length }),
  boost: fc.constantFrom(1, 1, 1, 0.25, 0),
});
const query = fc.record({
  term: fc.oneof(
    word.map((w) => INDEX_WORDS.processTerm(w)!),
    fc.constantFrom('mer', 'ro', 'sylver', 'qz', 'enigne'),
  ),
  fuzzy: fc.constantFrom(0, 0, 1, 2),
  prefix: fc.boolean(),
});

/** A step of an index's life: rows added, rows (by place among the live ones) taken out, a search or not. */
const step = fc.record({
  add: fc.array(row, { maxLength: 4 }),
  drop: fc.array(fc.nat(), { maxLength: 3 }),
  search: fc.boolean(),
});

type Row = { values: (string | undefined)[]; boost: number };

/** Postings as the search index makes them. */
function postings(): Postings {
  return new Postings(
    FIELDS,
    FIELDS.map((field) => FIELD_BOOSTS[field]),
    INDEX_WORDS.tokenize,
    INDEX_WORDS.processTerm,
  );
}

const OPTIONS = {
  fields: [...FIELDS],
  idField: 'id',
  tokenize: INDEX_WORDS.tokenize,
  processTerm: INDEX_WORDS.processTerm,
  searchOptions: { processTerm: (term: string) => term },
  autoVacuum: false,
};

function miniSearch(): MiniSearch {
  return new MiniSearch(OPTIONS);
}

/**
 * The same index with each field's average length the exact mean over the documents holding it,
 * the one value ours reads differently (MiniSearch's running value depends on the order documents
 * came in and drifts as they leave): set through MiniSearch's own saved form.
 */
function withExactMeans(reference: MiniSearch): MiniSearch {
  const saved = reference.toJSON();
  const sums = saved.averageFieldLength.map(() => 0);
  const holding = sums.map(() => 0);
  // A field a document lacks is a hole in its lengths (null once saved).
  for (const lengths of Object.values(saved.fieldLength))
    lengths.forEach((length: number | null, field) => {
      if (length === null) return;
      sums[field]! += length;
      holding[field]! += 1;
    });
  saved.averageFieldLength = sums.map((sum, field) => (holding[field] ? sum / holding[field] : 0));
  return MiniSearch.loadJSON(JSON.stringify(saved), OPTIONS);
}

const document = (id: number, values: (string | undefined)[]) => {
  const doc: Record<string, unknown> = { id };
  FIELDS.forEach((field, i) => {
    if (values[i] !== undefined) doc[field] = values[i];
  });
  return doc;
};

/** The index as the search index builds it: `kept` added, `gone` added then taken out, then `late` added. */
async function both(kept: Row[], gone: Row[], late: Row[]) {
  const ours = postings();
  const reference = miniSearch();
  // Our id → the row's number in the reference, and each row's weight.
  const byOurs = new Map<number, number>();
  const boosts = new Map<number, number>();
  let next = 1;
  const add = (rows: Row[]) =>
    rows.map((entry) => {
      const id = ours.add(entry.values);
      const theirs = next++;
      reference.add(document(theirs, entry.values));
      byOurs.set(id, theirs);
      boosts.set(theirs, entry.boost);
      return { id, theirs, values: entry.values };
    });
  add(kept);
  const removed = add(gone);
  ours.remove(removed);
  reference.discardAll(removed.map((entry) => entry.theirs));
  await reference.vacuum();
  for (const entry of removed) byOurs.delete(entry.id);
  add(late);
  return { ours, reference, byOurs, boosts };
}

describe('the search postings', () => {
  it('score every row as MiniSearch does, and keep the best ones', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { minLength: 1, maxLength: 12 }),
        fc.array(row, { maxLength: 5 }),
        fc.array(row, { maxLength: 5 }),
        fc.array(query, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 8 }),
        async (kept, gone, late, queries: TermQuery[], limit) => {
          const { ours, reference, byOurs, boosts } = await both(kept, gone, late);
          const expected = withExactMeans(reference).search(
            {
              combineWith: 'OR',
              queries: queries.map((q) => ({ queries: [q.term], fuzzy: q.fuzzy, prefix: q.prefix })),
            },
            { boost: { ...FIELD_BOOSTS }, weights: WEIGHTS, boostDocument: (id) => boosts.get(id as number)! },
          );
          const boost = (id: number) => boosts.get(byOurs.get(id)!)!;
          const all = ours.search(queries, { weights: WEIGHTS, boost, limit: 1_000 });
          // The weights given as an array by row id (what search_memory passes): the same answer.
          const table = new Float32Array(ours.rows);
          for (const id of byOurs.keys()) table[id] = boost(id);
          expect(ours.search(queries, { weights: WEIGHTS, boost: table, limit: 1_000 })).toEqual(all);
          expect(all.total).toBe(expected.length);
          expect(all.hits).toHaveLength(expected.length);
          const theirs = new Map(expected.map((hit) => [hit.id as number, hit]));
          for (const hit of all.hits) {
            const match = theirs.get(byOurs.get(hit.id)!);
            expect(match).toBeDefined();
            expect(hit.score).toBeCloseTo(match!.score, 9);
            expect(new Set(hit.queryTerms)).toEqual(new Set(match!.queryTerms));
            expect(new Set(Object.keys(hit.match))).toEqual(new Set(match!.terms));
          }
          // The best `limit`, best first: the same scores as MiniSearch's first `limit`.
          const best = ours.search(queries, { weights: WEIGHTS, boost, limit });
          expect(best.total).toBe(expected.length);
          const scores = best.hits.map((hit) => hit.score);
          expect(scores).toEqual([...scores].sort((a, b) => b - a));
          expected.slice(0, limit).forEach((hit, i) => expect(scores[i]).toBeCloseTo(hit.score, 9));
          // The cut keeps the rows the whole ranking has first (among equal scores, the lower ids).
          expect(best.hits.map((hit) => hit.id)).toEqual(all.hits.slice(0, limit).map((hit) => hit.id));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('answer as MiniSearch when rows come and go between searches (the packed postings)', async () => {
    // The entries a batch adds are packed by the next search (or a removal): added after a
    // search, taken out before one, ids reused — every answer the same as MiniSearch's.
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 6 }),
        fc.array(query, { minLength: 1, maxLength: 3 }),
        async (steps, queries: TermQuery[]) => {
          const ours = postings();
          const reference = miniSearch();
          const live = new Map<number, { theirs: number; values: (string | undefined)[] }>();
          let next = 1;
          const compare = () => {
            const expected = withExactMeans(reference).search(
              {
                combineWith: 'OR',
                queries: queries.map((q) => ({ queries: [q.term], fuzzy: q.fuzzy, prefix: q.prefix })),
              },
              { boost: { ...FIELD_BOOSTS }, weights: WEIGHTS },
            );
            const { hits, total } = ours.search(queries, { weights: WEIGHTS, boost: () => 1, limit: 1_000 });
            expect(total).toBe(expected.length);
            const theirs = new Map(expected.map((hit) => [hit.id as number, hit]));
            for (const hit of hits) {
              const match = theirs.get(live.get(hit.id)!.theirs);
              expect(match).toBeDefined();
              expect(hit.score).toBeCloseTo(match!.score, 9);
              expect(new Set(Object.keys(hit.match))).toEqual(new Set(match!.terms));
            }
          };
          for (const { add, drop, search } of steps) {
            for (const entry of add) {
              const theirs = next++;
              live.set(ours.add(entry.values), { theirs, values: entry.values });
              reference.add(document(theirs, entry.values));
            }
            const ids = [...live.keys()];
            const gone = [...new Set(drop.filter(() => ids.length > 0).map((n) => ids[n % ids.length]!))];
            if (gone.length) {
              ours.remove(gone.map((id) => ({ id, values: live.get(id)!.values })));
              reference.discardAll(gone.map((id) => live.get(id)!.theirs));
              await reference.vacuum();
              for (const id of gone) live.delete(id);
            }
            if (search) compare();
          }
          compare();
        },
      ),
      { numRuns: 200 },
    );
  });

  it('score after rows came and went as an index built afresh from the rows left, never below zero', () => {
    // What a server that indexed changed manifests again must answer: what a fresh one answers.
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 1, maxLength: 8 }),
        fc.array(query, { minLength: 1, maxLength: 3 }),
        (steps, queries: TermQuery[]) => {
          const ours = postings();
          const live = new Map<number, (string | undefined)[]>();
          for (const { add, drop } of steps) {
            for (const entry of add) live.set(ours.add(entry.values), entry.values);
            const ids = [...live.keys()];
            const gone = [...new Set(drop.filter(() => ids.length > 0).map((n) => ids[n % ids.length]!))];
            ours.remove(gone.map((id) => ({ id, values: live.get(id)! })));
            for (const id of gone) live.delete(id);
          }
          const fresh = postings();
          const oursOf = new Map<number, number>();
          for (const [id, values] of live) oursOf.set(fresh.add(values), id);
          const options = { weights: WEIGHTS, boost: () => 1, limit: 1_000 };
          const expected = fresh.search(queries, options);
          const got = ours.search(queries, options);
          expect(got.total).toBe(expected.total);
          const scores = new Map(expected.hits.map((hit) => [oursOf.get(hit.id)!, hit.score]));
          for (const hit of got.hits) {
            expect(hit.score).toBeGreaterThan(0);
            expect(hit.score).toBeCloseTo(scores.get(hit.id)!, 9);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('score each search afresh, search after search and past the last stamp, with nothing cleared between', () => {
    // A search leaves its scores and marks by row in place; the next tells them stale by their stamp.
    fc.assert(
      fc.property(
        fc.array(row, { minLength: 1, maxLength: 40 }),
        fc.array(fc.array(query, { minLength: 1, maxLength: 3 }), { minLength: 2, maxLength: 6 }),
        (rows, searches: TermQuery[][]) => {
          const ours = postings();
          for (const entry of rows) ours.add(entry.values);
          const boost = (id: number) => rows[id]!.boost;
          const answers = (index: Postings) =>
            searches.map((queries) => index.search(queries, { weights: WEIGHTS, boost, limit: 1_000 }));
          const first = (queries: TermQuery[]) => {
            const fresh = postings();
            for (const entry of rows) fresh.add(entry.values);
            return fresh.search(queries, { weights: WEIGHTS, boost, limit: 1_000 });
          };
          expect(answers(ours)).toEqual(searches.map(first));
          // The stamps are about to run out: the index starts them again.
          ours['base'] = 0xffffffff - 2;
          expect(answers(ours)).toEqual(searches.map(first));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('score as MiniSearch when a field holds 65,535 words or more (lengths widened)', async () => {
    // Lengths take 16 bits until a field needs more; rows added before and after, some fields
    // missing, one row taken out: the same scores either side of the widening.
    const huge = Array.from({ length: 70_000 }, (_, i) => `w${i}`).join(' ') + ' meridian route';
    const values = (first: string | undefined, text?: string) => [
      first,
      ...Array.from({ length: FIELDS.length - 2 }, (_, i) => (i % 3 ? undefined : 'route sync')),
      text,
    ];
    const { ours, reference, byOurs } = await both(
      [{ values: values('Meridian'), boost: 1 }],
      [{ values: values('Router', 'engine'), boost: 1 }],
      [
        { values: values('Café', huge), boost: 1 },
        { values: values(undefined, 'meridian engines'), boost: 1 },
      ],
    );
    for (const term of ['meridian', 'route', 'w69999', 'engine', 'cafe']) {
      const queries = [{ term, fuzzy: 1, prefix: true }];
      const expected = withExactMeans(reference).search(
        { combineWith: 'OR', queries: [{ queries: [term], fuzzy: 1, prefix: true }] },
        { boost: { ...FIELD_BOOSTS }, weights: WEIGHTS },
      );
      const { hits } = ours.search(queries, { weights: WEIGHTS, boost: () => 1, limit: 1_000 });
      expect(hits.map((hit) => byOurs.get(hit.id))).toEqual(expected.map((hit) => hit.id));
      hits.forEach((hit, i) => expect(hit.score).toBeCloseTo(expected[i]!.score, 9));
    }
  });

  it('score as MiniSearch with room reserved, the arrays by row cut to the rows (fit), and grown again', async () => {
    const ours = postings();
    const reference = miniSearch();
    const theirs = new Map<number, number>();
    const rowValues = new Map<number, (string | undefined)[]>();
    const add = (n: number) => {
      const values = FIELDS.map((_, field) =>
        (n + field) % 4 === 0 ? undefined : `${VOCABULARY[(n * 7 + field) % VOCABULARY.length]} ${VOCABULARY[n % 5]}`,
      );
      const id = ours.add(values);
      theirs.set(id, n);
      rowValues.set(id, values);
      reference.add(document(n, values));
    };
    const compare = () => {
      for (const term of ['meridian', 'route', 'sync', 'engine']) {
        const expected = withExactMeans(reference).search(
          { combineWith: 'OR', queries: [{ queries: [term], fuzzy: 1, prefix: true }] },
          { boost: { ...FIELD_BOOSTS }, weights: WEIGHTS },
        );
        const { hits, total } = ours.search([{ term, fuzzy: 1, prefix: true }], {
          weights: WEIGHTS,
          boost: () => 1,
          limit: 5_000,
        });
        expect(total).toBe(expected.length);
        const scores = new Map(expected.map((hit) => [hit.id as number, hit.score]));
        for (const hit of hits) expect(hit.score).toBeCloseTo(scores.get(theirs.get(hit.id)!)!, 9);
      }
    };
    // Room made at once for a build (not doubled into), then cut to the rows.
    ours.reserve(1_500);
    for (let n = 1; n <= 1_100; n++) add(n);
    expect(ours.rows).toBe(1_500);
    ours.fit();
    expect(ours.rows).toBeLessThan(1_200);
    compare();
    const gone = [3, 500, 1_099];
    ours.remove(gone.map((id) => ({ id, values: rowValues.get(id)! })));
    reference.discardAll(gone.map((id) => theirs.get(id)!));
    await reference.vacuum();
    for (let n = 1_101; n <= 1_400; n++) add(n);
    expect(ours.rows).toBeGreaterThan(1_400);
    compare();
  });

  it('knows the words its rows hold, and forgets those of rows taken out', async () => {
    const { ours } = await both(
      [{ values: ['Meridian export', ...Array<undefined>(FIELDS.length - 1)], boost: 1 }],
      [{ values: ['Harbour', ...Array<undefined>(FIELDS.length - 1)], boost: 1 }],
      [],
    );
    expect(ours.knows('meridian')).toBe(true);
    expect(ours.knows('merid')).toBe(true);
    expect(ours.knows('harbour')).toBe(false);
    expect(ours.knows('zz')).toBe(false);
    expect(ours.size).toBe(2);
  });

  it('keeps the best rows, the lower ids among equal scores at the cut, ordered or not', () => {
    fc.assert(
      fc.property(
        // Rows met in any order (the order postings meet them), sums and qualities from a few values (ties).
        fc.uniqueArray(fc.integer({ min: 0, max: 300 }), { minLength: 1, maxLength: 120 }),
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 301, maxLength: 301 }),
        fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 301, maxLength: 301 }),
        fc.integer({ min: 0, max: 130 }),
        fc.boolean(),
        (ids, levels, qualities, k, ordered) => {
          const sums = Float64Array.from(levels, (level) => level / 3);
          const quality = Uint16Array.from(qualities);
          const final = (id: number) => sums[id]! * quality[id]!;
          const scores = Float64Array.from(sums);
          const kept = Math.min(k, ids.length);
          const expected = [...ids].sort((a, b) => final(b) - final(a) || a - b).slice(0, kept);
          const got = best(Uint32Array.from(ids), ids.length, scores, quality, new Float64Array(301), kept, ordered);
          expect(ordered ? got : [...got].sort((a, b) => final(b) - final(a) || a - b)).toEqual(expected);
          // Every kept row's score is its final one (details and the page read them).
          for (const id of got) expect(scores[id]).toBe(final(id));
        },
      ),
    );
  });

  // Many matches (thousands, as a common word has): the k-th best is found among the rows a
  // sample says should reach it; ties, runs of equal values, values in order and the fallbacks
  // (too few reached, too many to hold) all give the sorted answer.
  it('keeps the best of thousands of rows through a sampled estimate, exactly', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2048, max: 20_000 }),
        fc.integer({ min: 1, max: 1_100 }),
        fc.constantFrom('random', 'few', 'ascending', 'descending', 'equal'),
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.boolean(),
        (n, k, shape, seed, shuffled) => {
          let state = seed;
          const next = () => (state = (state * 48271) % 2147483647) / 2147483647;
          const sums = new Float64Array(n);
          for (let id = 0; id < n; id++)
            sums[id] =
              shape === 'random'
                ? next() * 100
                : shape === 'few'
                  ? Math.floor(next() * 5)
                  : shape === 'ascending'
                    ? id / 7
                    : shape === 'descending'
                      ? (n - id) / 7
                      : 1;
          const quality = Uint16Array.from({ length: n }, () => 1 + Math.floor(next() * 3));
          const final = Float64Array.from(sums, (sum, id) => sum * quality[id]!);
          // Rows met in id order, or in an order of their own (postings of several words).
          const touched = Uint32Array.from({ length: n }, (_, i) => i);
          if (shuffled)
            for (let i = n - 1; i > 0; i--) {
              const j = Math.floor(next() * (i + 1));
              [touched[i], touched[j]] = [touched[j]!, touched[i]!];
            }
          const kept = Math.min(k, n);
          // The estimate is a score at most the kept-th best's when it is one (else the selection runs over all).
          const guess = estimate(touched, n, Float64Array.from(sums), quality, kept);
          if (!Number.isNaN(guess)) expect(final).toContain(guess);
          const expected = Array.from({ length: n }, (_, id) => id)
            .sort((a, b) => final[b]! - final[a]! || a - b)
            .slice(0, kept);
          const scores = Float64Array.from(sums);
          expect(best(touched, n, scores, quality, new Float64Array(n), kept, true)).toEqual(expected);
          // A kept row's score is its final one; another's is its sum or its final one (never twice multiplied).
          expect(expected.map((id) => scores[id])).toEqual(expected.map((id) => final[id]));
          const twice = Array.from(scores).findIndex((score, id) => score !== sums[id] && score !== final[id]);
          expect(twice).toBe(-1);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("keeps a searched word's scores by entry until the rows change, and within a bound", () => {
    const kept = new KeptImpacts();
    let computed = 0;
    const get = (posting: Int32Array, version: number) =>
      kept.get(posting, version, () => {
        computed += 1;
        return new Float64Array(posting.length);
      });
    const word = new Int32Array(10);
    const first = get(word, 1);
    expect(get(word, 1)).toBe(first);
    expect(computed).toBe(1);
    // A change of the rows (a new version) forgets it.
    expect(get(word, 2)).not.toBe(first);
    expect(computed).toBe(2);
    // Past 2^20 entries in all, everything kept is forgotten at once (no list of uses to keep).
    const common = new Int32Array(2 ** 20);
    get(common, 2);
    get(word, 2);
    expect(computed).toBe(4);
    get(word, 2);
    expect(computed).toBe(4);
  });

  it('finds the k-th best score of many without sorting them all', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 1, maxLength: 200 }),
        fc.integer({ min: 1, max: 200 }),
        (numbers, k) => {
          const kept = Math.min(k, numbers.length);
          const values = Float64Array.from(numbers);
          expect(kthLargest(values, numbers.length, kept)).toBe([...numbers].sort((a, b) => b - a)[kept - 1]);
        },
      ),
    );
  });

  it('split words as the Unicode expression MiniSearch splits on does, ASCII or not', () => {
    const asMiniSearch = /[\n\r\p{Z}\p{P}]+/u;
    const pieces = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 8 }),
      // Breaks past ASCII (a no-break space, dashes, the snippet's ' · ', an ellipsis), a letter, and
      // a break beyond the first 65,536 characters (U+10100, a surrogate pair).
      fc.constantFrom(
        ' ',
        '\t',
        '\n',
        '.',
        '-',
        '_',
        '$',
        '+',
        '/',
        'é',
        '\u00a0',
        '—',
        '·',
        '…',
        '\u{10100}',
        'Route',
        'x',
      ),
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 10 }), (parts) => {
        const text = parts.join('');
        expect(splitWords(text)).toEqual(text.split(asMiniSearch));
      }),
      { numRuns: 500 },
    );
  });

  // What the page's few rows matched is found by a binary search in a long posting whose entries
  // are ordered (a fresh build's), and by reading the posting through otherwise: both must give
  // each row the same words and fields in the same order, and a posting whose order a reused id
  // broke must be read through.
  it("finds a few rows' matches by a binary search exactly as by reading the postings through", () => {
    const row = fc.record({
      fields: fc.uniqueArray(fc.integer({ min: 0, max: FIELDS.length - 1 }), { minLength: 1, maxLength: 3 }),
      tf: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 3, maxLength: 3 }),
    });
    const posting = fc
      .tuple(
        fc.uniqueArray(fc.integer({ min: 0, max: 3000 }), { minLength: 0, maxLength: 400 }),
        fc.array(row, { minLength: 400, maxLength: 400 }),
        fc.option(fc.tuple(fc.nat(), fc.nat()), { nil: undefined }),
      )
      .map(([ids, rows, swap]) => {
        const sorted = [...ids].sort((a, b) => a - b);
        // A reused id out of place: two rows swapped.
        if (swap && sorted.length > 1) {
          const [i, j] = [swap[0] % sorted.length, swap[1] % sorted.length];
          [sorted[i], sorted[j]] = [sorted[j]!, sorted[i]!];
        }
        const values: number[] = [];
        sorted.forEach((id, at) => {
          const { fields, tf } = rows[at]!;
          [...fields]
            .sort((a, b) => a - b)
            .forEach((field, k) => {
              if (tf[k]! > 1) values.push(-tf[k]!);
              values.push(id * 16 + field);
            });
        });
        return { ids: sorted, posting: Int32Array.from(values) };
      });
    fc.assert(
      fc.property(
        fc.array(posting, { minLength: 1, maxLength: 4 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 3000 }), { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 3 }),
        (postings, asked, picks) => {
          // The asked rows: some the postings hold, some not.
          const all = postings.flatMap((p) => p.ids);
          const ids = [
            ...new Set([...asked, ...picks.flatMap((pick) => (all.length ? [all[pick % all.length]!] : []))]),
          ];
          const sources = new Map(
            postings.map((p, i) => [`q${i % 2}`, [{ term: `w${i}`, weight: 1, posting: p.posting }]] as const),
          );
          const run = (ordered: (posting: Int32Array) => boolean) => {
            const found: [number, string, string, number][] = [];
            const mark = new Uint32Array(3001);
            ids.forEach((id, at) => (mark[id] = at + 1));
            gather(ids, mark, sources, ordered, (at, source, term, entry) => found.push([at, source, term, entry]));
            // Each row's entries, in the order met (rows asked one by one or read through).
            return ids.map((_, at) => found.filter(([target]) => target === at));
          };
          for (const p of postings) {
            const values = [...p.posting].filter((value) => value >= 0);
            expect(countFields(p.posting, FIELDS.length).ordered).toBe(
              values.every((v, i) => i === 0 || v > values[i - 1]!),
            );
          }
          expect(run((posting) => countFields(posting, FIELDS.length).ordered)).toEqual(run(() => false));
        },
      ),
      { numRuns: 200 },
    );
  });
});
