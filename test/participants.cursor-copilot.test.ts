/**
 * The cursor and copilot-cli participants against the engine's recorded cases, in-process
 * (test/helpers/participant-cases.ts reads them): exported with the case's clock, hostname and
 * environment, filtered at `team` as the runner filters, and compared with the manifest the
 * engine wrote, key order included.
 */
import { describe, expect, it } from 'vitest';
import { copilotCliParticipant } from '../src/participants/copilot-cli/index.js';
import { cursorParticipant } from '../src/participants/cursor/index.js';
import type { Participant } from '../src/participants/kit/participant.js';
import {
  caseEnvironment,
  comparable,
  copyCaseHome,
  expectedManifest,
  filterAtTeam,
  recordedCases,
} from './helpers/participant-cases.js';

function keyOrder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(keyOrder);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).map(([key, inner]) => [key, keyOrder(inner)]);
  }
  return null;
}

const PARTICIPANTS: Record<string, Participant> = { cursor: cursorParticipant, copilot_cli: copilotCliParticipant };

for (const [folder, participant] of Object.entries(PARTICIPANTS)) {
  describe(`${participant.agentId} participant: the engine's recorded cases`, () => {
    const cases = recordedCases(folder);
    it('has cases to run', () => expect(cases.length).toBeGreaterThan(0));

    for (const item of cases) {
      it(item.id, async () => {
        const { home } = copyCaseHome(item);
        const result = await participant.export(caseEnvironment(item.spec, home));
        const expected = expectedManifest(item, home);
        if (!expected) {
          expect(result.manifest).toBeUndefined();
          return;
        }
        expect(result.manifest).toBeDefined();
        const ours = comparable(filterAtTeam(result.manifest!), item.spec.unordered);
        const theirs = comparable(expected, item.spec.unordered);
        expect(ours).toEqual(theirs);
        // The engine's key order too (a YAML reader does not care; a diff of two exports does).
        expect(keyOrder(ours)).toEqual(keyOrder(theirs));
        expect(result.warnings).toEqual([]);
      });
    }
  });
}
