/**
 * Pulling: other machines' agents served with their provenance and never above their published
 * level, this machine's manifests never touched, each bad remote file refused on its own, and a
 * rewritten remote history refused as a whole. Real git, the real binary.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FAILURES } from '../src/core/errors.js';
import { tempDir } from './helpers/fixtures.js';
import { at } from './helpers/items.js';
import {
  bareRemote,
  commitToRemote,
  gitSync,
  makeMachine,
  signedPublication,
  simpleManifest,
  snapshotTree,
  strayKey,
  type Machine,
} from './helpers/sync.js';

interface AgentsPayload {
  agents: { agent_id?: string; id?: string }[] | string[];
}

function agentIds(payload: AgentsPayload): string[] {
  return (payload.agents as unknown[])
    .map((agent) => (typeof agent === 'string' ? agent : ((agent as { agent_id?: string }).agent_id ?? '')))
    .sort();
}

describe('sync pull', () => {
  let remote: string;
  let laptop: Machine;
  let desk: Machine;
  let ci: Machine;

  beforeAll(async () => {
    remote = bareRemote();
    laptop = makeMachine('laptop');
    desk = makeMachine('desk');
    ci = makeMachine('ci');
    // The same agent id on three machines.
    laptop.writeManifest('codex', simpleManifest('codex', 'Orbit', 'laptop says Orbit is the sync engine'));
    desk.writeManifest('codex', simpleManifest('codex', 'Orbit', 'desk says Orbit is late'));
    ci.writeManifest(
      'codex',
      simpleManifest('codex', 'Orbit', 'ci says Orbit builds') +
        'notes:\n  - date: "2026-11-30"\n    text: team-only note from ci\n    visibility: team\n',
    );
    for (const machine of [laptop, desk, ci]) {
      const init = await machine.run(['sync', 'init', remote]);
      expect(init.code, init.stderr).toBe(0);
    }
    expect((await laptop.run(['sync', 'push'])).code).toBe(0);
    expect((await ci.run(['sync', 'push', '--access-level', 'team'])).code).toBe(0);
  });

  it('serves each machine’s agent under its provenance; the same id never collides', async () => {
    const before = snapshotTree(path.join(desk.library, 'agents'));
    const pull = await desk.json<{ machines: { machine: string; added: string[] }[]; refused: unknown[] }>([
      'sync',
      'pull',
    ]);
    expect(pull.refused).toEqual([]);
    expect(pull.machines.map((machine) => [machine.machine, machine.added])).toEqual([
      ['ci', ['codex']],
      ['laptop', ['codex']],
    ]);
    // The pull never changed this machine's manifests.
    expect(snapshotTree(path.join(desk.library, 'agents'))).toEqual(before);
    const agents = await desk.json<AgentsPayload>(['agents']);
    expect(agentIds(agents)).toEqual(['codex', 'sync:ci:codex', 'sync:laptop:codex']);
    const find = await desk.json<{ matches: { agents: string[]; summaries: Record<string, string> }[] }>([
      'find',
      'Orbit',
      '--access-level',
      'team',
    ]);
    expect(find.matches[0]?.summaries).toEqual({
      codex: 'desk says Orbit is late',
      'sync:ci:codex': 'ci says Orbit builds',
      'sync:laptop:codex': 'laptop says Orbit is the sync engine',
    });
  });

  it('serves pulled rows at the levels they were published with, never above their publication', async () => {
    // ci published at team: its public entity is served at public, its team note only at team.
    const atPublic = await desk.json<{ matches: { agents: string[] }[] }>([
      'find',
      'Orbit',
      '--access-level',
      'public',
    ]);
    expect(at(atPublic.matches, 0).agents.sort()).toEqual(['codex', 'sync:ci:codex', 'sync:laptop:codex']);
    const notes = await desk.json<{ notes: { text: string }[] }>([
      'list-notes',
      '--since',
      '2026-01-01',
      '--access-level',
      'team',
    ]);
    expect(notes.notes.map((note) => note.text)).toEqual(['team-only note from ci']);
    const publicNotes = await desk.json<{ notes: unknown[] }>(['list-notes', '--since', '2026-01-01']);
    expect(publicNotes.notes).toEqual([]);
  });

  it('refuses each bad remote file with its reason and applies the rest; never reads its own folder', async () => {
    const big =
      'agent:\n  id: big\nknown_entities:\n' + '  - name: x\n    summary: ' + 'y'.repeat(8 * 1024 * 1024) + '\n';
    // evil signs what it publishes (so each file is checked on its own); the big one and the link it does not.
    const evil = {
      good:
        simpleManifest('good', 'Goodness') +
        'notes:\n  - date: "2026-11-30"\n    text: SNEAKY_TEAM_NOTE\n    visibility: team\n  - date: "2026-11-30"\n    text: SNEAKY_PRIVATE_NOTE\n    visibility: private\n',
      broken: 'agent: [unclosed\n',
      impostor: simpleManifest('someone-else', 'Impostor'),
    };
    commitToRemote(
      remote,
      {
        'machines/evil/publication.json': signedPublication('evil', evil, strayKey()),
        'machines/evil/agents/good.l5.yaml': evil.good,
        'machines/evil/agents/broken.l5.yaml': evil.broken,
        'machines/evil/agents/big.l5.yaml': big,
        'machines/evil/agents/impostor.l5.yaml': evil.impostor,
        'machines/evil/agents/link.l5.yaml': { link: '../../../../../etc/passwd' },
        'machines/evil/notes.txt': 'outside',
        'machines/liar/publication.json': JSON.stringify({ machine: 'evil', access_level: 'public' }),
        'machines/liar/agents/lie.l5.yaml': simpleManifest('lie', 'Lie'),
        'machines/desk/agents/codex.l5.yaml': simpleManifest('codex', 'Overwrite', 'a rogue copy of desk'),
        'machines/Bad Name/agents/x.l5.yaml': simpleManifest('x', 'X'),
      },
      'rogue files',
    );
    const before = snapshotTree(path.join(desk.library, 'agents'));
    const pull = await desk.run(['sync', 'pull']);
    expect(pull.code).toBe(1);
    const refusedLines = pull.stderr.split('\n').filter((line) => line.includes('refused'));
    for (const expected of [
      /machines\/evil\/agents\/broken\.l5\.yaml/,
      /machines\/evil\/agents\/big\.l5\.yaml.*the limit is/,
      /machines\/evil\/agents\/impostor\.l5\.yaml.*someone-else/,
      /machines\/evil\/agents\/link\.l5\.yaml.*not a regular file/,
      /machines\/evil\/notes\.txt.*outside/,
      /machines\/liar\/.*names machine "evil"/,
      /machines\/Bad Name\/agents\/x\.l5\.yaml/,
    ])
      expect(
        refusedLines.some((line) => expected.test(line)),
        `${expected}\n${pull.stderr}`,
      ).toBe(true);
    expect(snapshotTree(path.join(desk.library, 'agents'))).toEqual(before);
    const agents = await desk.json<AgentsPayload>(['agents']);
    expect(agentIds(agents)).toEqual(['codex', 'sync:ci:codex', 'sync:evil:good', 'sync:laptop:codex']);
    // evil published at public: its rows labelled team or private are not served, at any level.
    const evilNotes = await desk.json<{ notes: { text: string }[] }>([
      'list-notes',
      '--since',
      '2026-01-01',
      '--access-level',
      'private',
      '--agent',
      'sync:evil:good',
    ]);
    expect(evilNotes.notes).toEqual([]);
    expect(fs.existsSync(path.join(desk.library, 'pulled', 'liar'))).toBe(false);
    expect(fs.existsSync(path.join(desk.library, 'pulled', 'desk'))).toBe(false);
  });

  it('status says what is ahead, behind and when each machine last published', async () => {
    laptop.writeManifest('claude', simpleManifest('claude', 'Helm'));
    const status = await laptop.json<{
      ahead: { agent: string; change: string }[];
      behind_commits: number;
      machines: { machine: string; published_at: string | null; this_machine: boolean; behind: boolean }[];
    }>(['sync', 'status']);
    expect(status.ahead).toEqual([{ agent: 'claude', change: 'added', entities: 1, sessions: 1, notes: 0 }]);
    expect(status.behind_commits).toBe(2); // ci's push and the rogue commit; laptop's own push is not news to it
    const byName = Object.fromEntries(status.machines.map((machine) => [machine.machine, machine]));
    expect(Object.keys(byName).sort()).toEqual(['ci', 'evil', 'laptop', 'liar']);
    expect(byName.laptop?.this_machine).toBe(true);
    expect(byName.ci?.published_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(byName.ci?.behind).toBe(true);
    expect(byName.liar?.published_at).toBeNull();
    const human = await laptop.run(['sync', 'status']);
    expect(human.stdout).toContain('ahead: claude (added)');
    expect(human.stdout).toMatch(/behind: 2 commits/);
  });

  it('refuses a remote whose history was rewritten, and changes nothing', async () => {
    const pulledBefore = snapshotTree(path.join(desk.library, 'pulled'));
    // Someone force-pushes a history without the commits desk has seen.
    const clone = path.join(tempDir('bourdon-sync-force-'), 'clone');
    gitSync(['clone', '-q', remote, clone]);
    const first = gitSync(['rev-list', '--max-parents=0', 'HEAD'], clone).trim();
    gitSync(['reset', '-q', '--hard', first], clone);
    fs.writeFileSync(
      path.join(clone, 'machines', 'laptop', 'agents', 'codex.l5.yaml'),
      simpleManifest('codex', 'Forged'),
    );
    gitSync(['-c', 'user.name=f', '-c', 'user.email=f@example.com', 'commit', '-qam', 'forged history'], clone);
    gitSync(['push', '-q', '--force', 'origin', 'HEAD:main'], clone);

    const pull = await desk.run(['sync', 'pull']);
    expect(pull.code).toBe(FAILURES.conflict.exit);
    expect(pull.stderr).toMatch(/history was rewritten/);
    expect(snapshotTree(path.join(desk.library, 'pulled'))).toEqual(pulledBefore);
    const push = await desk.run(['sync', 'push']);
    expect(push.code).toBe(FAILURES.conflict.exit);
    expect(push.stderr).toMatch(/history was rewritten/);
    const status = await desk.json<{ history_rewritten: boolean }>(['sync', 'status']);
    expect(status.history_rewritten).toBe(true);

    // Accepted on purpose, the rewritten history is pulled; laptop's folder is not what laptop
    // signed, so it is refused, and the copy pulled before stays.
    const accepted = await desk.run(['sync', 'pull', '--accept-rewrite']);
    expect(accepted.code).toBe(1);
    expect(accepted.stderr).toMatch(/machine laptop refused: its folder does not match what laptop signed/);
    expect(snapshotTree(path.join(desk.library, 'pulled', 'laptop'))).toEqual(
      Object.fromEntries(
        Object.entries(pulledBefore)
          .filter(([file]) => file.startsWith('laptop/'))
          .map(([file, bytes]) => [file.slice('laptop/'.length), bytes]),
      ),
    );
    const find = await desk.json<{ matches: unknown[] }>(['find', 'Forged']);
    expect(find.matches).toEqual([]);
  });

  it('a push never writes through a link the remote put where its folder belongs', async () => {
    const otherRemote = bareRemote();
    const victim = tempDir('bourdon-sync-victim-');
    fs.writeFileSync(path.join(victim, 'codex.l5.yaml'), 'VICTIM FILE\n');
    fs.writeFileSync(path.join(victim, 'keep.txt'), 'keep\n');
    const before = snapshotTree(victim);
    const mallory = makeMachine('mallory');
    mallory.writeManifest('codex', simpleManifest('codex', 'Mine'));
    expect((await mallory.run(['sync', 'init', otherRemote])).code).toBe(0);
    commitToRemote(otherRemote, { 'machines/mallory/agents': { link: victim }, 'README.md': 'hi' }, 'a link');
    const push = await mallory.run(['sync', 'push']);
    expect(push.code, push.stderr).toBe(0);
    expect(snapshotTree(victim)).toEqual(before);
    expect(gitSync(['ls-tree', '-r', 'main', 'machines/mallory/agents/'], otherRemote)).toMatch(/^100644 blob /);
    expect(gitSync(['show', 'main:machines/mallory/agents/codex.l5.yaml'], otherRemote)).toContain('Mine');
  });
});
