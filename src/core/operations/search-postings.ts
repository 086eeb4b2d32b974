/**
 * The postings behind the search index, scored as MiniSearch scores them. MiniSearch's radix
 * tree (`minisearch/SearchableMap`) holds the vocabulary and gives the prefix and typo
 * expansions; the postings are held compactly — an `Int32Array` of small integers per word (row
 * id and field packed in one number, a term frequency above one before its entry;
 * search-vocabulary.ts), the rows' field lengths in one typed array — and scored with BM25
 * exactly as MiniSearch 7 computes it (its k, b and d, the field boosts, the prefix and fuzzy
 * weights, the score times the number of query words a row matched) into one array of scores,
 * of which only the best rows are kept (a partial selection) — with one difference: the average
 * field length is the exact mean over the rows holding the field (as Lucene's BM25 reads it), not
 * MiniSearch's running value, which depends on the order rows came in and drifts as they leave
 * (after a manifest was indexed again it could fall below zero and turn a match's score negative).
 *
 * Why not MiniSearch's own scorer: it makes a result object per posting, for every posting of
 * every query word, before any ranking; on libraries whose common words are in a third of the
 * rows that was both the warm search time and the server's memory (bench/README.md, "Search").
 * test/search.postings.test.ts checks on random libraries the same rows and scores as MiniSearch's
 * (given that mean), and an index after changes against a fresh one.
 */
import {
  ABSENT,
  bitCount,
  best,
  bm25,
  countFields,
  distinct,
  FIELD_BITS,
  FIELD_MASK,
  MAX_ROWS,
  scorePosting,
  gather,
  impactsOf,
  KeptImpacts,
  type Derived,
  type GroupMatch,
  type Posting,
  type PostingHit,
  type PostingSearch,
  type Ranked,
  type ScoreState,
  type TermQuery,
} from './search-scoring.js';
import { frequencies, Vocabulary } from './search-vocabulary.js';
/** A field the row lacks, while lengths take 16 bits (ABSENT once they take 32). */
const NARROW_ABSENT = 0xffff;

export class Postings {
  private readonly vocabulary = new Vocabulary();
  private readonly fieldCount: number;
  private readonly boosts: Float64Array;
  /** Each field's mean length (unique words) over the rows holding it, from an exact sum and count. */
  private readonly average: Float64Array;
  private readonly lengthSums = new Float64Array(FIELD_MASK + 1);
  private readonly holding = new Float64Array(FIELD_MASK + 1);
  /** Each row's field lengths (unique words), field after field, 16 bits each until a field needs 32. */
  private lengths: Uint16Array | Uint32Array = new Uint16Array(0);
  private absent = NARROW_ABSENT;
  private scores = new Float64Array(0);
  private quality = new Uint16Array(0);
  private stamp = new Uint32Array(0);
  /** Stamps below this are earlier searches' (ScoreState.stamp): the next search's first. */
  private base = 1;
  /** By row: a row taken out (remove), or 1 + its place among the best (details); else 0. */
  private mark = new Uint32Array(0);
  /** By row: which query words (bits) it matched, during a search. */
  private mask = new Uint32Array(0);
  private touched = new Uint32Array(0);
  /** A function's row weights, asked once a row per search (weightTable). */
  private asked = new Float32Array(0);
  /** By place among a query's matches: its score, when `best` selects over all of them (it reorders them). */
  private values = new Float64Array(0);
  private capacity = 0;
  private nextId = 0;
  /** Changes with every row added or taken out: what `cache` and `norms` were computed for. */
  private version = 0;
  /** Each word's inverse document frequency by field, as of `version` (a word's postings are read once). */
  private readonly cache = new WeakMap<Posting, { version: number; idf: Float64Array; ordered: boolean }>();
  /** The searched words' BM25 by entry (impacts). */
  private readonly kept = new KeptImpacts();
  /** The longest each field has been (in unique words), for `norms`. */
  private readonly longest: Uint32Array;
  /**
   * As of `version`, by field and length: the part of BM25 a word's single occurrence gives in a
   * field of that length (MiniSearch's expression with a term frequency of 1, computed alike).
   */
  private norms = { version: -1, offsets: new Uint32Array(0), values: new Float64Array(0) };
  private readonly free: number[] = [];
  documentCount = 0;

  constructor(
    readonly fields: readonly string[],
    boosts: readonly number[],
    /** Splits a field's text into words (MiniSearch's `tokenize`). */
    private readonly tokenize: (text: string) => string[],
    /** A word as indexed, or null to leave it out (MiniSearch's `processTerm`). */
    private readonly processTerm: (word: string) => string | null,
  ) {
    if (fields.length > FIELD_MASK + 1) throw new Error(`at most ${FIELD_MASK + 1} fields`);
    this.fieldCount = fields.length;
    this.boosts = Float64Array.from(boosts);
    this.average = new Float64Array(fields.length);
    this.longest = new Uint32Array(fields.length);
  }

