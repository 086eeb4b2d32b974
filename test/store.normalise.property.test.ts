/**
 * Normalising rows with a shared interner (as a load does, so a server keeps one copy of each
 * repeated value) gives the same rows as normalising each row on its own: sharing strings never
 * changes, drops or mixes up a value, and no row's list is another row's list.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { interner, normaliseEntity, normaliseNote, normaliseSession } from '../src/core/store/manifest.js';

/** Field values as YAML gives them, with repeats across rows likely. */
const value = fc.oneof(
  fc.constantFrom('team', 'TEAM', ' x ', 'src/a.ts', '2026-07-01', '2026-07-01T10:00:00Z', '', 'Orbit'),
  fc.string({ maxLength: 6 }),
  fc.integer({ min: -2, max: 2 }),
  fc.boolean(),
  fc.constant(null),
);
const field = fc.oneof(value, fc.array(value, { maxLength: 4 }));
const row = fc.record(
  {
    name: field,
    type: field,
    aliases: field,
    summary: field,
    tags: field,
    valid_to: field,
    visibility: field,
    date: field,
    cwd: field,
    project_focus: field,
    key_actions: field,
    files_touched: field,
    text: field,
    title: field,
  },
  { requiredKeys: [] },
);

describe('normalising with an interner', () => {
  it.each([
    ['entities', normaliseEntity],
    ['sessions', normaliseSession],
    ['notes', normaliseNote],
  ] as const)('%s: the same rows as without, each with lists of its own', (_, normalise) => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 12 }), (rows) => {
        const intern = interner();
        const shared = rows.map((raw) => normalise(raw, intern));
        expect(shared).toEqual(rows.map((raw) => normalise(raw)));
        const lists = shared.flatMap((out) => Object.values(out ?? {}).filter(Array.isArray));
        expect(new Set(lists).size).toBe(lists.length);
      }),
      { numRuns: 300 },
    );
  });
});
