/**
 * Manifests as Python-written libraries really contain them (issue 15): odd agent ids, visibility
 * labels in any case and spacing, impossible and unquoted dates, padded and numeric entity
 * names, tags of any type, labels shared through YAML merge keys (`<<: *anchor`, as PyYAML-using
 * tools write them; an explicit key wins over a merged one). Property: at every level, the store serves every row a model of the
 * rules says it may serve (never drops one) and nothing above the caller's level.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { invoke } from '../src/core/operations/invoke.js';
import { findEntityOperation, listRecentWorkOperation } from '../src/core/operations/read-operations.js';
import { createContext } from '../src/core/context.js';
import { agentMemoryResource } from '../src/core/operations/resources.js';
import { LibraryStore } from '../src/core/store/library.js';
import { tempDir } from './helpers/fixtures.js';
import { at } from './helpers/items.js';

const LEVELS = ['public', 'team', 'private'] as const;
type Level = (typeof LEVELS)[number];
const RANK: Record<Level, number> = { public: 0, team: 1, private: 2 };

/** A label as written (undefined: no key) and the level the rules read it as. */
const LABELS: [unknown, Level][] = [
  [undefined, 'public'],
  ['public', 'public'],
  ['TEAM', 'team'],
  [' team ', 'team'],
  ['Private', 'private'],
  ['internal', 'private'],
  ['', 'private'],
  [7, 'private'],
];
const IDS = ['plain', 'Agent-B', 'with space', 'dotted.id', 'UPPER', 'x_1'];
const CUTOFF = '2026-07-01';

/** How a row's label is written: inline, through a merge key, or inline over a merged other label. */
const LABEL_WAYS = ['inline', 'merged', 'override'] as const;
const labelWay = fc.record({ way: fc.constantFrom(...LABEL_WAYS), other: fc.nat({ max: LABELS.length - 1 }) });
type LabelWay = { way: (typeof LABEL_WAYS)[number]; other: number };

interface SessionSpec {
  /** The date as it appears in the YAML text (quoted or bare). */
  yaml: string;
  /** The calendar day the rules read, or null when undated. */
  day: string | null;
  label: number;
  written: LabelWay;
}

const sessionDate: fc.Arbitrary<Omit<SessionSpec, 'label' | 'written'>> = fc.oneof(
  fc.integer({ min: 1, max: 28 }).map((d) => {
    const day = `2026-06-${String(d).padStart(2, '0')}`;
    return { yaml: `'${day}'`, day };
  }),
  fc.integer({ min: 1, max: 30 }).map((d) => {
    const day = `2026-09-${String(d).padStart(2, '0')}`;
    return { yaml: day, day }; // unquoted: YAML reads it as text here, not as a date object
  }),
  fc
    .integer({ min: 0, max: 23 })
    .map((h) => ({ yaml: `2026-08-21T${String(h).padStart(2, '0')}:30:00Z`, day: '2026-08-21' })),
  fc.constant({ yaml: "'2026-07-01 23:59-05:00'", day: '2026-07-01' }),
  fc.constantFrom("'2026-13-01'", "'2026-09-31'", "'2026-02-30'", 'soon').map((yaml) => ({ yaml, day: null })),
);

const manifestSpec = fc.record({
  entities: fc.array(
    fc.record({
      numeric: fc.boolean(),
      pad: fc.constantFrom('', ' ', '\t', '  '),
      label: fc.nat({ max: LABELS.length - 1 }),
      written: labelWay,
      tags: fc.array(fc.oneof(fc.stringMatching(/^[a-z]{1,6}$/), fc.integer(), fc.boolean(), fc.constant(null)), {
        maxLength: 4,
      }),
    }),
    { maxLength: 4 },
  ),
  sessions: fc.array(
    fc
      .record({ date: sessionDate, label: fc.nat({ max: LABELS.length - 1 }), written: labelWay })
      .map(({ date, label, written }): SessionSpec => ({ ...date, label, written })),
    { maxLength: 5 },
  ),
});

const librarySpec = fc
  .uniqueArray(fc.nat({ max: IDS.length - 1 }), { minLength: 1, maxLength: 4 })
  .chain((ids) => fc.tuple(fc.constant(ids), fc.array(manifestSpec, { minLength: ids.length, maxLength: ids.length })));

/** Anchors for every label that has a value, one line each, for rows to merge (`<<: *l3`). */
const LABEL_ANCHORS = LABELS.flatMap(([written], i) =>
  written === undefined ? [] : [`l${i}: &l${i} {visibility: ${JSON.stringify(written)}}`],
);

