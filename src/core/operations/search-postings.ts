/**
 * The postings behind the search index, scored as MiniSearch scores them. MiniSearch's radix
 * tree (`minisearch/SearchableMap`) holds the vocabulary and gives the prefix and typo
 * expansions; the postings are held here compactly — one array of small integers per word
 * (row id and field packed in one number, a term frequency above one written before its entry),
 * each row's field lengths in one typed array — and a query's words are scored with BM25
 * exactly as MiniSearch 7 computes it (its k, b and d, the field boosts, the prefix and fuzzy
 * weights, the running average field length, the score times the number of query words a row
 * matched) into one array of scores, of which only the best rows are kept (a partial selection).
 *
 * Why not MiniSearch's own scorer: it makes a result object per posting, for every posting of
 * every query word, before any ranking; on libraries whose common words are in a third of the
 * rows that was both the warm search time and the server's memory (bench/README.md, "Search").
 * test/search.postings.test.ts checks, on random libraries, that this scorer ranks the same rows
 * with the same scores as MiniSearch with the same options.
 */
import SearchableMap from 'minisearch/SearchableMap';

/** MiniSearch's BM25 parameters (its defaults). */
const K = 1.2;
const B = 0.7;
const D = 0.5;
/** A field the row does not have (not an empty one: that has length 0). */
const ABSENT = 0xffffffff;
/** Field ids take the low four bits of an entry. */
const FIELD_BITS = 4;
const FIELD_MASK = (1 << FIELD_BITS) - 1;
/** Row ids stay below this, so that an entry (id and field) is a small integer. */
const MAX_ROWS = 2 ** (31 - FIELD_BITS);

/**
 * One word's postings: an entry `id * 16 + field` per row and field holding it, preceded by
 * `-tf` when the word is there more than once.
 */
type Posting = number[];

/** One word of a query: looked up as written, and as a prefix and within `fuzzy` edits when asked. */
export interface TermQuery {
  term: string;
  fuzzy: number;
  prefix: boolean;
}

/** A row the query matched: its score, the query words it matched, and which indexed words in which fields. */
export interface PostingHit {
  id: number;
  score: number;
  queryTerms: string[];
  match: Record<string, string[]>;
}

export interface PostingSearch {
  /** Weights of a fuzzy and a prefix match against an exact one. */
  weights: { fuzzy: number; prefix: number };
  /**
   * A row's weight (0: left out, neither scored nor counted): a function, or an array by row id
   * (read per posting without a call).
   */
  boost: ((id: number) => number) | ArrayLike<number>;
  /** The most hits returned, best first. */
  limit: number;
}

interface Derived {
  term: string;
  weight: number;
  posting: Posting;
}

