/**
 * The search's code compiled before people search: a server runs a few searches of its own
 * entities' names once the index is built (`bourdon serve`, after warmSearchMemory), their
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
 * How many searches warm the code: twelve took the first 30 real searches from about 18 to
 * 9 ms a call once they had run (30 did no better, and cost more while still running).
 */
const WARM_SEARCHES = 12;

/** A word with two neighbouring letters swapped: the typo path is warmed as well. */
function swapped(text: string): string {
  return text.length < 5 ? text : text.slice(0, 2) + text[3] + text[2] + text.slice(4);
}

/** Runs WARM_SEARCHES searches of the library's entity names (a few misspelt), one a turn of the event loop. */
export async function warmSearchCode(store: LibraryStore, env: Record<string, string | undefined>): Promise<void> {
  const ctx = createContext(store, { env, warn: () => {} });
  const level = access(ctx, {}, 'public').effective;
  const names: string[] = [];
  for (const agent of agentsInScope(ctx)) {
    for (const entity of agent.entities) if (names.length < WARM_SEARCHES) names.push(entity.name);
    if (names.length >= WARM_SEARCHES) break;
  }
  const filters = { kinds: null, agent: null, since: null };
  for (let i = 0; i < names.length; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    localSearch(ctx, i % 3 === 2 ? swapped(names[i]!) : names[i]!, level, filters, 20);
  }
}
