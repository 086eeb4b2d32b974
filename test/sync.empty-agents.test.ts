/**
 * A push leaves out the agents with no rows at its level (issue 44, item 7): published, each
 * showed as an empty agent on every other machine. One line says which; `--json` lists them as
 * `empty`; one that had rows and has none now leaves the remote. Real git, the real binary.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { bareRemote, makeMachine, simpleManifest, type Machine } from './helpers/sync.js';

/** A manifest whose only rows are team rows: nothing of it is public. */
function teamOnlyManifest(id: string): string {
  return `spec_version: "0.1"
agent:
  id: ${id}
  type: code-assistant
known_entities:
  - name: Internal
    summary: team only
    visibility: team
`;
}

async function pulledAgents(machine: Machine): Promise<string[]> {
  expect((await machine.run(['sync', 'pull'])).code).toBe(0);
  const payload = await machine.json<{ agents: string[] }>(['agents']);
  return payload.agents.filter((id) => id.startsWith('sync:')).sort();
}

describe('sync push and agents with no rows at the level', () => {
  let laptop: Machine;
  let desk: Machine;

  beforeAll(async () => {
    const remote = bareRemote();
    laptop = makeMachine('laptop');
    desk = makeMachine('desk');
    laptop.writeManifest('codex', simpleManifest('codex', 'Orbit'));
    laptop.writeManifest('cursor', teamOnlyManifest('cursor'));
    laptop.writeManifest('blank', 'spec_version: "0.1"\nagent:\n  id: blank\n');
    for (const machine of [laptop, desk]) expect((await machine.run(['sync', 'init', remote])).code).toBe(0);
  });

  it('publishes only the agents with rows, says which were left out in one line, and the other machine sees no empty agent', async () => {
    const push = await laptop.run(['sync', 'push'], { COLUMNS: '200' });
    expect(push.code, push.stderr).toBe(0);
    const lines = push.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^published 1 agent of laptop at public/);
    expect(lines.filter((line) => line.includes('no rows'))).toEqual([
      'not published, no rows at public: 2 agents (blank, cursor)',
    ]);
    expect(await pulledAgents(desk)).toEqual(['sync:laptop:codex']);

    // At team, cursor's rows go; the one with no rows at all stays home.
    const team = await laptop.json<{ agents: number; empty: string[] }>(['sync', 'push', '--access-level', 'team']);
    expect(team).toMatchObject({ agents: 2, empty: ['blank'] });
    expect(await pulledAgents(desk)).toEqual(['sync:laptop:codex', 'sync:laptop:cursor']);

    // Back at public, cursor has no rows there: it leaves the remote rather than stay empty.
    const back = await laptop.json<{ changes: { agent: string; change: string }[]; empty: string[] }>(['sync', 'push']);
    expect(back.empty).toEqual(['blank', 'cursor']);
    expect(back.changes).toContainEqual({ agent: 'cursor', change: 'removed' });
    expect(await pulledAgents(desk)).toEqual(['sync:laptop:codex']);
  }, 120_000);
});