export class Postings {
  private readonly vocabulary = new SearchableMap<Posting>();
  private readonly terms = new Map<string, Posting>();
  private readonly fieldCount: number;
  private readonly boosts: Float64Array;
  /** MiniSearch's running average of each field's length (in unique words), updated as it does. */
  private readonly average: Float64Array;
  private lengths = new Uint32Array(0);
  private scores = new Float64Array(0);
  private quality = new Uint16Array(0);
  private stamp = new Uint16Array(0);
  /** By row: a row taken out (remove), or 1 + its place among the best (details); else 0. */
  private mark = new Uint32Array(0);
  private touched = new Uint32Array(0);
  private capacity = 0;
  private nextId = 0;
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
  }

  /** Indexes one row (its fields' texts by field id; undefined: the row has no such field) and returns its id. */
  add(values: readonly (string | undefined)[]): number {
    const id = this.free.pop() ?? this.nextId++;
    if (id >= MAX_ROWS) throw new Error('search index full');
    this.grow(id + 1);
    this.documentCount += 1;
    const count = this.documentCount - 1;
    for (let field = 0; field < this.fieldCount; field++) {
      const text = values[field];
      const at = id * this.fieldCount + field;
      if (text === undefined) {
        this.lengths[at] = ABSENT;
        continue;
      }
      const tokens = this.tokenize(text);
      const length = distinct(tokens);
      this.lengths[at] = length;
      this.average[field] = (this.average[field]! * count + length) / (count + 1);
      const entry = id * (FIELD_MASK + 1) + field;
      for (const [term, tf] of this.frequencies(tokens)) {
        let posting = this.terms.get(term);
        if (!posting) {
          posting = [];
          this.terms.set(term, posting);
          this.vocabulary.set(term, posting);
        }
        if (tf > 1) posting.push(-tf);
        posting.push(entry);
      }
    }
    return id;
  }

  /**
   * Takes rows out (each with the texts it was added with, which name the words to clean), in
   * the order given, updating the average field lengths as MiniSearch's discard does.
   */
  remove(rows: readonly { id: number; values: readonly (string | undefined)[] }[]): void {
    if (!rows.length) return;
    const dead = this.mark;
    const words = new Set<string>();
    for (const { id, values } of rows) {
      for (let field = 0; field < this.fieldCount; field++) {
        const length = this.lengths[id * this.fieldCount + field]!;
        if (length === ABSENT) continue;
        const count = this.documentCount;
        this.average[field] = count === 1 ? 0 : (this.average[field]! * count - length) / (count - 1);
        for (const token of this.tokenize(values[field] ?? '')) {
          const term = this.processTerm(token);
          if (term !== null) words.add(term);
        }
      }
      this.documentCount -= 1;
      dead[id] = 1;
    }
    for (const word of words) {
      const posting = this.terms.get(word);
      if (!posting) continue;
      let kept = 0;
      for (let read = 0; read < posting.length; read++) {
        const value = posting[read]!;
        const entry = value < 0 ? posting[++read]! : value;
        if (dead[entry >> FIELD_BITS]) continue;
        if (value < 0) posting[kept++] = value;
        posting[kept++] = entry;
      }
      posting.length = kept;
      if (kept === 0) {
        this.terms.delete(word);
        this.vocabulary.delete(word);
      }
    }
    for (const { id } of rows) {
      dead[id] = 0;
      this.lengths.fill(ABSENT, id * this.fieldCount, (id + 1) * this.fieldCount);
      this.free.push(id);
    }
  }

  /** Each indexed word of a field's tokens with how many times it is there (MiniSearch's term frequency). */
  private frequencies(tokens: readonly string[]): Iterable<[string, number]> {
    if (tokens.length > SMALL) {
      const counts = new Map<string, number>();
      for (const token of tokens) {
        const term = this.processTerm(token);
        if (term !== null) counts.set(term, (counts.get(term) ?? 0) + 1);
      }
      return counts;
    }
    const counts: [string, number][] = [];
    for (const token of tokens) {
      const term = this.processTerm(token);
      if (term === null) continue;
      const known = counts.find((pair) => pair[0] === term);
      if (known) known[1] += 1;
      else counts.push([term, 1]);
    }
    return counts;
  }

  /** Whether some indexed word is `word` or begins with it. */
  knows(word: string): boolean {
    if (this.terms.has(word)) return true;
    return !this.vocabulary.atPrefix(word).keys().next().done;
  }

  /** Ids stay below this (the size of the arrays by row). */
  get rows(): number {
    return this.capacity;
  }

  /** How many distinct words are indexed. */
  get size(): number {
    return this.terms.size;
  }

  /**
   * The best `limit` rows for the query words (combined with OR, as MiniSearch combines them),
   * best first (equal scores: the lower id first), and how many rows matched in all.
   */
  search(queries: readonly TermQuery[], options: PostingSearch): { hits: PostingHit[]; total: number } {
    const sources = this.expand(queries, options.weights);
    const { boost } = options;
    let count = 0;
    let k = 0;
    for (const derived of sources.values()) {
      k += 1;
      for (const { weight, posting } of derived) count = this.score(posting, weight, k, boost, count);
    }
    const { scores, quality, touched } = this;
    for (let i = 0; i < count; i++) {
      const id = touched[i]!;
      scores[id] = scores[id]! * quality[id]!;
    }
    const kept = Math.min(count, Math.max(0, options.limit));
    if (count > kept) selectBest(touched, count, kept, scores);
    const best = Array.from(touched.subarray(0, kept)).sort((a, b) => scores[b]! - scores[a]! || a - b);
    const hits = this.details(best, sources);
    for (let i = 0; i < count; i++) {
      const id = touched[i]!;
      scores[id] = 0;
      quality[id] = 0;
      this.stamp[id] = 0;
    }
    return { hits, total: count };
  }

  /** Each query word's indexed words, with the weight MiniSearch gives a prefix or fuzzy match. */
  private expand(queries: readonly TermQuery[], weights: PostingSearch['weights']): Map<string, Derived[]> {
    const sources = new Map<string, Derived[]>();
    for (const query of queries) {
      let derived = sources.get(query.term);
      if (!derived) {
        derived = [];
        sources.set(query.term, derived);
      }
      const exact = this.terms.get(query.term);
      if (exact) derived.push({ term: query.term, weight: 1, posting: exact });
      const fuzzy = query.fuzzy > 0 ? this.vocabulary.fuzzyGet(query.term, query.fuzzy) : null;
      if (query.prefix)
        for (const [term, posting] of this.vocabulary.atPrefix(query.term)) {
          const distance = term.length - query.term.length;
          if (!distance) continue;
          fuzzy?.delete(term);
          derived.push({ term, weight: (weights.prefix * term.length) / (term.length + 0.3 * distance), posting });
        }
      if (fuzzy)
        for (const [term, [posting, distance]] of fuzzy) {
          if (!distance) continue;
          derived.push({ term, weight: (weights.fuzzy * term.length) / (term.length + distance), posting });
        }
    }
    return sources;
  }

  /** Adds one indexed word's BM25 scores into the scores array; `k` numbers the query word. */
  private score(posting: Posting, weight: number, k: number, boost: PostingSearch['boost'], count: number): number {
    const table = typeof boost === 'function' ? null : boost;
    const call = typeof boost === 'function' ? boost : null;
    const fields = this.fieldCount;
    const matching = new Float64Array(fields);
    for (const value of posting) if (value >= 0) matching[value & FIELD_MASK]! += 1;
    const n = this.documentCount;
    for (let field = 0; field < fields; field++) {
      const m = matching[field]!;
      matching[field] = Math.log(1 + (n - m + 0.5) / (m + 0.5));
    }
    const { scores, quality, stamp, touched, lengths, average, boosts } = this;
    for (let read = 0; read < posting.length; read++) {
      let entry = posting[read]!;
      let tf = 1;
      if (entry < 0) {
        tf = -entry;
        entry = posting[++read]!;
      }
      const id = entry >> FIELD_BITS;
      const docBoost = table ? table[id]! : call!(id);
      if (!docBoost) continue;
      const field = entry & FIELD_MASK;
      const length = lengths[id * fields + field]!;
      const raw = matching[field]! * (D + (tf * (K + 1)) / (tf + K * (1 - B + (B * length) / average[field]!)));
      if (stamp[id] !== k) {
        if (quality[id] === 0) touched[count++] = id;
        stamp[id] = k;
        quality[id] = quality[id]! + 1;
      }
      scores[id] = scores[id]! + weight * boosts[field]! * docBoost * raw;
    }
    return count;
  }

  /**
   * The hits for the best rows: which query words and which indexed words in which fields each
   * matched. A row among the best was scored, so its weight is not 0: no need to ask again.
   */
  private details(best: readonly number[], sources: Map<string, Derived[]>): PostingHit[] {
    const hits = best.map((id): PostingHit => ({ id, score: this.scores[id]!, queryTerms: [], match: {} }));
    const { mark } = this;
    hits.forEach((hit, at) => (mark[hit.id] = at + 1));
    for (const [source, derived] of sources)
      for (const { term, posting } of derived)
        for (const value of posting) {
          if (value < 0) continue;
          const id = value >> FIELD_BITS;
          const at = mark[id]!;
          if (!at) continue;
          const hit = hits[at - 1]!;
          if (hit.queryTerms[hit.queryTerms.length - 1] !== source && !hit.queryTerms.includes(source))
            hit.queryTerms.push(source);
          const field = this.fields[value & FIELD_MASK]!;
          const fields = Object.hasOwn(hit.match, term) ? hit.match[term]! : (hit.match[term] = []);
          if (!fields.includes(field)) fields.push(field);
        }
    for (const id of best) mark[id] = 0;
    return hits;
  }

  private grow(size: number): void {
    if (size <= this.capacity) return;
    const capacity = Math.max(size, this.capacity * 2, 1024);
    const lengths = new Uint32Array(capacity * this.fieldCount).fill(ABSENT);
    lengths.set(this.lengths);
    this.lengths = lengths;
    this.scores = new Float64Array(capacity);
    this.quality = new Uint16Array(capacity);
    this.stamp = new Uint16Array(capacity);
    this.mark = new Uint32Array(capacity);
    this.touched = new Uint32Array(capacity);
    this.capacity = capacity;
  }
}

/** Fields of up to this many words are counted without a Set or a Map. */
const SMALL = 16;

/** How many different tokens (MiniSearch's field length). */
function distinct(tokens: readonly string[]): number {
  if (tokens.length > SMALL) return new Set(tokens).size;
  let count = 0;
  for (let i = 0; i < tokens.length; i++) if (tokens.indexOf(tokens[i]!) === i) count++;
  return count;
}

/**
 * Moves the `k` best of `ids[0..n)` (higher score first, then lower id) to `ids[0..k)`, in no
 * particular order: a quickselect, linear on average, instead of sorting every match.
 */
export function selectBest(ids: Uint32Array, n: number, k: number, scores: Float64Array): void {
  const before = (a: number, b: number) => scores[a]! > scores[b]! || (scores[a] === scores[b] && a < b);
  let lo = 0;
  let hi = n - 1;
  const target = k - 1;
  while (lo < hi) {
    const pivot = ids[(lo + hi) >>> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (before(ids[i]!, pivot)) i++;
      while (before(pivot, ids[j]!)) j--;
      if (i <= j) {
        const swap = ids[i]!;
        ids[i] = ids[j]!;
        ids[j] = swap;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else return;
  }
}
