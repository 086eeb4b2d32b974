/**
 * Hostile manifests in agents/: each is skipped or refused with a warning, and queries keep
 * answering from the others.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoke } from '../src/core/operations/invoke.js';
import {
  findEntityOperation,
  getCrossAgentSummaryOperation,
  listRecentWorkOperation,
  prepareRecognitionContextOperation,
} from '../src/core/operations/read-operations.js';
import { createContext } from '../src/core/context.js';
import { exportAgents } from '../src/core/operations/export.js';
import { LibraryStore, MAX_MANIFEST_BYTES } from '../src/core/store/library.js';
import { tempDir } from './helpers/fixtures.js';

const GOOD =
  "spec_version: '0.1'\nagent: {id: good, type: other}\nknown_entities: [{name: Survivor, type: project}]\nrecent_sessions: [{date: '2026-06-01', project_focus: [Survivor]}]\n";

const HOSTILE: Record<string, string | Buffer> = {
  'alias-bomb.l5.yaml': [
    'a: &a [x,x,x,x,x,x,x,x,x,x]',
    ...'bcdefghij'.split('').map((c, i) => `${c}: &${c} [${Array(10).fill(`*${'abcdefghij'[i]}`).join(',')}]`),
  ].join('\n'),
  'deep.l5.yaml': '['.repeat(20_000) + ']'.repeat(20_000),
  'binary.l5.yaml': Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)),
  'duplicate-keys.l5.yaml': 'agent: {id: dup, type: other}\nagent: {id: dup2, type: other}\n',
  'wrong-types.l5.yaml':
    "agent: {id: wrong, type: [1, 2]}\nknown_entities: {name: not-a-list}\nrecent_sessions: 'yesterday'\nnotes: 42\ncapabilities: yes\nlast_updated: [1]\n",
  'wrong-rows.l5.yaml':
    "agent: {id: rows, type: other}\nknown_entities: [1, 'text', null, {name: ''}, {name: [a]}, {name: Real Row, visibility: [public]}]\nrecent_sessions: [{date: null}, {date: 20260601, key_actions: {a: 1}}, {cwd: /x}]\nnotes: [{text: no date}, {date: '2026-06-01'}]\n",
  // Sorts before good.l5.yaml, so good.l5.yaml (loaded last) keeps the id.
  'a-mismatch.l5.yaml': 'agent: {id: good, type: other}\nknown_entities: [{name: Impostor}]\n',
  'evil-id.l5.yaml': "agent: {id: '../../../etc/passwd', type: other}\n",
  'Bad Name.l5.yaml': 'known_entities: [{name: Nameless}]\n',
  'empty.l5.yaml': '',
  'custom-tag.l5.yaml': 'agent: !!python/object:os.system {id: tagged}\n',
};

describe('hostile manifests', () => {
  let root: string;
  const warnings: string[] = [];
  let ctx: ReturnType<typeof createContext>;

  beforeAll(() => {
    root = tempDir('bourdon-hostile-');
    fs.mkdirSync(path.join(root, 'agents'));
    fs.writeFileSync(path.join(root, 'agents', 'good.l5.yaml'), GOOD);
    for (const [file, body] of Object.entries(HOSTILE)) fs.writeFileSync(path.join(root, 'agents', file), body);
    // A 50 MB file is refused by size, unread.
    const fd = fs.openSync(path.join(root, 'agents', 'huge.l5.yaml'), 'w');
    fs.ftruncateSync(fd, 50 * 1024 * 1024);
    fs.closeSync(fd);
    ctx = createContext(new LibraryStore(root, { warn: (message) => warnings.push(message) }), { warn: () => {} });
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('loads the good manifest and the rows it can read, and refuses the rest with warnings', () => {
    const snapshot = ctx.store.snapshot();
    expect(snapshot.agents.map((agent) => agent.id).sort()).toEqual(['good', 'rows', 'wrong']);
    const brokenFiles = snapshot.broken.map((record) => record.file).sort();
    for (const file of [
      'alias-bomb.l5.yaml',
      'deep.l5.yaml',
      'binary.l5.yaml',
      'duplicate-keys.l5.yaml',
      'evil-id.l5.yaml',
      'Bad Name.l5.yaml',
      'empty.l5.yaml',
      'custom-tag.l5.yaml',
      'huge.l5.yaml',
    ]) {
      expect(brokenFiles).toContain(file);
    }
    expect(snapshot.broken.find((record) => record.file === 'huge.l5.yaml')!.error).toContain(
      String(MAX_MANIFEST_BYTES),
    );
    expect(warnings.length).toBeGreaterThanOrEqual(brokenFiles.length);
    // the impostor file claims an id another file has: the last file in sorted load order wins (as in the engine)
    expect(
      warnings.some((message) => message.includes('a-mismatch.l5.yaml') && message.includes('duplicate agent id')),
    ).toBe(true);
  });

  it('queries keep answering from the readable manifests', async () => {
    expect((await invoke(findEntityOperation, ctx, { name: 'survivor' })).matches).toHaveLength(1);
    expect((await invoke(findEntityOperation, ctx, { name: 'impostor' })).matches).toHaveLength(0);
    expect((await invoke(findEntityOperation, ctx, { name: 'real row' })).matches).toHaveLength(0); // its visibility label is not a level: private
    expect(
      (await invoke(findEntityOperation, ctx, { name: 'real row', access_level: 'private' })).matches,
    ).toHaveLength(1);
    expect((await invoke(listRecentWorkOperation, ctx, { since: '2026-01-01' })).sessions).toEqual([
      { agent: 'rows', date: '20260601', cwd: null, project_focus: [], key_actions: [], files_touched: [] },
      { agent: 'good', date: '2026-06-01', cwd: null, project_focus: ['Survivor'], key_actions: [], files_touched: [] },
    ]); // the row dated 20260601 (a number) is the basic-format date its text is, listed as the engine lists it
    expect((await invoke(getCrossAgentSummaryOperation, ctx, { project: 'Survivor' })).agents).toEqual(['good']);
    expect((await invoke(prepareRecognitionContextOperation, ctx, { prompt: 'survivor?' })).recognition).toBe(
      'Oh -- Survivor, the project.',
    );
    const envelope = await exportAgents(ctx);
    expect(
      (envelope.agents as { id: string; parse_error: string | null }[]).filter((agent) => agent.parse_error).length,
    ).toBeGreaterThanOrEqual(9);
  });
});