  /** Indexes one row (its fields' texts by field id; undefined: the row has no such field) and returns its id. */
  add(values: readonly (string | undefined)[]): number {
    const id = this.free.pop() ?? this.nextId++;
    if (id >= MAX_ROWS) throw new Error('search index full');
    if (id >= this.capacity) this.resize(Math.max(id + 1, this.capacity * 2, 1024));
    this.version += 1;
    this.documentCount += 1;
    for (let field = 0; field < this.fieldCount; field++) {
      const text = values[field];
      const at = field * this.capacity + id;
      if (text === undefined) {
        this.lengths[at] = this.absent;
        continue;
      }
      const tokens = this.tokenize(text);
      const length = distinct(tokens);
      if (length >= this.absent) this.widen();
      this.lengths[at] = length;
      if (length > this.longest[field]!) this.longest[field] = length;
      this.countLength(field, length, 1);
      const entry = id * (FIELD_MASK + 1) + field;
      for (const [term, tf] of frequencies(tokens, this.processTerm)) this.vocabulary.append(term, tf, entry);
    }
    return id;
  }

  /**
   * Takes rows out (each with the texts it was added with, which name the words to clean), in
   * the order given, their lengths out of the fields' means.
   */
  remove(rows: readonly { id: number; values: readonly (string | undefined)[] }[]): void {
    if (!rows.length) return;
    this.version += 1;
    const dead = this.scratch().mark;
    const words = new Set<string>();
    for (const { id, values } of rows) {
      for (let field = 0; field < this.fieldCount; field++) {
        const length = this.lengths[field * this.capacity + id]!;
        if (length === this.absent) continue;
        this.countLength(field, length, -1);
        for (const token of this.tokenize(values[field] ?? '')) {
          const term = this.processTerm(token);
          if (term !== null) words.add(term);
        }
      }
      this.documentCount -= 1;
      dead[id] = 1;
    }
    this.vocabulary.drop(words, dead);
    for (const { id } of rows) {
      dead[id] = 0;
      for (let field = 0; field < this.fieldCount; field++) this.lengths[field * this.capacity + id] = this.absent;
      this.free.push(id);
    }
  }

  /** A row's field length in (1) or out (-1) of the mean: an index that saw changes scores as a fresh one. */
  private countLength(field: number, length: number, sign: 1 | -1): void {
    const sum = (this.lengthSums[field] = this.lengthSums[field]! + sign * length);
    const holding = (this.holding[field] = this.holding[field]! + sign);
    this.average[field] = holding > 0 ? sum / holding : 0;
  }

  /** Whether some indexed word is `word` or begins with it. */
  knows(word: string): boolean {
    return this.vocabulary.knows(word);
  }

  /** Packs the entries added since the last pack (search-vocabulary.ts); every search does first. */
  pack(): void {
    this.vocabulary.pack();
  }

  /** Ids stay below this (the size of the arrays by row). */
  get rows(): number {
    return this.capacity;
  }

  /** How many distinct words are indexed. */
  get size(): number {
    return this.vocabulary.size;
  }

  /**
   * The best `limit` rows for the query words (combined with OR, as MiniSearch combines them),
   * best first (equal scores: the lower id first), and how many rows matched in all.
   */
  search(queries: readonly TermQuery[], options: PostingSearch): { hits: PostingHit[]; total: number } {
    const ranked = this.rank(queries, options);
    return { hits: this.details(ranked.ids, ranked), total: ranked.total };
  }

  /**
   * The best `limit` rows for the query words, best first, as `search` ranks them, without what
   * each matched (`details` gives that for the rows asked, typically only those a page shows).
   * `word` numbers the query word a query term stands for (0–31; a swapped form and the word it
   * was made from share one): `words` counts the distinct ones each row matched. `ordered:
   * false` gives the same rows in no particular order (a caller that orders only what it shows).
   */
  rank(
    queries: readonly TermQuery[],
    options: PostingSearch & { word?: (term: string) => number; ordered?: boolean },
  ): Ranked {
    // Each loop over the matches is a function of its own (search-scoring.ts says why).
    const limit = Math.max(0, options.limit);
    this.vocabulary.pack();
    this.scratch();
    const sources = this.vocabulary.expand(queries, options.weights);
    const table = this.weightTable(options.boost, sources);
    const count = this.scoreAll(sources, table, options.word);
    const kept = Math.min(count, limit);
    const ids = best(this.touched, count, this.scores, this.quality, this.values, kept, options.ordered ?? true);
    const ranked: Ranked = {
      ids,
      scores: new Float64Array(ids.length),
      words: new Uint8Array(ids.length),
      total: count,
      sources,
    };
    for (let at = 0; at < ids.length; at++) {
      ranked.scores[at] = this.scores[ids[at]!]!;
      ranked.words[at] = bitCount(this.mask[ids[at]!]!);
    }
    return ranked;
  }