/** The label's part of a flow mapping, and the level the rules read from it. */
function labelLine(label: number, { way, other }: LabelWay): { text: string; level: Level } {
  const [written, level] = at(LABELS, label, 'a label');
  const inline = written === undefined ? '' : `, visibility: ${JSON.stringify(written)}`;
  const merge = (index: number) => (at(LABELS, index, 'a label')[0] === undefined ? '' : `, <<: *l${index}`);
  if (way === 'inline') return { text: inline, level };
  if (way === 'merged') return { text: merge(label), level };
  // An explicit key wins over a merged one; without one, the merged label is the row's.
  return {
    text: `${merge(other)}${inline}`,
    level: written === undefined ? at(LABELS, other, 'a label')[1] : level,
  };
}

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
});

describe('the store over manifests with odd ids, labels, dates, names and tags', () => {
  it('serves every row the rules allow at a level, and none above it', async () => {
    await fc.assert(
      fc.asyncProperty(librarySpec, async ([idIndexes, manifests]) => {
        const root = tempDir('bourdon-edge-prop-');
        roots.push(root);
        fs.mkdirSync(path.join(root, 'agents'));
        const entityRows: { agent: string; name: string; level: Level; tags: string[] }[] = [];
        const sessionRows: { agent: string; cwd: string; day: string | null; level: Level }[] = [];
        idIndexes.forEach((idIndex, m) => {
          const id = at(IDS, idIndex, 'an id');
          const spec = at(manifests, m, 'a manifest spec');
          const lines = [
            "spec_version: '0.1'",
            `agent: {id: ${JSON.stringify(id)}, type: other}`,
            ...LABEL_ANCHORS,
            'known_entities:',
          ];
          spec.entities.forEach((entity, e) => {
            const name = entity.numeric ? String(1000 * (m + 1) + e) : `Thing ${m} ${e}`;
            const written = entity.numeric ? name : JSON.stringify(`${entity.pad}${name}${entity.pad}`);
            const label = labelLine(entity.label, entity.written);
            lines.push(`  - {name: ${written}, tags: ${JSON.stringify(entity.tags)}${label.text}}`);
            const tags = entity.tags.filter((tag): tag is string => typeof tag === 'string');
            entityRows.push({ agent: id, name, level: label.level, tags: [...new Set(tags)] });
          });
          lines.push('recent_sessions:');
          spec.sessions.forEach((session, s) => {
            const cwd = `/m${m}/s${s}`;
            const label = labelLine(session.label, session.written);
            lines.push(`  - {date: ${session.yaml}, cwd: ${cwd}${label.text}}`);
            sessionRows.push({ agent: id, cwd, day: session.day, level: label.level });
          });
          fs.writeFileSync(path.join(root, 'agents', `file-${m}.l5.yaml`), lines.join('\n') + '\n');
        });
        const ctx = createContext(new LibraryStore(root, { warn: () => {} }), { warn: () => {}, env: {} });

        for (const level of LEVELS) {
          for (const row of entityRows) {
            const { matches } = (await invoke(findEntityOperation, ctx, { name: row.name, access_level: level })) as {
              matches: { name: string; agents: string[]; tags: string[] }[];
            };
            if (RANK[row.level] <= RANK[level]) {
              expect(matches).toEqual([
                expect.objectContaining({ name: row.name, agents: [row.agent], tags: row.tags }),
              ]);
            } else {
              expect(matches).toEqual([]);
            }
          }
          const listed = (await invoke(listRecentWorkOperation, ctx, {
            since: CUTOFF,
            access_level: level,
            limit: 100,
          })) as {
            sessions: { agent: string; cwd: string }[];
          };
          const want = sessionRows
            .filter((row) => row.day !== null && row.day >= CUTOFF && RANK[row.level] <= RANK[level])
            .map((row) => `${row.agent} ${row.cwd}`)
            .sort();
          expect(listed.sessions.map((row) => `${row.agent} ${row.cwd}`).sort()).toEqual(want);
        }

        // The memory resource (public) carries only public rows, and every one of them.
        for (const idIndex of idIndexes) {
          const id = at(IDS, idIndex, 'an id');
          const memory = (await agentMemoryResource(ctx, id)) as {
            known_entities: unknown[];
            recent_sessions: { cwd: string }[];
          };
          const publicSessions = sessionRows.filter((row) => row.agent === id && row.level === 'public');
          expect(memory.recent_sessions.map((row) => row.cwd).sort()).toEqual(
            publicSessions.map((row) => row.cwd).sort(),
          );
          const publicEntities = entityRows.filter((row) => row.agent === id && row.level === 'public');
          expect(memory.known_entities).toHaveLength(publicEntities.length);
        }
        fs.rmSync(root, { recursive: true, force: true });
      }),
      { numRuns: 60 },
    );
  });
});
