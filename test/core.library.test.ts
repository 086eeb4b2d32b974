/** Loading manifests: what users put in their files, and what the store makes of it. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { invoke } from '../src/core/operations/invoke.js';
import {
  findEntityOperation,
  listRecentWorkOperation,
  prepareRecognitionContextOperation,
} from '../src/core/operations/read-operations.js';
import { createContext } from '../src/core/context.js';
import { LibraryStore } from '../src/core/store/library.js';
import { agentMemoryResource } from '../src/core/operations/resources.js';
import { BourdonError } from '../src/core/errors.js';
import { redactText, REDACTED } from '../src/core/trust/redaction.js';
import { tempDir } from './helpers/fixtures.js';
import { at } from './helpers/items.js';

const dirs: string[] = [];
function library(files: Record<string, string>): string {
  const root = tempDir();
  dirs.push(root);
  fs.mkdirSync(path.join(root, 'agents'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(root, 'agents', name), text);
  return root;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('manifest loading', () => {
  it('reads scalar list fields as one-item lists (D1)', async () => {
    const root = library({
      'a.l5.yaml':
        "agent: {id: a, type: other}\nrecent_sessions:\n  - date: '2026-06-01'\n    project_focus: Bourdon\n    key_actions: Chased flaky test\n",
    });
    const ctx = createContext(new LibraryStore(root, { warn: () => {} }));
    const payload = await invoke(listRecentWorkOperation, ctx, { since: '2026-01-01' });
    expect(payload.sessions).toEqual([
      {
        agent: 'a',
        date: '2026-06-01',
        cwd: null,
        project_focus: ['Bourdon'],
        key_actions: ['Chased flaky test'],
        files_touched: [],
      },
    ]);
  });

  it('skips a bad file with one warning and keeps answering from the others', () => {
    const warnings: string[] = [];
    const root = library({
      'good.l5.yaml': 'agent: {id: good, type: other}\n',
      'bad.l5.yaml': 'agent: [\n',
      'list.l5.yaml': '- 1\n',
    });
    const store = new LibraryStore(root, { warn: (message) => warnings.push(message) });
    const snapshot = store.snapshot();
    expect(snapshot.agents.map((agent) => agent.id)).toEqual(['good']);
    expect(snapshot.broken.map((record) => record.id).sort()).toEqual(['bad', 'list']);
    expect(warnings).toHaveLength(2);
    store.snapshot();
    expect(warnings).toHaveLength(2); // unchanged files are not parsed, nor warned about, again
  });

  it('a stray file declaring an id never hides the file named after it; without one the last by name wins', async () => {
    const warnings: string[] = [];
    const manifest = (id: string, entity: string) =>
      `agent: {id: ${id}, type: other}\nknown_entities: [{name: ${entity}}]\n`;
    const root = library({
      'codex.l5.yaml': manifest('codex', 'Real Row'),
      // sorts before and after the real file: neither hides it
      'a-dup.l5.yaml': manifest('codex', 'Stray Row'),
      'dup.l5.yaml': manifest('codex', 'Stray Row'),
      // no file named after `twin`: the engine's rule, the last by name
      'twin-1.l5.yaml': manifest('twin', 'First'),
      'twin-2.l5.yaml': manifest('twin', 'Second'),
    });
    const store = new LibraryStore(root, { warn: (message) => warnings.push(message) });
    const snapshot = store.snapshot();
    expect(snapshot.byId.get('codex')!.file).toBe('codex.l5.yaml');
    expect(snapshot.byId.get('twin')!.file).toBe('twin-2.l5.yaml');
    const ctx = createContext(store);
    expect((await invoke(findEntityOperation, ctx, { name: 'Real Row' })).matches).toHaveLength(1);
    expect((await invoke(findEntityOperation, ctx, { name: 'Stray Row' })).matches).toHaveLength(0);
    expect(warnings.filter((warning) => warning.includes('dup.l5.yaml: duplicate agent id "codex"'))).toHaveLength(2);
    expect(warnings.some((warning) => warning.includes('twin-1.l5.yaml: duplicate agent id "twin"'))).toBe(true);
  });

  it('names an id-less manifest by its file, and refuses an id that could name a path', () => {
    const root = library({
      'bare.l5.yaml': 'known_entities: [{name: X}]\n',
      'evil.l5.yaml': "agent: {id: '../../etc', type: other}\n",
    });
    const snapshot = new LibraryStore(root, { warn: () => {} }).snapshot();
    expect(snapshot.agents.map((agent) => agent.id)).toEqual(['bare']);
    expect(at(snapshot.broken, 0).error).toContain('invalid agent.id');
  });

  it('does not follow symbolic links out of the library', () => {
    const outside = tempDir();
    dirs.push(outside);
    fs.writeFileSync(path.join(outside, 'secret.l5.yaml'), 'agent: {id: secret, type: other}\n');
    const root = library({});
    fs.symlinkSync(path.join(outside, 'secret.l5.yaml'), path.join(root, 'agents', 'secret.l5.yaml'));
    const snapshot = new LibraryStore(root, { warn: () => {} }).snapshot();
    expect(snapshot.agents).toEqual([]);
    expect(at(snapshot.broken, 0).error).toContain('symbolic link');
  });

  it('sees edits, additions and removals by other processes on the next snapshot', async () => {
    const root = library({ 'a.l5.yaml': 'agent: {id: a, type: other}\nknown_entities: [{name: Old}]\n' });
    const ctx = createContext(new LibraryStore(root, { warn: () => {} }));
    expect((await invoke(findEntityOperation, ctx, { name: 'old' })).matches).toHaveLength(1);
    const file = path.join(root, 'agents', 'a.l5.yaml');
    // Same size, rewritten through a rename: only the inode tells.
    fs.writeFileSync(file + '.tmp', 'agent: {id: a, type: other}\nknown_entities: [{name: New}]\n');
    fs.renameSync(file + '.tmp', file);
    expect((await invoke(findEntityOperation, ctx, { name: 'old' })).matches).toHaveLength(0);
    expect((await invoke(findEntityOperation, ctx, { name: 'new' })).matches).toHaveLength(1);
    fs.rmSync(file);
    expect((await invoke(findEntityOperation, ctx, { name: 'new' })).matches).toHaveLength(0);
  });

  it("recognises an entity named like another entity's alias as itself, not merged with that other entity", async () => {
    const root = library({
      'a.l5.yaml':
        "agent: {id: a, type: other}\nknown_entities:\n  - {name: Satellite, aliases: [orbit], summary: 'the satellite'}\n  - {name: Orbit, summary: 'the orbit'}\n",
    });
    const ctx = createContext(new LibraryStore(root, { warn: () => {} }));
    const payload = await invoke(prepareRecognitionContextOperation, ctx, { prompt: 'what about orbit?' });
    expect(payload.prompt_context).toContain('- Satellite via a: the satellite\n- Orbit via a: the orbit\n');
    expect((await invoke(findEntityOperation, ctx, { name: 'orbit' })).matches.map((match) => match.name)).toEqual([
      'Satellite',
      'Orbit',
    ]);
  });

  it('treats an unknown visibility label as private: it never widens access', async () => {
    const root = library({
      'a.l5.yaml': 'agent: {id: a, type: other}\nknown_entities: [{name: X, visibility: internal}]\n',
    });
    const ctx = createContext(new LibraryStore(root, { warn: () => {} }));
    expect((await invoke(findEntityOperation, ctx, { name: 'x', access_level: 'team' })).matches).toHaveLength(0);
    expect((await invoke(findEntityOperation, ctx, { name: 'x', access_level: 'private' })).matches).toHaveLength(1);
  });
});

describe('raw documents (manifest resource, doctor)', () => {
  const manifest = (id: string, entity: string) =>
    `spec_version: '0.1'\nagent: {id: ${id}, type: other}\nextra: {kept: as written}\nknown_entities:\n  - {name: ${entity}, tags: solo}\n  - {name: Hidden, visibility: private}\n`;

  it('the manifest resource serves the file with its fields as written, and an edit on the next read', async () => {
    const root = library({ 'a.l5.yaml': manifest('a', 'Old') });
    const ctx = createContext(new LibraryStore(root, { warn: () => {} }));
    expect(await agentMemoryResource(ctx, 'a')).toEqual({
      spec_version: '0.1',
      agent: { id: 'a', type: 'other' },
      extra: { kept: 'as written' },
      known_entities: [{ name: 'Old', tags: ['solo'] }],
      recent_sessions: [],
    });
    fs.writeFileSync(path.join(root, 'agents', 'a.l5.yaml'), manifest('a', 'Newer'));
    expect(await agentMemoryResource(ctx, 'a')).toMatchObject({ known_entities: [{ name: 'Newer', tags: ['solo'] }] });
  });

  it('reads the file as it is now when it changed after the snapshot', () => {
    const root = library({ 'a.l5.yaml': manifest('a', 'Old') });
    const store = new LibraryStore(root, { warn: () => {} });
    const record = store.snapshot().byId.get('a')!;
    fs.writeFileSync(path.join(root, 'agents', 'a.l5.yaml'), manifest('a', 'Newer'));
    expect(store.document(record).known_entities).toEqual([
      { name: 'Newer', tags: 'solo' },
      { name: 'Hidden', visibility: 'private' },
    ]);
  });

  it.each([
    ['is no longer YAML', 'agent: [\n', /^cannot read agents\/a\.l5\.yaml again: .+ at line \d+, column \d+$/],
    ['declares another id', manifest('b', 'Old'), 'cannot read agents/a.l5.yaml again: it now declares agent id "b"'],
    ['is removed', null, 'cannot read agents/a.l5.yaml again: the file was removed'],
  ])('a file that %s after the snapshot is a one-line error, and the file is left as it is', (_, text, message) => {
    const root = library({ 'a.l5.yaml': manifest('a', 'Old') });
    const store = new LibraryStore(root, { warn: () => {} });
    const record = store.snapshot().byId.get('a')!;
    const file = path.join(root, 'agents', 'a.l5.yaml');
    if (text === null) fs.rmSync(file);
    else fs.writeFileSync(file, text);
    let thrown: unknown;
    try {
      store.document(record);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(BourdonError);
    expect((thrown as BourdonError).code).toBe('unavailable');
    expect((thrown as BourdonError).message).toMatch(message);
    expect(fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null).toBe(text);
  });

  it.skipIf(process.getuid?.() === 0)('an unreadable file is a one-line error naming no path', () => {
    const root = library({ 'a.l5.yaml': manifest('a', 'Old') });
    const store = new LibraryStore(root, { warn: () => {} });
    const record = store.snapshot().byId.get('a')!;
    const file = path.join(root, 'agents', 'a.l5.yaml');
    fs.chmodSync(file, 0o000);
    try {
      expect(() => store.document(record)).toThrow(/^cannot read agents\/a\.l5\.yaml again: permission denied$/);
    } finally {
      fs.chmodSync(file, 0o644);
    }
  });

  it('the manifest resource answers a file that became unreadable as an error, not stale rows', async () => {
    const root = library({ 'a.l5.yaml': manifest('a', 'Old') });
    const ctx = createContext(new LibraryStore(root, { warn: () => {} }));
    expect(await agentMemoryResource(ctx, 'a')).toMatchObject({ known_entities: [{ name: 'Old' }] });
    fs.writeFileSync(path.join(root, 'agents', 'a.l5.yaml'), 'agent: [\n');
    expect(await agentMemoryResource(ctx, 'a')).toEqual({ error: 'agent not found: a' });
  });
});

describe('redaction', () => {
  it.each([
    'the api_key for staging',
    'API-TOKEN here',
    'my access_token',
    'use a bearer   token',
    'Password reset flow',
    'sk_live_abc123',
    'hf_abcdefghijkl',
  ])('replaces credential-like text whole: %s', (text) => {
    expect(redactText(text)).toBe(REDACTED);
  });

  it('tidies whitespace, hides links and caps long text', () => {
    expect(redactText('  see\n\n https://x.example/a?b=1  now ')).toBe('see [link] now');
    const long = 'word '.repeat(100);
    const capped = redactText(long, 50);
    expect(capped.length).toBeLessThanOrEqual(50);
    expect(capped.endsWith('...')).toBe(true);
    expect(redactText('passwords are plural')).toBe('passwords are plural');
  });
});
