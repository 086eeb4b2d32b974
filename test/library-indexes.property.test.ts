/**
 * The library-wide name index (store/library-indexes.ts) is derived from the previous
 * snapshot's when a few agents change (only the changed keys are new; they are merged into a
 * new full map once they are many): after any sequence of agents added, replaced and removed,
 * it names exactly the agents a per-agent lookup finds, in the same order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { agentIndex } from '../src/core/store/indexes.js';
import { entityHolders } from '../src/core/store/library-indexes.js';
import { parseManifest, type AgentRecord } from '../src/core/store/library.js';

const NAMES = ['Alpha', 'beta', 'Gamma', 'delta', 'ALPHA', 'Epsilon'];

function agentRecord(id: string, entities: { name: string; alias: string | null }[]): AgentRecord {
  const rows = entities
    .map((e) => `- name: ${e.name}\n  type: project\n${e.alias ? `  aliases: [${e.alias}]\n` : ''}`)
    .join('');
  const text = `agent:\n  id: ${id}\n  type: other\nknown_entities:${rows ? `\n${rows}` : ' []\n'}`;
  return parseManifest(text, `${id}.l5.yaml`, `/nowhere/${id}.l5.yaml`);
}

const idOf = (n: number) => `agent-${String(n).padStart(3, '0')}`;

/**
 * Any sequence of agents added, replaced and removed (a snapshot after each) over `pool`: the
 * index names exactly the agents a per-agent lookup finds, in the same order.
 */
function answersAsPerAgentLookup(pool: readonly string[], perAgent: number, changeCount: number) {
  const row = fc.record({ name: fc.constantFrom(...pool), alias: fc.option(fc.constantFrom(...pool)) });
  return fc.property(
    fc.array(fc.array(row, { maxLength: perAgent }), { minLength: 33, maxLength: 60 }),
    fc.array(fc.record({ agent: fc.nat(70), remove: fc.boolean(), entities: fc.array(row, { maxLength: perAgent }) }), {
      maxLength: changeCount,
    }),
    (initial, changes) => {
      let agents = initial.map((entities, i) => agentRecord(idOf(i), entities));
      const check = () => {
        for (const name of pool) {
          const key = name.toLowerCase();
          const expected = agents.filter((agent) => agentIndex(agent).answers(key));
          expect(entityHolders(agents, key)).toEqual(expected);
        }
      };
      check();
      for (const change of changes) {
        const id = idOf(change.agent);
        const kept = agents.filter((agent) => agent.id !== id);
        agents = change.remove ? kept : [...kept, agentRecord(id, change.entities)];
        agents.sort((a, b) => (a.id < b.id ? -1 : 1));
        check();
      }
    },
  );
}

describe('library-wide name index', () => {
  it('answers as a per-agent lookup does, snapshot after snapshot', () => {
    fc.assert(answersAsPerAgentLookup(NAMES, 4, 12), { numRuns: 100 });
  });

  it('still does once the changes since the last full build are merged into a new one', () => {
    // 150 names: the changes reach the merge threshold within a few snapshots.
    const many = Array.from({ length: 150 }, (_, i) => `Name ${i}`);
    fc.assert(answersAsPerAgentLookup(many, 8, 40), { numRuns: 30 });
  });
});
