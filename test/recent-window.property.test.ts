/**
 * `bourdon recent` reads the parsed cache's sessions only from the month its window starts in
 * (store/parsed-cache.ts): for any sessions and any window, what it answers from those parts is
 * what a store that read every manifest whole answers.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { invoke } from '../src/core/operations/invoke.js';
import { createContext } from '../src/core/context.js';
import { listRecentWorkOperation } from '../src/core/operations/read-operations.js';
import { LibraryStore } from '../src/core/store/library.js';
import { PartialLibraryStore } from '../src/core/store/partial-store.js';
import { tempDir } from './helpers/fixtures.js';

const silent = () => {};
const scratch = tempDir('bourdon-recent-window-');
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

const day = fc
  .record({ month: fc.integer({ min: 3, max: 12 }), date: fc.integer({ min: 1, max: 31 }) })
  .map(({ month, date }) => `2026-${String(month).padStart(2, '0')}-${String(date).padStart(2, '0')}`);
/** As sessions are written: days (some not real, like 2026-09-31), datetimes, and text that names no day. */
const written = fc.oneof(
  day,
  day.map((d) => `${d}T09:30:00Z`),
  day.map((d) => `${d}T23:59:59+05:00`),
  fc.constantFrom('soon', 'TBD', '2026-13-01'),
);
const sessionRow = fc.record({
  date: written,
  visibility: fc.constantFrom('public', 'team', 'private'),
  project: fc.constantFrom('alpha', 'beta'),
});

let run = 0;
describe('recent from the months its window reaches', () => {
  it('answers as the whole library does, for any sessions and any window', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(sessionRow, { maxLength: 12 }), { minLength: 1, maxLength: 3 }),
        day,
        fc.constantFrom('public', 'team', 'private'),
        async (agents, since, level) => {
          run += 1;
          const root = path.join(scratch, `lib-${run}`);
          const cachePath = path.join(scratch, `cache-${run}`);
          fs.mkdirSync(path.join(root, 'agents'), { recursive: true });
          agents.forEach((rows, i) => {
            const sessions = rows
              .map(
                (row, n) =>
                  `- date: '${row.date}'\n  cwd: /w${n}\n  visibility: ${row.visibility}\n  project_focus: [${row.project}]\n`,
              )
              .join('');
            fs.writeFileSync(
              path.join(root, 'agents', `agent-${i}.l5.yaml`),
              `spec_version: '0.1'\nagent:\n  id: agent-${i}\n  type: other\nrecent_sessions:\n${sessions || '[]\n'}`,
            );
          });
          const input = { since, limit: 100, access_level: level };
          const whole = await invoke(
            listRecentWorkOperation,
            createContext(new LibraryStore(root, { warn: silent }), { warn: silent }),
            input,
          );
          const options = { warn: silent, cachePath };
          const view = { sessionsSince: since };
          // The first read parses and writes the entries; the second answers from the month parts.
          for (let pass = 0; pass < 2; pass++) {
            const ctx = createContext(new PartialLibraryStore(root, view, options), { warn: silent });
            expect(await invoke(listRecentWorkOperation, ctx, input)).toEqual(whole);
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
