/**
 * The search index's words and their postings (search-postings.ts scores them): MiniSearch's
 * radix tree (`minisearch/SearchableMap`) for the prefix and typo expansions, a map for the exact
 * look-up, and each word's postings packed in one `Int32Array` of its exact size.
 *
 * Entries a batch of rows adds go to a plain array per word first (pushing is cheap, a typed
 * array cannot grow); `pack` joins them to the packed postings, in the order they were added, so
 * a word's entries are the same numbers in the same order as one array pushed to all along. The
 * index packs once a batch of manifests is in (SearchIndex.update) and every search packs first.
 * Packed, an entry costs 4 bytes instead of 8 in a JavaScript array (plus the half a growing array
 * keeps spare): at 1,000 agents 655,000 entries took 7.5 MB as arrays, 2.6 MB packed
 * (bench/README.md, "The index's memory").
 */
import SearchableMap from 'minisearch/SearchableMap';
import { FIELD_BITS, type Posting } from './search-scoring.js';

const EMPTY: Posting = new Int32Array(0);
/**
 * Entries waiting before a pack. Each pack copies the postings it extends, so packing every
 * 32,768 entries copies about 50 MB in all to build 655,000 (1,000 agents), in milliseconds; the
 * arrays waiting never hold more than 256 KB, where packing once at the end held all 7.5 MB.
 */
const PACK_EVERY = 32_768;

/** One word's postings: the packed ones, and the entries added since the last pack (or null). */
export class Slot {
  posting: Posting = EMPTY;
  added: number[] | null = null;
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
      const old = slot.posting;
      const posting = new Int32Array(old.length + added.length);
      posting.set(old);
      posting.set(added, old.length);
      slot.posting = posting;
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
      const posting = slot.posting;
      let kept = 0;
      for (let read = 0; read < posting.length; read++) {
        const value = posting[read]!;
        const entry = value < 0 ? posting[++read]! : value;
        if (dead[entry >> FIELD_BITS]) continue;
        if (value < 0) posting[kept++] = value;
        posting[kept++] = entry;
      }
      if (kept === 0) {
        this.slots.delete(word);
        this.tree.delete(word);
      } else if (kept < posting.length) slot.posting = posting.slice(0, kept);
    }
  }
}
