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

/** What a group of rows matched together: the indexed words, and the fields they are in. */
export interface GroupMatch {
  terms: Set<string>;
  fields: Set<string>;
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
  /**
   * By row: the search's first stamp plus the number of the query word that last met it. A row
   * whose stamp is below `base` was met by an earlier search only: its score, quality and mask
   * are stale and set afresh, so no pass clears them after a search.
   */
  stamp: Uint32Array;
  base: number;
  mask: Uint32Array;
  touched: Uint32Array;
  table: ArrayLike<number>;
}

/** What BM25 needs beside a word's postings: the rows' field lengths and the norms of a single occurrence. */
export interface LengthState {
  /** Each field's length by row, field after field (`stride` rows a field). */
  lengths: Uint16Array | Uint32Array;
  stride: number;
  average: Float64Array;
  offsets: Uint32Array;
  norms: Float64Array;
}

/** MiniSearch's BM25 of a word found `tf` times in a field of `length` words, without the idf. */
export function bm25(tf: number, length: number, average: number): number {
  return D + (tf * (K + 1)) / (tf + K * (1 - B + (B * length) / average));
}

/**
 * A word's BM25 by entry, at the entry's place in its postings (MiniSearch's formula without
 * the field weight and the row's: `idf` by field times the term frequency's part): what
 * `scorePosting` adds for the word, read in order instead of two lookups by row and field each
 * time the word is searched (bench/README.md, "Fewer bytes read per search").
 */
export function impactsOf(posting: Posting, idf: Float64Array, state: LengthState): Float64Array {
  const { lengths, stride, average, offsets, norms } = state;
  const impacts = new Float64Array(posting.length);
  for (let read = 0; read < posting.length; read++) {
    let entry = posting[read]!;
    let tf = 1;
    if (entry < 0) {
      tf = -entry;
      entry = posting[++read]!;
    }
    const field = entry & FIELD_MASK;
    const length = lengths[field * stride + (entry >> FIELD_BITS)]!;
    impacts[read] = idf[field]! * (tf === 1 ? norms[offsets[field]! + length]! : bm25(tf, length, average[field]!));
  }
  return impacts;
}

/**
 * The most entries whose BM25 is kept: 8 MiB, against the 4 bytes an entry takes in the index
 * (the bench's eleven searches keep about 180,000 at 50 agents, 175,000 at 1,000).
 */
const IMPACTS_HELD = 1 << 20;

/**
 * The searched words' BM25 by entry (impactsOf), for one version of the rows: a change of the
 * rows forgets them, as does passing IMPACTS_HELD entries in all (all at once: no list of uses
 * to keep for the few words a library's searches repeat).
 */
export class KeptImpacts {
  private version = -1;
  private entries = 0;
  private readonly held = new Map<Posting, Float64Array>();

  get(posting: Posting, version: number, compute: () => Float64Array): Float64Array {
    if (this.version !== version || this.entries + posting.length > IMPACTS_HELD) {
      this.held.clear();
      this.version = version;
      this.entries = 0;
    }
    let impacts = this.held.get(posting);
    if (!impacts) {
      impacts = compute();
      this.held.set(posting, impacts);
      this.entries += posting.length;
    }
    return impacts;
  }
}

/**
 * Adds one indexed word's BM25 scores (`impacts`, by entry: impactsOf) into the scores array,
 * each times `fieldWeight` by field (the word's weight times the field's boost) and the row's
 * weight; `k` numbers the query word, `bit` is the word of the query it stands for. A function
 * of its own, every value an argument, so that V8 compiles the loop once and keeps it.
 */
export function scorePosting(
  state: ScoreState,
  posting: Posting,
  impacts: Float64Array,
  fieldWeight: Float64Array,
  k: number,
  bit: number,
  count: number,
): number {
  const { scores, quality, stamp, base, mask, touched, table } = state;
  const now = base + k;
  for (let read = 0; read < posting.length; read++) {
    let entry = posting[read]!;
    // A term frequency above one stands before its entry (its impact is at the entry's place).
    if (entry < 0) entry = posting[++read]!;
    const id = entry >> FIELD_BITS;
    const docBoost = table[id]!;
    if (!docBoost) continue;
    const value = fieldWeight[entry & FIELD_MASK]! * docBoost * impacts[read]!;
    const last = stamp[id]!;
    if (last === now) {
      scores[id] = scores[id]! + value;
      continue;
    }
    stamp[id] = now;
    if (last < base) {
      // The search's first meeting with the row.
      touched[count++] = id;
      quality[id] = 1;
      mask[id] = bit;
      scores[id] = value;
    } else {
      quality[id] = quality[id]! + 1;
      mask[id] = mask[id]! | bit;
      scores[id] = scores[id]! + value;
    }
  }
  return count;
}

/**
 * The `kept` best of the `count` rows matched (`touched`), each scored its BM25 sum (`scores`)
 * times how many query words it matched (`quality`) — written back into `scores` for the rows
 * kept, at least — best first, equal scores the lower id first (or in no order): one pass
 * multiplies every row's score and keeps those at or above a sample's estimate of the `kept`-th
 * best (a few times `kept`), among which the cut is found exactly; when the estimate misses, the
 * selection runs over all of them (`values`, by place). One pass over the rows instead of three,
 * and a write only for the rows that may be kept (bench/README.md, "Fewer bytes read per search").
 */
