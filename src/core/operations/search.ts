/**
 * Text search over the library's entities, for the review page's search box: an entity matches
 * when the text is part of its name, of one of its aliases or of an agent's summary of it
 * (case-insensitive). Matches are grouped by name as find_entity groups them, the names the
 * text is whole (as find_entity matches) first. Not an MCP tool
 * (the spec has none) and local only. Bounded: at most SEARCH_MATCH_LIMIT names, and the scan
 * yields to the event loop between slices of rows, so a library at the limits never holds it.
 */
import { agentsInScope, type OperationContext } from '../context.js';
import { foldKey, type Entity } from '../store/manifest.js';
import { canSee } from '../trust/access.js';
import type { Failed, OneOf } from '../payload.js';
import { EntityMatchGroups, type EntityMatch } from './queries.js';
import { access, type AccessArgs, type AccessEcho } from './read-common.js';

/** Names a search answers with at most; `truncated` says there were more. */
export const SEARCH_MATCH_LIMIT = 50;
/** Longest text a search takes (names are short; a summary phrase is a few words). */
export const SEARCH_TEXT_LIMIT = 200;
/** Entity rows compared between two yields to the event loop. */
const ROWS_PER_SLICE = 5_000;

export type SearchEntitiesArgs = AccessArgs & { text: string };
export type SearchEntitiesAnswer = { text: string } & AccessEcho & { matches: EntityMatch[]; truncated: boolean };
export type SearchEntitiesOutput = OneOf<SearchEntitiesAnswer | Failed<SearchEntitiesAnswer>>;

function mentions(entity: Entity, needle: string): boolean {
  return (
    foldKey(entity.name).includes(needle) ||
    entity.aliases.some((alias) => foldKey(alias).includes(needle)) ||
    (entity.summary !== null && entity.summary.toLowerCase().includes(needle))
  );
}

export async function searchEntities(ctx: OperationContext, args: SearchEntitiesArgs): Promise<SearchEntitiesOutput> {
  const text = args.text.slice(0, SEARCH_TEXT_LIMIT);
  const level = access(ctx, args, 'public');
  const base = { text, access_level: level.echoed, include_private: args.include_private ?? false };
  if (level.error) return { error: level.error, ...base, matches: [], truncated: false };
  const needle = foldKey(text);
  const matches = new EntityMatchGroups();
  const exact = new Set<string>(); // names the text is whole (name or alias), listed first
  let truncated = false;
  let sinceYield = 0;
  if (needle) {
    scan: for (const agent of agentsInScope(ctx)) {
      for (const entity of agent.entities) {
        if (++sinceYield >= ROWS_PER_SLICE) {
          sinceYield = 0;
          await new Promise((resolve) => setImmediate(resolve));
        }
        if (!canSee(level.effective, entity.visibility) || !mentions(entity, needle)) continue;
        if (matches.size >= SEARCH_MATCH_LIMIT && !matches.has(entity.name)) {
          truncated = true;
          break scan;
        }
        matches.add(agent.id, entity);
        if (foldKey(entity.name) === needle || entity.aliases.some((alias) => foldKey(alias) === needle))
          exact.add(entity.name);
      }
    }
  }
  const listed = matches.list();
  const ordered = [
    ...listed.filter((match) => exact.has(match.name)),
    ...listed.filter((match) => !exact.has(match.name)),
  ];
  return { ...base, matches: ordered, truncated };
}
