/**
 * search_memory's grouping of the best rows (search-memory.ts): entities by name, workstreams by
 * folded name, the rest one row a group, each group scored and asked whether the query names it
 * exactly, then the page's groups chosen. Kept in arrays by group and by place that one search
 * after another reuses, so that grouping the best 1,000 rows allocates nothing per row or group
 * (bench/README.md, "Fewer allocations per search").
 */
import { remembered } from '../lazy.js';
import type { Ranked } from './search-scoring.js';
import type { IndexedRow, SearchIndex } from './search-index.js';
import { words } from './search-words.js';

/**
 * The best rows grouped. The rows come in no particular order (sorting 1,000 of them cost as
 * much as choosing them): a group's order among equal scores is its best row's (score, then the
 * lower id), as if the rows had come best first; only the shown groups' rows are ordered.
 */
export interface Grouping {
  count: number;
  /** By group: its best row's score times the share of the query's words that row holds, squared (at least 0). */
  score: Float64Array;
  /** By group: 2, the query is its name or an alias word for word; 1, the same words, one misspelt; 0, neither. */
  exact: Uint8Array;
  /** By group: the place (among the ranked rows) of its best row (a higher score, or an equal one and a lower id). */
  head: Int32Array;
  /** By group: the places of its first and last rows met (they are linked by `next`). */
  start: Int32Array;
  tail: Int32Array;
  /** By place: the place of the same group's next row, or -1. */
  next: Int32Array;
}

/** A name's words and their phrase, as a query's are folded. */
interface Name {
  words: string[];
  phrase: string;
}

/** A name's folded phrase when its words are the phrase's words split at spaces (nearly every name), else its Name. */
type Folded = string | Name;

function folded(text: string): Folded {
  const held = words(text);
  const phrase = held.join(' ');
  if (held.some((word) => word.includes(' '))) return { words: held, phrase };
  // The text itself when it is already its phrase: nothing new is kept.
  return phrase === text ? text : phrase;
}

/** Aliases and workstream names as folded, kept for the ones searches meet (few: they are asked row by row). */
const OTHER_CACHE = 10_000;
const foldedOther = remembered(folded, OTHER_CACHE);

/**
 * Which word counts a name or alias has, as `exactness` counts them, in six bits: one word to
 * five (1, 2, 4, 8, 16), six or more (32); all six for a name whose words hold spaces (counted
 * otherwise), none for an empty one (never exact). A query asks only names whose bits meet its
 * own (`wanted`): the others are not read (bench/README.md, "Fewer row reads per search"), and
 * a name of three words is not read for a query of four (a project's workstream for a name).
 */
const ALL_COUNTS = 63;
function countBit(count: number): number {
  return 1 << (Math.min(count, 6) - 1);
}
/** How many words a folded phrase holds (its spaces and one; it is never empty here). */
function wordCount(phrase: string): number {
  let count = 1;
  for (let i = 0; i < phrase.length; i++) if (phrase.charCodeAt(i) === 32) count++;
  return count;
}
function nameBits(name: Folded): number {
  if (typeof name !== 'string') return ALL_COUNTS;
  if (name.length === 0) return 0;
  return countBit(wordCount(name));
}
/** The bits of the names a query of `termCount` distinct words and folded `phrase` may name exactly. */
function wanted(termCount: number, phrase: string): number {
  return countBit(termCount) | nameBits(phrase);
}

/**
 * The matched words' signatures (length, first and last letter) hashed into a small table,
 * stamped by search: a name word whose signature none of them has is not matched, found without
 * cutting the word out of the name (most names a query meets share none of its words).
 */
const SIGNATURES = 4096;
const signatures = new Uint32Array(SIGNATURES);
function signature(length: number, first: number, last: number): number {
  return (length * 31 + first * 7 + last) & (SIGNATURES - 1);
}
function sign(matched: ReadonlySet<string>, search: number): void {
  for (const word of matched)
    if (word.length) signatures[signature(word.length, word.charCodeAt(0), word.charCodeAt(word.length - 1))] = search;
}

/**
 * Entity names as folded, by the index's group number (an entity group is one name, and the index
 * never gives a number to another name): an array each, and by number whether it is folded (128)
 * plus its `nameBits`, so that the names a search meets — tens of thousands at 1,000 agents — are
 * folded once, and a warm search reads neither the row nor the name of a group it cannot name.
 */
interface EntityNames {
  folded: Folded[];
  bits: Uint8Array;
  /** By number: its first and last words' signatures (`ends`), or 0 when it has none to tell. */
  ends: Int32Array;
}
const entityNames = new WeakMap<SearchIndex, EntityNames>();
const FOLDED = 128;
function namesOf(index: SearchIndex, groups: number): EntityNames {
  let known = entityNames.get(index);
  if (!known) entityNames.set(index, (known = { folded: [], bits: new Uint8Array(0), ends: new Int32Array(0) }));
  if (known.bits.length < groups) {
    const size = Math.max(groups, known.bits.length * 2, 1024);
    const bits = new Uint8Array(size);
    bits.set(known.bits);
    known.bits = bits;
    const ends = new Int32Array(size);
    ends.set(known.ends);
    known.ends = ends;
  }
  return known;
}
function foldEntity(names: EntityNames, group: number, text: string): number {
  while (names.folded.length < group) names.folded.push('');
  const name = folded(text);
  names.folded[group] = name;
  names.ends[group] = typeof name === 'string' && name.length ? ends(name) : 0;
  return (names.bits[group] = FOLDED | nameBits(name));
}

