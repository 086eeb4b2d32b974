/**
 * The scoring half of the search postings (search-postings.ts): the entry layout, the types a
 * search passes and gets back, and the loops over a query's matches — each a function of its
 * own, every value an argument, so that V8 compiles each loop once and keeps it
 * (bench/README.md, "Less work per search, exact").
 */

/** MiniSearch's BM25 parameters (its defaults). */
export const K = 1.2;
export const B = 0.7;
export const D = 0.5;
/** A field the row does not have (not an empty one: that has length 0), in lengths of 32 bits. */
export const ABSENT = 0xffffffff;
/** Field ids take the low four bits of an entry. */
export const FIELD_BITS = 4;
export const FIELD_MASK = (1 << FIELD_BITS) - 1;
/** Row ids stay below this, so that an entry (id and field) is a small integer. */
export const MAX_ROWS = 2 ** (31 - FIELD_BITS);

/**
 * One word's postings: an entry `id * 16 + field` per row and field holding it, preceded by
 * `-tf` when the word is there more than once (packed: search-vocabulary.ts).
 */
export type Posting = Int32Array;

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

/** The best rows of a query (Postings.rank), best first. */
export interface Ranked {
  ids: number[];
  /** Each one's score, by place. */
  scores: Float64Array;
  /** How many distinct query words each one matched, by place. */
  words: Uint8Array;
  /** How many rows matched in all. */
  total: number;
  /** The query's words and the indexed words each stands for (details reads them). */
  readonly sources: ReadonlyMap<string, readonly Derived[]>;
}

export interface Derived {
  term: string;
  weight: number;
  posting: Posting;
}

/** The arrays one query's scoring reads and writes, by row. */
export interface ScoreState {
  scores: Float64Array;
  quality: Uint16Array;
  stamp: Uint16Array;
  mask: Uint32Array;
  touched: Uint32Array;
  /** Each field's length by row, field after field (`stride` rows a field). */
  lengths: Uint16Array | Uint32Array;
  stride: number;
  average: Float64Array;
  table: ArrayLike<number>;
  offsets: Uint32Array;
  norms: Float64Array;
}

/** MiniSearch's BM25 of a word found `tf` times in a field of `length` words, without the idf. */
export function bm25(tf: number, length: number, average: number): number {
  return D + (tf * (K + 1)) / (tf + K * (1 - B + (B * length) / average));
}

/**
 * Adds one indexed word's BM25 scores into the scores array (MiniSearch's formula; `idf` and
 * `fieldWeight` by field: the word's inverse document frequency, its weight times the field's
 * boost); `k` numbers the query word, `bit` is the word of the query it stands for. A function
 * of its own, every value an argument, so that V8 compiles the loop once and keeps it.
 */
export function scorePosting(
  state: ScoreState,
  posting: Posting,
  idf: Float64Array,
  fieldWeight: Float64Array,
  k: number,
  bit: number,
  count: number,
): number {
  const { scores, quality, stamp, mask, touched, lengths, stride, average, table, offsets, norms } = state;
  for (let read = 0; read < posting.length; read++) {
    let entry = posting[read]!;
    let tf = 1;
    if (entry < 0) {
      tf = -entry;
      entry = posting[++read]!;
    }
    const id = entry >> FIELD_BITS;
    const docBoost = table[id]!;
    if (!docBoost) continue;
    const field = entry & FIELD_MASK;
    const length = lengths[field * stride + id]!;
    const raw = idf[field]! * (tf === 1 ? norms[offsets[field]! + length]! : bm25(tf, length, average[field]!));
    if (stamp[id] !== k) {
      if (quality[id] === 0) touched[count++] = id;
      stamp[id] = k;
      quality[id] = quality[id]! + 1;
      mask[id] = mask[id]! | bit;
    }
    scores[id] = scores[id]! + fieldWeight[field]! * docBoost * raw;
  }
  return count;
}