  /**
   * Scores every row the query's words are in (BM25 summed over the words; `best` multiplies it
   * by how many of them the row matched), listing them in `touched`; returns how many.
   */
  private scoreAll(
    sources: ReadonlyMap<string, readonly Derived[]>,
    table: ArrayLike<number>,
    word: ((term: string) => number) | undefined,
  ): number {
    // This search's stamps are base + 1 to base + the number of words; the next begins above them.
    if (this.base + sources.size + 1 >= 0xffffffff) {
      this.stamp.fill(0);
      this.base = 1;
    }
    const state: ScoreState = {
      scores: this.scores,
      quality: this.quality,
      stamp: this.stamp,
      base: this.base,
      mask: this.mask,
      touched: this.touched,
      table,
    };
    let count = 0;
    let k = 0;
    const fieldWeight = new Float64Array(this.fieldCount);
    for (const [source, derived] of sources) {
      k += 1;
      const bit = 1 << ((word ? word(source) : k - 1) & 31);
      for (const { weight, posting } of derived) {
        for (let field = 0; field < this.fieldCount; field++) fieldWeight[field] = weight * this.boosts[field]!;
        count = scorePosting(state, posting, this.impacts(posting), fieldWeight, k, bit, count);
      }
    }
    this.base += k + 1;
    return count;
  }

  /** A word's BM25 by entry (impactsOf), computed once a change of the rows (KeptImpacts). */
  private impacts(posting: Posting): Float64Array {
    return this.kept.get(posting, this.version, () => {
      const { offsets, values: norms } = this.lengthNorms();
      const { lengths, capacity: stride, average } = this;
      return impactsOf(posting, this.known(posting).idf, { lengths, stride, average, offsets, norms });
    });
  }

  /** A word's idf (above) and whether its entries are ordered (countFields), once a change of the rows. */
  private known(posting: Posting): { version: number; idf: Float64Array; ordered: boolean } {
    const known = this.cache.get(posting);
    if (known && known.version === this.version) return known;
    const { counts: idf, ordered } = countFields(posting, this.fieldCount);
    const n = this.documentCount;
    for (let field = 0; field < this.fieldCount; field++) {
      const m = idf[field]!;
      idf[field] = Math.log(1 + (n - m + 0.5) / (m + 0.5));
    }
    const fresh = { version: this.version, idf, ordered };
    this.cache.set(posting, fresh);
    return fresh;
  }

  /** The length norms of the current average field lengths (see `norms`). */
  private lengthNorms(): Postings['norms'] {
    if (this.norms.version === this.version) return this.norms;
    const offsets = new Uint32Array(this.fieldCount);
    let size = 0;
    for (let field = 0; field < this.fieldCount; field++) {
      offsets[field] = size;
      size += this.longest[field]! + 1;
    }
    const values = new Float64Array(size);
    for (let field = 0; field < this.fieldCount; field++)
      for (let length = 0; length <= this.longest[field]!; length++)
        values[offsets[field]! + length] = bm25(1, length, this.average[field]!);
    this.norms = { version: this.version, offsets, values };
    return this.norms;
  }

  /**
   * The row weights as an array by id: the caller's own, or a function's answers for the rows
   * the query's words are in (asked once a row), so that the scoring loop reads an array.
   */
  private weightTable(boost: PostingSearch['boost'], sources: Map<string, Derived[]>): ArrayLike<number> {
    if (typeof boost !== 'function') return boost;
    // Made at the first filtered search (most searches pass an array), then kept at capacity.
    if (this.asked.length !== this.capacity) this.asked = new Float32Array(this.capacity);
    const table = this.asked;
    table.fill(NaN);
    for (const derived of sources.values())
      for (const { posting } of derived)
        for (const value of posting) {
          if (value < 0) continue;
          const id = value >> FIELD_BITS;
          if (Number.isNaN(table[id])) table[id] = boost(id);
        }
    return table;
  }

