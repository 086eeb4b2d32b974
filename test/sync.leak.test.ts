/**
 * Nothing above the chosen level ever reaches the remote, in any commit: a library full of
 * private and team rows, secrets, unknown fields, a broken manifest, history, staging and
 * pulled copies is pushed with the real binary and the real git, then every object of the
 * remote is read back and searched for each marker.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/fixtures.js';
import { allObjects, bareRemote, gitSync, makeMachine, type Machine } from './helpers/sync.js';

const PRIVATE = ['PRIVATE_ENTITY_MARKER', 'PRIVATE_SESSION_MARKER', 'PRIVATE_NOTE_MARKER', 'UNKNOWN_LABEL_MARKER'];
const TEAM = ['TEAM_ENTITY_MARKER', 'TEAM_NOTE_MARKER'];
const SECRETS = [
  'sk-proj-Abcdefghij1234567890XYZ',
  'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
  'AKIAABCDEFGHIJKLMNOP',
  'hunter2-the-password',
  'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0',
];
const NEVER = [
  'UNKNOWN_FIELD_MARKER',
  'POLICY_MARKER',
  'BROKEN_MANIFEST_MARKER',
  'HISTORY_MARKER',
  'STAGING_MARKER',
  'PULLED_COPY_MARKER',
  'AUDIT_MARKER',
  'REGISTRY_MARKER',
  'LINK_MARKER_TOKEN',
];

const MANIFEST = `spec_version: "0.1"
agent:
  id: codex
  type: code-assistant
  role_narrative: Lead author
  x_unknown: UNKNOWN_FIELD_MARKER
last_updated: "2026-11-30T10:00:00Z"
visibility_policy: {default: public, x_note: POLICY_MARKER}
extra_top_level: UNKNOWN_FIELD_MARKER
known_entities:
  - name: Orbit
    type: project
    summary: The public sync engine
    secret_field: UNKNOWN_FIELD_MARKER
  - name: Vault
    summary: "OPENAI_API_KEY=${SECRETS[0]}"
  - name: Tokens
    summary: "the deploy token is ${SECRETS[1]}"
    aliases: ["${SECRETS[2]}", "password is ${SECRETS[3]}"]
    tags: ["${SECRETS[4]}"]
  - name: Links
    summary: "see https://example.com/?access=LINK_MARKER_TOKEN for details"
  - name: Hidden
    summary: PRIVATE_ENTITY_MARKER
    visibility: private
  - name: Weird label
    summary: UNKNOWN_LABEL_MARKER
    visibility: internal
  - name: Teamwork
    summary: TEAM_ENTITY_MARKER
    visibility: TEAM
recent_sessions:
  - date: "2026-11-30"
    cwd: /work/orbit
    key_actions: [shipped the public release]
  - date: "2026-11-29"
    key_actions: [PRIVATE_SESSION_MARKER]
    visibility: private
notes:
  - date: "2026-11-30"
    text: public note
  - date: "2026-11-30"
    text: PRIVATE_NOTE_MARKER
    visibility: private
  - date: "2026-11-30"
    text: TEAM_NOTE_MARKER
    visibility: team
`;

function grep(text: string, markers: readonly string[]): string[] {
  return markers.filter((marker) => text.includes(marker));
}

describe('sync push publishes nothing above its level, in any commit', () => {
  let laptop: Machine;
  let remote: string;

  beforeAll(async () => {
    remote = bareRemote();
    laptop = makeMachine('laptop');
    const lib = laptop.library;
    laptop.writeManifest('codex', MANIFEST);
    laptop.writeManifest(
      'broken',
      'agent:\n  id: broken\n  role: [BROKEN_MANIFEST_MARKER\nprivate: PRIVATE_ENTITY_MARKER\n',
    );
    fs.mkdirSync(path.join(lib, 'history', 'codex'), { recursive: true });
    fs.writeFileSync(path.join(lib, 'history', 'codex', '1.l5.yaml'), 'HISTORY_MARKER\n');
    fs.mkdirSync(path.join(lib, 'staging', 'openclaw'), { recursive: true });
    fs.writeFileSync(
      path.join(lib, 'staging', 'openclaw', 'openclaw.l5.yaml'),
      'agent: {id: openclaw}\nSTAGING_MARKER: 1\n',
    );
    fs.mkdirSync(path.join(lib, 'pulled', 'desk', 'agents'), { recursive: true });
    fs.writeFileSync(
      path.join(lib, 'pulled', 'desk', 'publication.json'),
      JSON.stringify({ machine: 'desk', access_level: 'public' }),
    );
    fs.writeFileSync(path.join(lib, 'pulled', 'desk', 'agents', 'cursor.l5.yaml'), simplePulled());
    fs.writeFileSync(path.join(laptop.home, 'audit.jsonl'), '{"AUDIT_MARKER":1}\n');
    fs.writeFileSync(path.join(laptop.home, 'federation.yaml'), 'members: [REGISTRY_MARKER]\n');
    const init = await laptop.run(['sync', 'init', remote]);
    expect(init.code, init.stderr).toBe(0);
  });

  it('public: no team or private row, no secret, nothing but the manifests', async () => {
    const push = await laptop.run(['sync', 'push']);
    expect(push.code, push.stderr).toBe(0);
    // The broken manifest is named, with its reason, and skipped.
    expect(push.stderr).toMatch(/not published: agents\/broken\.l5\.yaml: /);
    const objects = allObjects(remote);
    expect(objects).toContain('The public sync engine'); // the search can find what is there
    expect(grep(objects, [...PRIVATE, ...TEAM, ...SECRETS, ...NEVER])).toEqual([]);
    const files = gitSync(['ls-tree', '-r', '--name-only', 'main'], remote).trim().split('\n');
    expect(files.sort()).toEqual(['machines/laptop/agents/codex.l5.yaml', 'machines/laptop/publication.json']);
  });

  it('team: team rows join, private rows and secrets still never do, in any commit', async () => {
    const push = await laptop.json<{ pushed: boolean; access_level: string }>([
      'sync',
      'push',
      '--access-level',
      'team',
    ]);
    expect(push).toMatchObject({ pushed: true, access_level: 'team' });
    const commits = gitSync(['rev-list', '--all'], remote).trim().split('\n');
    expect(commits).toHaveLength(2);
    const objects = allObjects(remote);
    expect(grep(objects, TEAM)).toEqual(TEAM);
    expect(grep(objects, [...PRIVATE, ...SECRETS, ...NEVER])).toEqual([]);
  });

  it('private is refused: private rows never leave the machine', async () => {
    const push = await laptop.run(['sync', 'push', '--access-level', 'private']);
    expect(push.code).toBe(2);
  });

  it('the published tree is a library the Python engine reads after a plain git clone', () => {
    const clone = path.join(tempDir('bourdon-sync-clone-'), 'clone');
    execFileSync('git', ['clone', '-q', remote, clone]);
    const read = execFileSync(
      'python3',
      [
        '-c',
        `import sys, yaml, glob
for f in sorted(glob.glob(sys.argv[1] + '/machines/*/agents/*.l5.yaml')):
    d = yaml.safe_load(open(f, encoding='utf-8'))
    print(d['agent']['id'], len(d['known_entities']), len(d['recent_sessions']), len(d['notes']), sorted({e.get('visibility') for e in d['known_entities']}))`,
        clone,
      ],
      { encoding: 'utf8' },
    );
    // Orbit, Vault, Tokens, Links, Teamwork; one session; the public and the team note.
    expect(read.trim()).toBe("codex 5 1 2 ['public', 'team']");
  });

  it('the commit message names the machine and what changed', () => {
    const log = gitSync(['log', '--format=%s%n%b', 'main'], remote);
    expect(log).toContain('laptop: publish 1 agent at team (1 changed)');
    expect(log).toContain('laptop: publish 1 agent at public (1 added)');
    expect(log).toMatch(/added +codex: 4 entities, 1 session, 1 note/);
  });
});

function simplePulled(): string {
  return 'agent:\n  id: cursor\n  type: other\nknown_entities:\n  - name: PULLED_COPY_MARKER\n';
}