/** Each matched row's score times how many query words it matched, also by place in `values`. */
export function timesQuality(
  touched: Uint32Array,
  count: number,
  scores: Float64Array,
  quality: Uint16Array,
  values: Float64Array,
): void {
  for (let i = 0; i < count; i++) {
    const id = touched[i]!;
    values[i] = scores[id] = scores[id]! * quality[id]!;
  }
}

/**
 * The `kept` best of the `count` rows matched (`touched`, their scores in `scores` by row and,
 * by place, in `values`), best first, equal scores the lower id first (or in no order): the
 * `kept`-th best score found by a selection over the scores alone, then the rows above it and
 * the lowest ids of those equal to it, sorted when asked.
 */
export function best(
  touched: Uint32Array,
  count: number,
  scores: Float64Array,
  values: Float64Array,
  kept: number,
  ordered: boolean,
): number[] {
  if (kept === 0) return [];
  const order = (ids: number[]) => (ordered ? ids.sort((a, b) => scores[b]! - scores[a]! || a - b) : ids);
  if (count <= kept) return order(Array.from(touched.subarray(0, count)));
  let threshold = sampledKth(values, count, kept);
  if (Number.isNaN(threshold)) {
    threshold = kthLargest(values, count, kept);
    // The selection reordered the values: each row's put back in its place.
    for (let i = 0; i < count; i++) values[i] = scores[touched[i]!]!;
  }
  // Each row's score by its place, read beside `touched`, in order.
  const { above, equal } = split(touched, count, values, threshold);
  // The lowest ids first: a typed array's own sort (numbers, no comparator).
  const lowest = Uint32Array.from(equal).sort();
  for (let i = 0; above.length < kept; i++) above.push(lowest[i]!);
  return order(above);
}

/** What `sampledKth` selects in: the values at or above its estimate (a few times `kept`). */
const candidates = new Float64Array(8192);
/** Values sampled for the estimate. */
const SAMPLE = 512;
const sample = new Float64Array(SAMPLE);

/**
 * The `k`-th largest of `values[0..n)` without reordering them, or NaN when it is not found this
 * way (then kthLargest, which reorders them): a sample's order gives a value that a little more
 * than `k` values should reach; when at least `k` do (so the `k` largest are among them) and they
 * fit in `candidates`, the `k`-th largest of those is the answer, exactly. One pass over the
 * values in order instead of a selection over all of them (bench/README.md, "Fewer row reads per search").
 */
export function sampledKth(values: Float64Array, n: number, k: number): number {
  if (n < 4 * SAMPLE || k * 8 > candidates.length) return NaN;
  const step = n / SAMPLE;
  for (let i = 0; i < SAMPLE; i++) sample[i] = values[Math.floor(i * step)]!;
  // The sample's rank that k of n stands for, with room for the sample's error.
  const expected = (k * SAMPLE) / n;
  const rank = Math.min(SAMPLE, Math.ceil(expected + 2 * Math.sqrt(expected) + 4));
  const low = kthLargest(sample, SAMPLE, rank);
  let m = 0;
  for (let i = 0; i < n; i++) {
    const value = values[i]!;
    if (value < low) continue;
    if (m === candidates.length) return NaN;
    candidates[m++] = value;
  }
  return m >= k ? kthLargest(candidates, m, k) : NaN;
}

/** The matched rows whose score (by place in `values`, as `touched`) is above `threshold`, and those equal to it. */
export function split(
  touched: Uint32Array,
  count: number,
  values: Float64Array,
  threshold: number,
): { above: number[]; equal: number[] } {
  const above: number[] = [];
  const equal: number[] = [];
  for (let i = 0; i < count; i++) {
    const score = values[i]!;
    if (score > threshold) above.push(touched[i]!);
    else if (score === threshold) equal.push(touched[i]!);
  }
  return { above, equal };
}

/**
 * How many of a word's entries are in each field (the rows holding it there), and whether its
 * entries come in increasing order (rows added in the order of their ids, as a build adds them; a
 * changed manifest's rows taking freed ids can break it), which lets `seek` find a row's entries.
 */