export function best(
  touched: Uint32Array,
  count: number,
  scores: Float64Array,
  quality: Uint16Array,
  values: Float64Array,
  kept: number,
  ordered: boolean,
): number[] {
  const order = (ids: number[]) => (ordered ? ids.sort((a, b) => scores[b]! - scores[a]! || a - b) : ids);
  const low = count > kept && kept > 0 ? estimate(touched, count, scores, quality, kept) : NaN;
  const above = Number.isNaN(low) ? -1 : keepAbove(touched, count, scores, quality, low);
  // A cut among candidates only when the estimate was made (count above kept, kept above 0).
  if (above >= kept && above <= candidates.length) {
    // Only the candidates' scores are written back (the others are below every kept row's).
    for (let i = 0; i < above; i++) scores[candidateIds[i]!] = candidates[i]!;
    // The cut among the candidates (their values reordered; each one's score read by id).
    const threshold = kthLargest(candidates, above, kept);
    return order(cut(candidateIds, above, scores, threshold, kept));
  }
  for (let i = 0; i < count; i++) {
    const id = touched[i]!;
    scores[id] = scores[id]! * quality[id]!;
  }
  if (kept === 0) return [];
  if (count <= kept) return order(Array.from(touched.subarray(0, count)));
  for (let i = 0; i < count; i++) values[i] = scores[touched[i]!]!;
  return order(cut(touched, count, scores, kthLargest(values, count, kept), kept));
}

/** The rows (and their scores) at or above the estimate, in the order met (keepAbove). */
const candidates = new Float64Array(8192);
const candidateIds = new Uint32Array(8192);
/** Rows sampled for the estimate. */
const SAMPLE = 512;
const sample = new Float64Array(SAMPLE);

/**
 * A score that a little more than `kept` of the `count` rows should reach, from a sample of them
 * (evenly spaced among the rows as met), or NaN when too few rows are matched or too many kept
 * for an estimate to help.
 */
export function estimate(
  touched: Uint32Array,
  count: number,
  scores: Float64Array,
  quality: Uint16Array,
  kept: number,
): number {
  if (count < 4 * SAMPLE || kept * 8 > candidates.length) return NaN;
  const step = count / SAMPLE;
  for (let i = 0; i < SAMPLE; i++) {
    const id = touched[Math.floor(i * step)]!;
    sample[i] = scores[id]! * quality[id]!;
  }
  // The sample's rank that `kept` of `count` stands for, with room for the sample's error.
  const expected = (kept * SAMPLE) / count;
  const rank = Math.min(SAMPLE, Math.ceil(expected + 2 * Math.sqrt(expected) + 4));
  return kthLargest(sample, SAMPLE, rank);
}

/**
 * Notes the rows whose score times quality reaches `low` in `candidates` (as many as fit; nothing
 * is written back) and returns how many reach it.
 */
function keepAbove(
  touched: Uint32Array,
  count: number,
  scores: Float64Array,
  quality: Uint16Array,
  low: number,
): number {
  const room = candidates.length;
  let above = 0;
  for (let i = 0; i < count; i++) {
    const id = touched[i]!;
    const score = scores[id]! * quality[id]!;
    if (score < low) continue;
    if (above < room) {
      candidates[above] = score;
      candidateIds[above] = id;
    }
    above++;
  }
  return above;
}

/**
 * The `kept` best of the rows `ids[0..n)` whose `kept`-th best score is `threshold`: those above
 * it, then the lowest ids of those equal to it.
 */
function cut(ids: Uint32Array, n: number, scores: Float64Array, threshold: number, kept: number): number[] {
  const above: number[] = [];
  const equal: number[] = [];
  for (let i = 0; i < n; i++) {
    const id = ids[i]!;
    const score = scores[id]!;
    if (score > threshold) above.push(id);
    else if (score === threshold) equal.push(id);
  }
  // The lowest ids first: a typed array's own sort (numbers, no comparator).
  const lowest = Uint32Array.from(equal).sort();
  for (let i = 0; above.length < kept; i++) above.push(lowest[i]!);
  return above;
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
 * Finds the entries of the rows asked (`rows`) in the query words' postings and tells `found`
 * each one: the target the row is noted for (`owner`, by row: 1 + its place; 0, not asked), the
 * query word, the indexed word and the entry. A word's postings are read through, or searched
 * for each row asked when they are ordered and much longer than the rows asked: either way, a
 * row's entries come in the order of the postings.
 */
export function gather(
  rows: readonly number[],
  owner: Uint32Array,
  sources: ReadonlyMap<string, readonly Derived[]>,
  ordered: (posting: Posting) => boolean,
  found: (target: number, source: string, term: string, entry: number) => void,
): void {
  for (const [source, derived] of sources)
    for (const { term, posting } of derived) {
      // A binary search costs about its steps' reads twice over; reading through, one a entry.
      if (rows.length * 2 * Math.log2(posting.length + 1) < posting.length && ordered(posting)) {
        for (const id of rows)
          for (let at = seek(posting, id); at < posting.length; at++) {
            const entry = posting[at]!;
            if (entry < 0) continue;
            if (entry >> FIELD_BITS !== id) break;
            found(owner[id]! - 1, source, term, entry);
          }
        continue;
      }
      for (const entry of posting) {
        if (entry < 0) continue;
        const at = owner[entry >> FIELD_BITS]!;
        if (at) found(at - 1, source, term, entry);
      }
    }
}
