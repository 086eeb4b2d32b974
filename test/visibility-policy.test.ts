/**
 * Privacy follows the source (issue 50, D19): a manifest's `visibility_policy` decides the level
 * of each row it holds — `default` for a row that declares none, `private_tags` over the row's
 * own label, `team_tags` where it has none. Checked through every kind of surface with the real
 * binary: the CLI (cold, then from the parsed cache), a real MCP client over stdio (tools and
 * the memory resource) and `sync push` to a real git remote, whose every object is read back.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, REPO_ROOT, tempDir } from './helpers/fixtures.js';
import { callJson, readJsonResource, stdioClient, type StdioClient } from './helpers/mcp.js';
import { allObjects, bareRemote, makeMachine, type Machine } from './helpers/sync.js';

const MANIFEST = `spec_version: "0.1"
agent:
  id: journal
  type: note-capture
last_updated: "2026-11-30T10:00:00Z"
visibility_policy:
  default: team
  private_tags: [personal]
known_entities:
  - name: Harbour
    summary: SHOWN_MARKER
    visibility: public
  - name: Lighthouse
    summary: UNLABELLED_MARKER
  - name: Diary
    summary: PERSONAL_MARKER
    tags: [Personal]
    visibility: public
recent_sessions:
  - date: "2026-11-30"
    cwd: /work/harbour
    key_actions: [SHOWN_SESSION_MARKER]
    visibility: public
  - date: "2026-11-29"
    cwd: /work/lighthouse
    key_actions: [UNLABELLED_SESSION_MARKER]
notes:
  - date: "2026-11-30"
    text: UNLABELLED_NOTE_MARKER
`;

let machine: Machine;

beforeAll(() => {
  machine = makeMachine('laptop');
  machine.writeManifest('journal', MANIFEST);
});

type Find = { matches: { name: string }[] };
const names = (payload: unknown) => (payload as Find).matches.map((match) => match.name);

describe('the CLI reads each row at the level its manifest’s policy gives it', () => {
  it('an unlabelled row is team (default: team); a personal-tagged row labelled public is private', async () => {
    // Twice: the first read parses the manifest, the second answers from the parsed cache.
    for (let pass = 0; pass < 2; pass++) {
      expect(names(await machine.json(['find', 'Lighthouse']))).toEqual([]);
      expect(names(await machine.json(['find', 'Lighthouse', '--access-level', 'team']))).toEqual(['Lighthouse']);
      expect(names(await machine.json(['find', 'Diary', '--access-level', 'team']))).toEqual([]);
      expect(names(await machine.json(['find', 'Diary', '--access-level', 'private']))).toEqual(['Diary']);
      expect(names(await machine.json(['find', 'Harbour']))).toEqual(['Harbour']);
      const recent = await machine.json<{ sessions: { cwd: string }[] }>(['recent', '--since', '2026-11-01']);
      expect(recent.sessions.map((session) => session.cwd)).toEqual(['/work/harbour']);
      const team = await machine.json<{ sessions: { cwd: string }[] }>([
        'recent',
        '--since',
        '2026-11-01',
        '--access-level',
        'team',
      ]);
      expect(team.sessions.map((session) => session.cwd)).toEqual(['/work/harbour', '/work/lighthouse']);
    }
  });
});

describe('an MCP client sees the same', () => {
  let server: StdioClient;

  beforeAll(async () => {
    server = await stdioClient({
      args: [BIN, 'serve', '--library', machine.library],
      cwd: REPO_ROOT,
      env: { ...(process.env as Record<string, string>), ...machine.env },
    });
  }, 60_000);

  afterAll(async () => {
    await server?.client.close();
  });

  it('find_entity, list_recent_work and the memory resource at public; find_entity at team', async () => {
    const { client } = server;
    expect(names(await callJson(client, 'find_entity', { name: 'Lighthouse' }))).toEqual([]);
    expect(names(await callJson(client, 'find_entity', { name: 'Lighthouse', access_level: 'team' }))).toEqual([
      'Lighthouse',
    ]);
    expect(names(await callJson(client, 'find_entity', { name: 'Diary', access_level: 'team' }))).toEqual([]);
    expect(names(await callJson(client, 'find_entity', { name: 'Diary', include_private: true }))).toEqual(['Diary']);
    const recent = (await callJson(client, 'list_recent_work', { since: '2026-11-01' })) as {
      sessions: { cwd: string }[];
    };
    expect(recent.sessions.map((session) => session.cwd)).toEqual(['/work/harbour']);
    const memory = JSON.stringify(await readJsonResource(client, 'agent-library://agents/journal/memory'));
    expect(memory).toContain('SHOWN_MARKER');
    for (const marker of [
      'UNLABELLED_MARKER',
      'PERSONAL_MARKER',
      'UNLABELLED_SESSION_MARKER',
      'UNLABELLED_NOTE_MARKER',
    ])
      expect(memory).not.toContain(marker);
    const notes = JSON.stringify(await callJson(client, 'list_notes', {}));
    expect(notes).not.toContain('UNLABELLED_NOTE_MARKER');
  });
});

describe('sync push publishes each row at the level the policy gives it', () => {
  let remote: string;

  beforeAll(async () => {
    remote = bareRemote();
    const init = await machine.run(['sync', 'init', remote]);
    expect(init.code, init.stderr).toBe(0);
  });

  it('at public: neither the unlabelled rows nor the personal-tagged one reach the remote', async () => {
    const push = await machine.run(['sync', 'push']);
    expect(push.code, push.stderr).toBe(0);
    const objects = allObjects(remote);
    expect(objects).toContain('SHOWN_MARKER');
    expect(objects).toContain('SHOWN_SESSION_MARKER');
    for (const marker of [
      'UNLABELLED_MARKER',
      'PERSONAL_MARKER',
      'UNLABELLED_SESSION_MARKER',
      'UNLABELLED_NOTE_MARKER',
    ])
      expect(objects).not.toContain(marker);
  });

  it('at team: the unlabelled rows join, labelled team (the copy carries no policy); the personal one never does', async () => {
    const push = await machine.run(['sync', 'push', '--access-level', 'team']);
    expect(push.code, push.stderr).toBe(0);
    const objects = allObjects(remote);
    expect(objects).toContain('UNLABELLED_MARKER');
    expect(objects).toContain('UNLABELLED_NOTE_MARKER');
    expect(objects).not.toContain('PERSONAL_MARKER');
    const clone = path.join(tempDir('privacy-clone-'), 'clone');
    execFileSync('git', ['clone', '-q', remote, clone]);
    const published = fs.readFileSync(path.join(clone, 'machines', 'laptop', 'agents', 'journal.l5.yaml'), 'utf8');
    expect(published).not.toContain('visibility_policy');
    expect(published).toMatch(/name: "Lighthouse"[\s\S]*?visibility: "team"/);
  });
});