export function countFields(posting: Posting, fields: number): { counts: Float64Array; ordered: boolean } {
  const counts = new Float64Array(fields);
  let last = -1;
  let ordered = true;
  for (const value of posting) {
    if (value < 0) continue;
    counts[value & FIELD_MASK]! += 1;
    if (value <= last) ordered = false;
    last = value;
  }
  return { counts, ordered };
}

/**
 * In a word's postings whose entries are ordered (`countFields`), the place of row `id`'s first
 * entry (or of the term frequency before it), or where it would be: a binary search.
 */
export function seek(posting: Posting, id: number): number {
  const target = id * (FIELD_MASK + 1);
  let lo = 0;
  let hi = posting.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    // A term frequency stands before its entry: the entry decides.
    const value = posting[mid]! < 0 ? posting[mid + 1]! : posting[mid]!;
    if (value < target) lo = posting[mid]! < 0 ? mid + 2 : mid + 1;
    else hi = mid;
  }
  return lo;
}

export function bitCount(bits: number): number {
  let count = 0;
  for (let rest = bits >>> 0; rest; rest &= rest - 1) count++;
  return count;
}

/** Fields of up to this many words are counted without a Set or a Map. */
export const SMALL = 16;

/** How many different tokens (MiniSearch's field length). */
export function distinct(tokens: readonly string[]): number {
  if (tokens.length > SMALL) return new Set(tokens).size;
  let count = 0;
  for (let i = 0; i < tokens.length; i++) if (tokens.indexOf(tokens[i]!) === i) count++;
  return count;
}

/**
 * The `k`-th largest of `values[0..n)` (1 ≤ k ≤ n), reordering them: a quickselect over the
 * numbers alone, linear on average, instead of sorting every match.
 */
export function kthLargest(values: Float64Array, n: number, k: number): number {
  let lo = 0;
  let hi = n - 1;
  const target = k - 1;
  while (lo < hi) {
    const pivot = values[(lo + hi) >>> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! > pivot) i++;
      while (values[j]! < pivot) j--;
      if (i <= j) {
        const swap = values[i]!;
        values[i] = values[j]!;
        values[j] = swap;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else break;
  }
  return values[target]!;
}

/**
 * What the rows `hits` (marked: `mark[id]` is 1 + a hit's place) matched, written into them:
 * which query words, and which indexed words in which fields. A few rows in a long ordered
 * posting (`ordered`) are found by `seek`, each row's entries met in the same order as by reading
 * the posting through, which the others are.
 */
export function gather(
  hits: readonly PostingHit[],
  sources: ReadonlyMap<string, readonly Derived[]>,
  mark: Uint32Array,
  fieldNames: readonly string[],
  ordered: (posting: Posting) => boolean,
): void {
  const note = (hit: PostingHit, source: string, term: string, value: number) => {
    if (hit.queryTerms[hit.queryTerms.length - 1] !== source && !hit.queryTerms.includes(source))
      hit.queryTerms.push(source);
    const field = fieldNames[value & FIELD_MASK]!;
    const fields = Object.hasOwn(hit.match, term) ? hit.match[term]! : (hit.match[term] = []);
    if (!fields.includes(field)) fields.push(field);
  };
  for (const [source, derived] of sources)
    for (const { term, posting } of derived) {
      // A binary search costs about its steps' reads twice over; reading through, one a entry.
      if (hits.length * 2 * Math.log2(posting.length + 1) < posting.length && ordered(posting)) {
        for (const hit of hits)
          for (let at = seek(posting, hit.id); at < posting.length; at++) {
            const value = posting[at]!;
            if (value < 0) continue;
            if (value >> FIELD_BITS !== hit.id) break;
            note(hit, source, term, value);
          }
        continue;
      }
      for (const value of posting) {
        if (value < 0) continue;
        const at = mark[value >> FIELD_BITS]!;
        if (at) note(hits[at - 1]!, source, term, value);
      }
    }
}
