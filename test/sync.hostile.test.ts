/**
 * Issue 41: what a hostile remote, a teammate, or a link in the library can do to sync. Real
 * git, the real binary: a `pulled` folder that is a link, links inside it, a directory where
 * this machine's manifest belongs, a path git will not check out, two machines publishing
 * under one name, and rows dated years ahead.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers/fixtures.js';
import {
  bareRemote,
  commitUncheckoutablePath,
  gitSync,
  makeMachine,
  remoteHead,
  simpleManifest,
  snapshotTree,
} from './helpers/sync.js';

/** A folder outside every library, with files a clean-up must never reach. */
function victimFolder(): { dir: string; before: Record<string, string> } {
  const dir = tempDir('bourdon-sync-victim-');
  fs.writeFileSync(path.join(dir, 'precious.txt'), 'keep me\n');
  fs.mkdirSync(path.join(dir, 'photos'));
  fs.writeFileSync(path.join(dir, 'photos', 'one.jpg'), 'jpeg');
  return { dir, before: snapshotTree(dir) };
}

describe('sync against a hostile library folder or remote', () => {
  it('a `pulled` folder that is a link: pull refuses in one line and removes nothing anywhere', async () => {
    const remote = bareRemote();
    const laptop = makeMachine('laptop');
    const desk = makeMachine('desk');
    laptop.writeManifest('codex', simpleManifest('codex', 'Orbit'));
    for (const machine of [laptop, desk]) expect((await machine.run(['sync', 'init', remote])).code).toBe(0);
    expect((await laptop.run(['sync', 'push'])).code).toBe(0);
    const victim = victimFolder();
    fs.symlinkSync(victim.dir, path.join(desk.library, 'pulled'));
    const pull = await desk.run(['sync', 'pull']);
    expect(pull.code).not.toBe(0);
    expect(pull.stderr.trim().split('\n')).toHaveLength(1);
    expect(pull.stderr).toMatch(/symbolic link .*pulled.*nothing was pulled/);
    expect(snapshotTree(victim.dir)).toEqual(victim.before);
  });

  it('links inside `pulled` are never written through or emptied', async () => {
    const remote = bareRemote();
    const laptop = makeMachine('laptop');
    const desk = makeMachine('desk');
    laptop.writeManifest('codex', simpleManifest('codex', 'Orbit'));
    for (const machine of [laptop, desk]) expect((await machine.run(['sync', 'init', remote])).code).toBe(0);
    expect((await laptop.run(['sync', 'push'])).code).toBe(0);
    expect((await desk.run(['sync', 'pull'])).code).toBe(0);
    // The pulled manifest and mark become links to files outside; a gone machine's folder a link to a folder.
    const outside = tempDir('bourdon-sync-outside-');
    const target = path.join(outside, 'target.yaml');
    const markTarget = path.join(outside, 'mark.json');
    fs.writeFileSync(target, 'OUTSIDE\n');
    fs.writeFileSync(markTarget, 'OUTSIDE MARK\n');
    const pulled = path.join(desk.library, 'pulled', 'laptop');
    fs.rmSync(path.join(pulled, 'agents', 'codex.l5.yaml'));
    fs.symlinkSync(target, path.join(pulled, 'agents', 'codex.l5.yaml'));
    fs.rmSync(path.join(pulled, 'publication.json'));
    fs.symlinkSync(markTarget, path.join(pulled, 'publication.json'));
    const victim = victimFolder();
    fs.symlinkSync(victim.dir, path.join(desk.library, 'pulled', 'gone'));
    laptop.writeManifest('codex', simpleManifest('codex', 'Orbit', 'changed on the laptop'));
    expect((await laptop.run(['sync', 'push'])).code).toBe(0);
    const pull = await desk.run(['sync', 'pull']);
    expect(pull.code, pull.stderr).toBe(0);
    expect(fs.readFileSync(target, 'utf8')).toBe('OUTSIDE\n');
    expect(fs.readFileSync(markTarget, 'utf8')).toBe('OUTSIDE MARK\n');
    expect(snapshotTree(victim.dir)).toEqual(victim.before);
    expect(fs.lstatSync(path.join(pulled, 'agents', 'codex.l5.yaml')).isFile()).toBe(true);
    expect(fs.readFileSync(path.join(pulled, 'agents', 'codex.l5.yaml'), 'utf8')).toContain('changed on the laptop');
  });

  it("a directory at this machine's manifest path: the next push repairs its folder", async () => {
    const remote = bareRemote();
    const laptop = makeMachine('laptop');
    laptop.writeManifest('codex', simpleManifest('codex', 'Orbit'));
    expect((await laptop.run(['sync', 'init', remote])).code).toBe(0);
    expect((await laptop.run(['sync', 'push'])).code).toBe(0);
    // A teammate replaces the manifest with a folder, and drops a stray file beside it.
    const clone = path.join(tempDir('bourdon-sync-rogue-'), 'clone');
    gitSync(['clone', '-q', remote, clone]);
    const manifest = path.join(clone, 'machines/laptop/agents/codex.l5.yaml');
    fs.rmSync(manifest);
    fs.mkdirSync(manifest);
    fs.writeFileSync(path.join(manifest, 'inside.txt'), 'a folder now');
    fs.writeFileSync(path.join(clone, 'machines/laptop/stray.txt'), 'not the laptop’s');
    gitSync(['add', '-A'], clone);
    gitSync(['-c', 'user.name=rogue', '-c', 'user.email=rogue@example.com', 'commit', '-q', '-m', 'a folder'], clone);
    gitSync(['push', '-q', 'origin', 'HEAD:main'], clone);
    const push = await laptop.run(['sync', 'push']);
    expect(push.code, push.stderr).toBe(0);
    expect(gitSync(['ls-tree', '-r', '--name-only', 'main', 'machines/laptop/'], remote).trim().split('\n')).toEqual([
      'machines/laptop/agents/codex.l5.yaml',
      'machines/laptop/publication.json',
    ]);
    expect(gitSync(['show', 'main:machines/laptop/agents/codex.l5.yaml'], remote)).toContain('Orbit');
    const again = await laptop.run(['sync', 'push']);
    expect(again.code, again.stderr).toBe(0);
  });

  it('a path git will not check out (`.git/config`) elsewhere in the tree: push still works', async () => {
    const remote = bareRemote();
    const laptop = makeMachine('laptop');
    const desk = makeMachine('desk');
    laptop.writeManifest('codex', simpleManifest('codex', 'Orbit'));
    desk.writeManifest('cursor', simpleManifest('cursor', 'Desk work'));
    for (const machine of [laptop, desk]) expect((await machine.run(['sync', 'init', remote])).code).toBe(0);
    expect((await laptop.run(['sync', 'push'])).code).toBe(0);
    commitUncheckoutablePath(remote, '.git', 'config', '[core]\n\thooksPath = /tmp/evil\n');
    const push = await desk.run(['sync', 'push']);
    expect(push.code, push.stderr).toBe(0);
    const files = gitSync(['ls-tree', '-r', '--name-only', 'main'], remote).trim().split('\n');
    expect(files).toContain('machines/desk/agents/cursor.l5.yaml');
    // Not this machine's to remove: the teammate's entry and the laptop's folder stay as they were.
    expect(files).toContain('.git/config');
    expect(files).toContain('machines/laptop/agents/codex.l5.yaml');
    desk.writeManifest('cursor', simpleManifest('cursor', 'Desk work', 'a second push'));
    expect((await desk.run(['sync', 'push'])).code).toBe(0);
    const doctor = await desk.run(['doctor']);
    expect(doctor.stdout).toMatch(/ok\s+sync remote/);
  });

  it('two libraries under one machine name: the second push is refused with the fix; status and doctor say so', async () => {
    const remote = bareRemote();
    const first = makeMachine('twin');
    const second = makeMachine('twin');
    first.writeManifest('codex', simpleManifest('codex', 'First'));
    second.writeManifest('copilot-cli', simpleManifest('copilot-cli', 'Second'));
    for (const machine of [first, second]) expect((await machine.run(['sync', 'init', remote])).code).toBe(0);
    expect((await first.run(['sync', 'push'])).code).toBe(0);
    const head = remoteHead(remote);
    const push = await second.run(['sync', 'push']);
    expect(push.code).not.toBe(0);
    expect(push.stderr.trim().split('\n')).toHaveLength(1);
    expect(push.stderr).toMatch(/belongs to another library.*BOURDON_LOCAL_NAME/);
    expect(remoteHead(remote)).toBe(head);
    expect(gitSync(['show', 'main:machines/twin/agents/codex.l5.yaml'], remote)).toContain('First');
    const status = await second.json<{ push_blocked: string | null }>(['sync', 'status']);
    expect(status.push_blocked).toMatch(/BOURDON_LOCAL_NAME/);
    expect((await second.run(['sync', 'status'])).stdout).toMatch(/cannot push: .*BOURDON_LOCAL_NAME/);
    const doctor = await second.run(['doctor']);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/sync remote.*cannot push/);
    // The owner itself pushes on; under a name of its own, the second machine does too.
    expect((await first.json<{ push_blocked: string | null }>(['sync', 'status'])).push_blocked).toBeNull();
    const renamed = await second.run(['sync', 'push'], { BOURDON_LOCAL_NAME: 'twin-2' });
    expect(renamed.code, renamed.stderr).toBe(0);
  });

  it('rows another machine dates after tomorrow are not served after a pull', async () => {
    const remote = bareRemote();
    const laptop = makeMachine('laptop');
    const desk = makeMachine('desk');
    laptop.writeManifest(
      'codex',
      simpleManifest('codex', 'Orbit') +
        '  - date: "2099-01-01"\n    cwd: /future\n    project_focus: [Pinned]\n    key_actions: [from the future]\n' +
        'notes:\n  - date: "2099-01-01"\n    text: a note from the future\n  - date: "2026-11-30"\n    text: a real note\n',
    );
    for (const machine of [laptop, desk]) expect((await machine.run(['sync', 'init', remote])).code).toBe(0);
    expect((await laptop.run(['sync', 'push'])).code).toBe(0);
    expect((await desk.run(['sync', 'pull'])).code).toBe(0);
    const recent = await desk.json<{ sessions: { date: string }[] }>(['recent', '--since', '2026-01-01']);
    expect(recent.sessions.map((session) => session.date)).toEqual(['2026-11-30']);
    const notes = await desk.json<{ notes: { text: string }[] }>(['list-notes', '--since', '2026-01-01']);
    expect(notes.notes.map((note) => note.text)).toEqual(['a real note']);
  });
});
