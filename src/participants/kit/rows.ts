/**
 * The engine's merge of entity lists from several sources, and the person types that make an
 * entity private (the rows themselves are manifest-shape.ts's `Entity` and `Session`).
 */
import { compareCodePoints } from '../../core/native/python-values.js';
import type { Entity } from './manifest-shape.js';
import { pyStrip } from './scrub.js';

/** Types that name a person: such an entity is private (README, "Auto-memory"). */
const PERSON_TYPES = new Set(['person', 'user', 'individual', 'contact', 'family-member', 'family_member']);

/** Whether a type names a person (case-insensitive, after its last `/`). */
export function isPersonType(type: string): boolean {
  return PERSON_TYPES.has(type.slice(type.lastIndexOf('/') + 1).toLowerCase());
}

type Visibility = Entity['visibility'];
const RESTRICTIVENESS: Record<NonNullable<Visibility>, number> = { public: 0, team: 1, private: 2 };

/** The more restrictive of two visibilities (a missing one counts as public). */
function stricter(a: Visibility, b: Visibility): Visibility {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return RESTRICTIVENESS[b] > RESTRICTIVENESS[a] ? b : a;
}

/**
 * Merges entity lists in the order given, keyed by name stripped and lower-cased (a row whose
 * name strips to nothing is left out): the first seen keeps its name; later ones fill a missing
 * type, replace the summary only when strictly longer, union tags (first-seen order) and keep
 * the more restrictive visibility. Sorted by lower-cased name.
 */
export function mergeEntities(lists: readonly (readonly Entity[])[]): Entity[] {
  const byKey = new Map<string, Entity>();
  for (const list of lists) {
    for (const row of list) {
      const key = pyStrip(row.name).toLowerCase();
      // The engine merges nothing under a name that strips to nothing: such a row is dropped.
      if (!key) continue;
      const seen = byKey.get(key);
      if (!seen) {
        byKey.set(key, { ...row, tags: row.tags ? [...row.tags] : undefined });
        continue;
      }
      if (!seen.type && row.type) seen.type = row.type;
      if (row.summary && [...row.summary].length > [...(seen.summary ?? '')].length) seen.summary = row.summary;
      for (const tag of row.tags ?? []) {
        seen.tags ??= [];
        if (!seen.tags.includes(tag)) seen.tags.push(tag);
      }
      seen.visibility = stricter(seen.visibility, row.visibility);
    }
  }
  return [...byKey.values()].sort((a, b) => compareCodePoints(a.name.toLowerCase(), b.name.toLowerCase()));
}
