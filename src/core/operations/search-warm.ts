/**
 * The search's code compiled before people search: a server runs searches of the shapes people
 * type over its own entities' names once the index is built (`bourdon serve`, after warmSearchMemory), their
 * answers dropped. V8 optimises a function only after it has run a while, and a search's loops
 * (scoring, grouping, snippets) are many: without this, the first 30 searches after start ran
 * at two to three times the cost of the rest (bench/README.md, "The server path"). Nothing is
 * answered, audited or kept beyond what any search keeps (the index's remembered snippets).
 */
import { agentsInScope, createContext } from '../context.js';
import type { LibraryStore } from '../store/library.js';
import { access } from './read-common.js';
import { localSearch } from './search-memory.js';

/**
 * How many searches warm the code. Twelve took the first 30 real searches from about 18 to 9 ms
 * a call; the first 30 still ran at two to three times the cost of the next (bench/README.md,
 * "Fewer allocations per search"): 48 of five shapes bring them within a third of the rest.
 */
const WARM_SEARCHES = 48;

/** A word with two neighbouring letters swapped: the typo path is warmed as well. */
function swapped(text: string): string {
  return text.length < 5 ? text : text.slice(0, 2) + text[3] + text[2] + text.slice(4);
}

/**
 * The warming searches, of the shapes people search in: a whole name, a misspelt one, two words
 * of two names, the start of a word, and words no row holds.
 */
function warmQueries(names: readonly string[]): string[] {
  const queries: string[] = [];
  const word = (i: number) => names[i % names.length]!.split(/\s+/)[0] ?? '';
  for (let i = 0; queries.length < WARM_SEARCHES; i++) {
    const name = names[i % names.length]!;
    const shapes = [name, swapped(name), `${word(i)} ${word(i + 1)}`, word(i).slice(0, 3), 'qzxv wkjq'];
    queries.push(shapes[i % shapes.length]!);
  }
  return queries;
}

/** Runs WARM_SEARCHES searches over the library's entity names, one a turn of the event loop. */
export async function warmSearchCode(store: LibraryStore, env: Record<string, string | undefined>): Promise<void> {
  const ctx = createContext(store, { env, warn: () => {} });
  const level = access(ctx, {}, 'public').effective;
  const names: string[] = [];
  for (const agent of agentsInScope(ctx)) {
    for (const entity of agent.entities) if (names.length < WARM_SEARCHES) names.push(entity.name);
    if (names.length >= WARM_SEARCHES) break;
  }
  if (!names.length) return;
  const filters = { kinds: null, agent: null, since: null };
  for (const query of warmQueries(names)) {
    await new Promise((resolve) => setImmediate(resolve));
    localSearch(ctx, query, level, filters, 20);
  }
}
