/**
 * The search index's words and their postings (search-postings.ts scores them): MiniSearch's
 * radix tree (`minisearch/SearchableMap`) for the prefix and typo expansions, a map for the exact
 * look-up, and each word's postings packed in one `Int32Array`.
 *
 * Entries rows add go to a plain array per word first (pushing is cheap); `pack` copies them
 * into the word's typed array (grown by doubling), in the order they were added, so a word's
 * entries are the same numbers in the same order as one array pushed to all along. Every
 * PACK_EVERY entries are packed, every search packs first, and once a build is in (`trim`, from
 * SearchIndex.update) each array is cut to its entries. Packed, an entry costs 4 bytes instead of
 * 8 in a JavaScript array (plus the half a growing array keeps spare): at 1,000 agents 655,000
 * entries took 7.5 MB as arrays, 2.6 MB packed (bench/README.md, "The index's memory").
 */
import SearchableMap from 'minisearch/SearchableMap';
import { FIELD_BITS, SMALL, type Derived, type Posting, type PostingSearch, type TermQuery } from './search-scoring.js';

const EMPTY: Posting = new Int32Array(0);
/** Entries waiting before a pack: the plain arrays waiting never hold more than 256 KB. */
const PACK_EVERY = 32_768;

/**
 * One word's postings: `data`'s first `length` entries (`posting`, the same array when it is
 * full, else a view of that part), and the entries added since the last pack (or null).
 */
export class Slot {
  data: Int32Array = EMPTY;
  length = 0;
  posting: Posting = EMPTY;
  added: number[] | null = null;

  /** `posting` set to the first `length` entries. */
  view(): void {
    this.posting = this.length === this.data.length ? this.data : this.data.subarray(0, this.length);
  }
}

export class Vocabulary {
  /** The words, for prefix and fuzzy look-ups. */
  readonly tree = new SearchableMap<Slot>();
  private readonly slots = new Map<string, Slot>();
  /** The slots with entries added since the last pack. */
  private unpacked: Slot[] = [];
  /** How many entries wait in the slots' `added` arrays. */
  private waiting = 0;

  /** How many distinct words. */
  get size(): number {
    return this.slots.size;
  }

  /** A word's packed postings (pack first), or undefined. */
  get(term: string): Posting | undefined {
    return this.slots.get(term)?.posting;
  }

  /** Whether some word is `word` or begins with it. */
  knows(word: string): boolean {
    if (this.slots.has(word)) return true;
    return !this.tree.atPrefix(word).keys().next().done;
  }

  /**
   * Each query word's indexed words (the entries packed first: `pack`), with the weight MiniSearch
   * gives a prefix or fuzzy match.
   */
  expand(queries: readonly TermQuery[], weights: PostingSearch['weights']): Map<string, Derived[]> {
    const sources = new Map<string, Derived[]>();
    for (const query of queries) {
      let derived = sources.get(query.term);
      if (!derived) {
        derived = [];
        sources.set(query.term, derived);
      }
      const exact = this.get(query.term);
      if (exact) derived.push({ term: query.term, weight: 1, posting: exact });
      const fuzzy = query.fuzzy > 0 ? this.tree.fuzzyGet(query.term, query.fuzzy) : null;
      if (query.prefix)
        for (const [term, { posting }] of this.tree.atPrefix(query.term)) {
          const distance = term.length - query.term.length;
          if (!distance) continue;
          fuzzy?.delete(term);
          derived.push({ term, weight: (weights.prefix * term.length) / (term.length + 0.3 * distance), posting });
        }
      if (fuzzy)
        for (const [term, [{ posting }, distance]] of fuzzy) {
          if (!distance) continue;
          derived.push({ term, weight: (weights.fuzzy * term.length) / (term.length + distance), posting });
        }
    }
    return sources;
  }

  /** Adds an entry to a word's postings, preceded by `-tf` when the word is there more than once. */
  append(term: string, tf: number, entry: number): void {
    let slot = this.slots.get(term);
    if (!slot) {
      slot = new Slot();
      this.slots.set(term, slot);
      this.tree.set(term, slot);
    }
    let added = slot.added;
    if (!added) {
      added = slot.added = [];
      this.unpacked.push(slot);
    }
    if (tf > 1) added.push(-tf);
    added.push(entry);
    // Packed every PACK_EVERY entries, so that the arrays waiting stay small and short-lived.
    if ((this.waiting += tf > 1 ? 2 : 1) >= PACK_EVERY) this.pack();
  }

  /** Joins the entries added since the last pack to each word's packed postings. */
  pack(): void {
    if (!this.unpacked.length) return;
    for (const slot of this.unpacked) {
      const added = slot.added!;
      const size = slot.length + added.length;
      if (size > slot.data.length) {
        const data = new Int32Array(slot.data.length ? Math.max(size, slot.data.length * 2) : size);
        data.set(slot.posting);
        slot.data = data;
      }
      slot.data.set(added, slot.length);
      slot.length = size;
      slot.view();
      slot.added = null;
    }
    this.unpacked = [];
    this.waiting = 0;
  }

  /** Takes the entries of the rows marked in `dead` out of `words`' postings; a word left with none is forgotten. */
  drop(words: Iterable<string>, dead: Uint32Array): void {
    this.pack();
    for (const word of words) {
      const slot = this.slots.get(word);
      if (!slot) continue;
      const posting = slot.data;
      let kept = 0;
      for (let read = 0; read < slot.length; read++) {
        const value = posting[read]!;
        const entry = value < 0 ? posting[++read]! : value;
        if (dead[entry >> FIELD_BITS]) continue;
        if (value < 0) posting[kept++] = value;
        posting[kept++] = entry;
      }
      if (kept === 0) {
        this.slots.delete(word);
        this.tree.delete(word);
      } else if (kept < slot.length) {
        slot.length = kept;
        slot.view();
      }
    }
  }

  /** Cuts each word's array to its entries (after a build: growing by doubling leaves spare room). */
  trim(): void {
    this.pack();
    for (const slot of this.slots.values())
      if (slot.data.length > slot.length) {
        slot.data = slot.data.slice(0, slot.length);
        slot.view();
      }
  }
}

/** Each indexed word of a field's tokens with how many times it is there (MiniSearch's term frequency). */
export function frequencies(
  tokens: readonly string[],
  processTerm: (word: string) => string | null,
): Iterable<[string, number]> {
  if (tokens.length > SMALL) {
    const counts = new Map<string, number>();
    for (const token of tokens) {
      const term = processTerm(token);
      if (term !== null) counts.set(term, (counts.get(term) ?? 0) + 1);
    }
    return counts;
  }
  const counts: [string, number][] = [];
  for (const token of tokens) {
    const term = processTerm(token);
    if (term === null) continue;
    const known = counts.find((pair) => pair[0] === term);
    if (known) known[1] += 1;
    else counts.push([term, 1]);
  }
  return counts;
}