/** A folded name's first and last words' signatures in one number (HAS_ENDS set). */
const HAS_ENDS = 1 << 24;
function ends(name: string): number {
  const first = name.indexOf(' ');
  const firstEnd = first < 0 ? name.length : first;
  const last = name.lastIndexOf(' ') + 1;
  const at = (start: number, end: number) => signature(end - start, name.charCodeAt(start), name.charCodeAt(end - 1));
  return HAS_ENDS | (at(0, firstEnd) << 12) | at(last, name.length);
}

/**
 * Whether a name whose `ends` these are may be matched word for word: its first and last words'
 * signatures are among the matched words' (signed for `search`); read without the name.
 */
function mayName(nameEnds: number, search: number): boolean {
  if (nameEnds === 0) return true;
  return (
    signatures[(nameEnds >> 12) & (SIGNATURES - 1)] === search && signatures[nameEnds & (SIGNATURES - 1)] === search
  );
}

/**
 * The `nameBits` of an entity row's aliases together, or of a workstream row's name, noted with
 * the row in the index once read.
 */
function otherBits(index: SearchIndex, id: number): number {
  const noted = index.notedAliases(id);
  if (noted >= 0) return noted;
  const row = index.rowAt(id)!;
  let bits = 0;
  if (row.kind === 'workstream') bits = nameBits(foldedOther(row.name));
  else if (row.kind === 'entity') for (const alias of row.entity.aliases) bits |= nameBits(foldedOther(alias));
  index.noteAliases(id, bits);
  return bits;
}

/**
 * How closely the query names an entity or workstream by this name or alias: 2 when it is the
 * name word for word, 1 when it has as many words and each of the name's words matched one of
 * them (a typo in an exact name), else 0. `matched`: every indexed word the query's words stand
 * for (signed for `search`). A row holds each word of its names, so it matched such a word
 * exactly when the query's words stand for it: the row's own matches need not be gathered. A
 * group's exactness is the best of its name's (the same for all its rows) and its rows' aliases'.
 */
function exactness(
  name: Folded,
  phrase: string,
  termCount: number,
  matched: ReadonlySet<string>,
  search: number,
): number {
  if (typeof name !== 'string')
    return name.phrase === phrase
      ? 2
      : name.words.length === termCount && name.words.every((word) => matched.has(word))
        ? 1
        : 0;
  if (name === phrase) return 2;
  if (name.length === 0) return termCount === 0 ? 1 : 0;
  if (wordCount(name) !== termCount) return 0;
  // Each word's signature first (no word cut out), then each word itself.
  for (let start = 0, i = 0; i <= name.length; i++) {
    if (i < name.length && name.charCodeAt(i) !== 32) continue;
    if (signatures[signature(i - start, name.charCodeAt(start), name.charCodeAt(i - 1))] !== search) return 0;
    start = i + 1;
  }
  for (let start = 0, i = 0; i <= name.length; i++) {
    if (i < name.length && name.charCodeAt(i) !== 32) continue;
    if (!matched.has(name.slice(start, i))) return 0;
    start = i + 1;
  }
  return 1;
}

/** The arrays a grouping is made in, grown as needed and reused search after search. */
const scratch = {
  /** By group number: the search that last met it (`searches`), and its group there. */
  seen: new Uint32Array(0),
  slot: new Int32Array(0),
  searches: 0,
  /** By group: the workstream name its rows were last asked by (rows of one workstream mostly share it). */
  named: [] as (string | undefined)[],
  grouping: {
    count: 0,
    score: new Float64Array(0),
    exact: new Uint8Array(0),
    head: new Int32Array(0),
    start: new Int32Array(0),
    tail: new Int32Array(0),
    next: new Int32Array(0),
  } as Grouping,
};

function room(places: number, numbers: number): Grouping {
  const grouping = scratch.grouping;
  if (grouping.score.length < places) {
    const size = Math.max(places, 64);
    grouping.score = new Float64Array(size);
    grouping.exact = new Uint8Array(size);
    grouping.head = new Int32Array(size);
    grouping.start = new Int32Array(size);
    grouping.tail = new Int32Array(size);
    grouping.next = new Int32Array(size);
  }
  if (scratch.seen.length < numbers) {
    const size = Math.max(numbers, scratch.seen.length * 2, 1024);
    scratch.seen = new Uint32Array(size);
    scratch.slot = new Int32Array(size);
    scratch.searches = 0;
  }
  scratch.searches += 1;
  if (scratch.searches === 0xffffffff) {
    scratch.seen.fill(0);
    scratch.searches = 1;
  }
  grouping.count = 0;
  return grouping;
}