  /**
   * What the rows `ids` (of `ranked`, which scored them) matched: which query words and which
   * indexed words in which fields. Asked for the rows an answer shows, it reads each matched
   * word's postings once.
   */
  details(ids: readonly number[], ranked: Ranked): PostingHit[] {
    const hits = ids.map((id): PostingHit => ({ id, score: 0, queryTerms: [], match: {} }));
    const { mark } = this.scratch();
    hits.forEach((hit, at) => (mark[hit.id] = at + 1));
    // Each asked row's score, by its place among the ranked rows (found with the marks).
    for (let place = 0; place < ranked.ids.length; place++) {
      const at = mark[ranked.ids[place]!]!;
      if (at) hits[at - 1]!.score = ranked.scores[place]!;
    }
    this.gather(ids, ranked, (at, source, term, field) => {
      const hit = hits[at]!;
      if (hit.queryTerms[hit.queryTerms.length - 1] !== source && !hit.queryTerms.includes(source))
        hit.queryTerms.push(source);
      const fields = Object.hasOwn(hit.match, term) ? hit.match[term]! : (hit.match[term] = []);
      if (!fields.includes(field)) fields.push(field);
    });
    return hits;
  }

  /**
   * What each group of rows (of `ranked`) matched together: the indexed words and the fields
   * they are in — what an answer shows of a group, without a record per row.
   */
  groupMatches(groups: readonly (readonly number[])[], ranked: Ranked): GroupMatch[] {
    const matches = groups.map((): GroupMatch => ({ terms: new Set(), fields: new Set() }));
    const { mark } = this.scratch();
    groups.forEach((ids, at) => ids.forEach((id) => (mark[id] = at + 1)));
    this.gather(groups.flat(), ranked, (at, _source, term, field) => {
      matches[at]!.terms.add(term);
      matches[at]!.fields.add(field);
    });
    return matches;
  }

  /**
   * Finds `rows` (marked with 1 + their target's place) in the query's postings (search-scoring
   * `gather`), the marks cleared after.
   */
  private gather(
    rows: readonly number[],
    ranked: Ranked,
    found: (target: number, source: string, term: string, field: string) => void,
  ): void {
    const { mark } = this;
    gather(
      rows,
      mark,
      ranked.sources,
      (posting) => this.known(posting).ordered,
      (at, source, term, entry) => found(at, source, term, this.fields[entry & FIELD_MASK]!),
    );
    for (const id of rows) mark[id] = 0;
  }

  /**
   * Cuts the arrays by row to the rows there are (and a sixteenth spare for a changed manifest)
   * when they are much longer, and each word's postings to its entries: the index calls it once a
   * build is in, as doubling them to grow leaves up to half of them unused.
   */
  fit(): void {
    this.vocabulary.trim();
    const target = Math.max(1024, this.nextId + (this.nextId >> 4));
    if (this.capacity > target + (target >> 3)) this.resize(target);
  }

  /** Room for `rows` more rows at once (a build about to add them): the arrays by row not doubled into it. */
  reserve(rows: number): void {
    const size = Math.max(1024, this.nextId + rows - this.free.length);
    if (size > this.capacity) this.resize(size);
  }

  /** The lengths' 16 bits widened to 32 (a field of 65,535 words or more). */
  private widen(): void {
    this.lengths = Uint32Array.from(this.lengths, (length) => (length === NARROW_ABSENT ? ABSENT : length));
    this.absent = ABSENT;
  }

  /** The arrays by row made `capacity` long (every id in use is below it), the scratch ones cleared. */
  private resize(capacity: number): void {
    const kept = Math.min(capacity, this.capacity);
    // Field by field (a word's postings are mostly in one field: its rows' lengths lie together).
    const lengths = (
      this.absent === ABSENT ? new Uint32Array(capacity * this.fieldCount) : new Uint16Array(capacity * this.fieldCount)
    ).fill(this.absent);
    for (let field = 0; field < this.fieldCount; field++)
      lengths.set(this.lengths.subarray(field * this.capacity, field * this.capacity + kept), field * capacity);
    this.lengths = lengths;
    this.capacity = capacity;
  }

  /**
   * The scratch arrays by row (a search's scores and marks), made at the first search or removal
   * after the rows' capacity changed and kept for every search after: a build that grows the
   * capacity many times does not make them each time.
   */
  private scratch(): this {
    const capacity = this.capacity;
    if (this.scores.length === capacity) return this;
    this.scores = new Float64Array(capacity);
    this.quality = new Uint16Array(capacity);
    this.stamp = new Uint32Array(capacity);
    this.mark = new Uint32Array(capacity);
    this.mask = new Uint32Array(capacity);
    this.touched = new Uint32Array(capacity);
    this.values = new Float64Array(capacity);
    return this;
  }
}