/**
 * The best rows grouped: entities by name, workstreams by folded name, the rest one row a group.
 * Each group scores its best row's score times the share of the query's words that row holds,
 * squared (several words together: a row holding every word outranks one holding one). The
 * answer is valid until the next call.
 */
export function groupHits(
  index: SearchIndex,
  ranked: Ranked,
  termCount: number,
  phrase: string,
  matched: ReadonlySet<string>,
): Grouping {
  const { ids, scores, words: covered } = ranked;
  const grouping = room(ids.length, index.groupCount);
  const { seen, slot, searches } = scratch;
  const { score, exact, head, start, tail, next } = grouping;
  const names = namesOf(index, index.groupCount);
  const asks = wanted(termCount, phrase);
  sign(matched, searches);
  // Each of the phrase's words is a query word (none cut off past the words looked up): a name
  // it names word for word has its words among the matched ones, so a name whose first or last
  // word is not is read no further.
  const whole = new Set(phrase.split(' ')).size === termCount;
  for (let at = 0; at < ids.length; at++) {
    const id = ids[at]!;
    const number = index.groupAt(id);
    next[at] = -1;
    let group: number;
    if (number >= 0 && seen[number] === searches) {
      group = slot[number]!;
      next[tail[group]!] = at;
      tail[group] = at;
      if (before(ranked, at, head[group]!)) head[group] = at;
    } else {
      group = grouping.count++;
      if (number >= 0) {
        seen[number] = searches;
        slot[number] = group;
      }
      // No part of a row's score is negative (BM25 over exact field means, weights and boosts):
      // a group starts at 0 and its best row raises it.
      score[group] = 0;
      head[group] = start[group] = tail[group] = at;
      exact[group] = 0;
      scratch.named[group] = undefined;
      // Every row of an entity group has its name (aliases: below).
      if (number >= 0 && index.kindAt(id) === 'entity') {
        let bits = names.bits[number]!;
        if (bits === 0)
          bits = foldEntity(names, number, (index.rowAt(id) as IndexedRow & { kind: 'entity' }).entity.name);
        if (bits & asks && (!whole || mayName(names.ends[number]!, searches)))
          exact[group] = exactness(names.folded[number]!, phrase, termCount, matched, searches);
      }
    }
    const share = covered[at]! / termCount;
    const value = scores[at]! * share * share;
    if (value > score[group]!) score[group] = value;
    if (exact[group] === 2 || number < 0) continue;
    if (index.hasAliases(id)) {
      if (!(otherBits(index, id) & asks)) continue;
      const row = index.rowAt(id) as IndexedRow & { kind: 'entity' };
      for (const alias of row.entity.aliases)
        exact[group] = Math.max(exact[group]!, exactness(foldedOther(alias), phrase, termCount, matched, searches));
    } else if (index.kindAt(id) === 'workstream' && otherBits(index, id) & asks) {
      // A workstream's rows share a folded name, not always its words: each name is asked once.
      const row = index.rowAt(id) as IndexedRow & { kind: 'workstream' };
      if (scratch.named[group] === row.name) continue;
      scratch.named[group] = row.name;
      exact[group] = Math.max(exact[group]!, exactness(foldedOther(row.name), phrase, termCount, matched, searches));
    }
  }
  return grouping;
}

/** Whether the row at place `a` ranks before the one at place `b`: a higher score, or an equal one and a lower id. */
function before(ranked: Ranked, a: number, b: number): boolean {
  const { scores, ids } = ranked;
  return scores[a]! > scores[b]! || (scores[a] === scores[b] && ids[a]! < ids[b]!);
}

/** The ids of a group's rows, best first (a higher score, or an equal one and a lower id). */
export function groupIds(grouping: Grouping, ranked: Ranked, group: number): number[] {
  const places: number[] = [];
  for (let at = grouping.start[group]!; at >= 0; at = grouping.next[at]!) places.push(at);
  places.sort((a, b) => (before(ranked, a, b) ? -1 : before(ranked, b, a) ? 1 : 0));
  return places.map((at) => ranked.ids[at]!);
}

/**
 * The first `limit` groups, best first: an exact name or alias is raised by the best group's
 * score (a misspelt one by half of it); equal scores keep the order of the groups' best rows.
 */
export function pageOf(grouping: Grouping, ranked: Ranked, limit: number): { group: number; score: number }[] {
  const { count, score, exact, head } = grouping;
  let top = 0;
  for (let group = 0; group < count; group++) top = Math.max(top, score[group]!);
  // Whether group `a` (its final score `fa`) goes before the page's entry `b`.
  const beats = (a: number, fa: number, b: { group: number; score: number }) =>
    fa > b.score || (fa === b.score && before(ranked, head[a]!, head[b.group]!));
  // The best `limit` so far, best first.
  const page: { group: number; score: number }[] = [];
  for (let group = 0; group < count; group++) {
    const final = score[group]! + (top * exact[group]!) / 2;
    if (page.length >= limit && !beats(group, final, page[page.length - 1]!)) continue;
    let at = page.length;
    while (at > 0 && beats(group, final, page[at - 1]!)) at--;
    page.splice(at, 0, { group, score: final });
    if (page.length > limit) page.pop();
  }
  return page;
}
