/**
 * list_notes and list_workstreams (spec §5.11–12) on a library built for the purpose, with a
 * fixed clock: filters, visibility, ordering, paging, redaction and workstream statuses.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoke } from '../src/core/operations/invoke.js';
import { listNotesOperation, listWorkstreamsOperation } from '../src/core/operations/read-operations.js';
import { createContext, type OperationContext } from '../src/core/context.js';
import { LibraryStore } from '../src/core/store/library.js';
import { callerFor } from '../src/core/trust/registry.js';
import { stringifyYaml } from '../src/core/store/yaml.js';
import { tempDir } from './helpers/fixtures.js';
import { callJson, linkedClient } from './helpers/mcp.js';

const AGENTS = {
  alpha: {
    spec_version: '0.1',
    agent: { id: 'alpha', type: 'code-assistant' },
    known_entities: [{ name: 'Infra', type: 'area' }],
    recent_sessions: [
      { date: '2026-06-10', cwd: '/b', project_focus: ['Bourdon'], key_actions: ['k1', 'k2'] },
      { date: '2026-06-12', cwd: '/b', project_focus: ['bourdon', 'Infra'], key_actions: ['k3', 'api_key rotated'] },
      { date: '2026-04-01', cwd: '/l', project_focus: ['Legacy'], key_actions: ['old work'] },
      { date: '2026-06-13', cwd: '/t', project_focus: 'Old Tray', key_actions: ['cleanup'] },
      { date: '2026-06-01', cwd: '/s', project_focus: ['Sunset'], key_actions: ['wind down'] },
      {
        date: '2026-06-13',
        cwd: '/p',
        project_focus: ['Hidden'],
        key_actions: ['private stuff'],
        visibility: 'private',
      },
    ],
    notes: [
      { date: '2026-06-10', text: 'a1', tags: ['release'], project_focus: ['Bourdon'] },
      { date: '2026-06-12T09:00:00+02:00', title: 't', text: 'a2', tags: ['Release'] },
      { date: '2026-06-12', text: 'a3 the password: hunter2', visibility: 'team' },
      { date: '2026-05-01', text: 'old', project_focus: ['Legacy'] },
      { date: '2026-06-11', text: 'private one', visibility: 'private' },
      { date: '2026-05-20', text: 'legacy note', project_focus: ['Legacy'] },
    ],
  },
  beta: {
    spec_version: '0.1',
    agent: { id: 'beta', type: 'other' },
    known_entities: [
      { name: 'Bourdon', type: 'project' },
      { name: 'Old Tray', type: 'project', tags: ['Archived'] },
      { name: 'Sunset', type: 'project', valid_to: '2026-06-05' },
      { name: 'Future', type: 'project', valid_to: '2026-12-31' },
    ],
    recent_sessions: [{ date: '2026-06-09', cwd: '/f', project_focus: ['Future'], key_actions: ['plan'] }],
    notes: [
      { date: '2026-06-12T10:00:00Z', text: 'b1', project_focus: ['bourdon'] },
      { date: '2026-06-13', text: 'b2 see https://example.com/x for  details', tags: ['ops'] },
    ],
  },
};

let library: string;
const NOW = new Date(2026, 5, 14, 12, 0, 0); // local noon, 14 June 2026

function ctxAt(now: Date, overrides: Partial<OperationContext> = {}): OperationContext {
  return createContext(new LibraryStore(library, { warn: () => {} }), {
    now: () => now,
    warn: () => {},
    env: {},
    ...overrides,
  });
}

beforeAll(() => {
  library = tempDir('bourdon-notes-');
  fs.mkdirSync(path.join(library, 'agents'));
  for (const [id, doc] of Object.entries(AGENTS))
    fs.writeFileSync(path.join(library, 'agents', `${id}.l5.yaml`), stringifyYaml(doc));
});
afterAll(() => fs.rmSync(library, { recursive: true, force: true }));

const texts = (payload: Record<string, unknown>) => (payload.notes as { text: string }[]).map((note) => note.text);

describe('list_notes', () => {
  it('lists the last 14 days, newest first, public only by default', async () => {
    const payload = await invoke(listNotesOperation, ctxAt(NOW), {});
    expect(texts(payload)).toEqual(['b2 see [link] for details', 'b1', 'a2', 'a1']);
    expect(payload).toMatchObject({
      since: null,
      agent: null,
      tag: null,
      project: null,
      access_level: 'public',
      include_private: false,
      limit: null,
      cursor: null,
      next_cursor: null,
      has_more: false,
    });
    expect((payload.notes as unknown[])[2]).toEqual({
      agent: 'alpha',
      date: '2026-06-12T09:00:00+02:00',
      title: 't',
      text: 'a2',
      tags: ['Release'],
      project_focus: [],
    });
  });

  it('honours since as the calendar day written', async () => {
    expect(texts(await invoke(listNotesOperation, ctxAt(NOW), { since: '2026-06-12T23:30:00-07:00' }))).toEqual([
      'b2 see [link] for details',
      'b1',
      'a2',
    ]);
    expect(texts(await invoke(listNotesOperation, ctxAt(NOW), { since: '2026-01-01' }))).toEqual([
      'b2 see [link] for details',
      'b1',
      'a2',
      'a1',
      'legacy note',
      'old',
    ]);
  });

  it('filters by agent, tag and project, case-insensitively', async () => {
    expect(texts(await invoke(listNotesOperation, ctxAt(NOW), { agent: 'alpha' }))).toEqual(['a2', 'a1']);
    expect(texts(await invoke(listNotesOperation, ctxAt(NOW), { agent: 'nobody' }))).toEqual([]);
    expect(texts(await invoke(listNotesOperation, ctxAt(NOW), { tag: 'RELEASE' }))).toEqual(['a2', 'a1']);
    expect(texts(await invoke(listNotesOperation, ctxAt(NOW), { project: 'BOURDON' }))).toEqual(['b1', 'a1']);
    expect(texts(await invoke(listNotesOperation, ctxAt(NOW), { project: 'bourdon', tag: 'release' }))).toEqual(['a1']);
  });

  it('shows team and private notes only at those levels, redacted', async () => {
    expect(texts(await invoke(listNotesOperation, ctxAt(NOW), { access_level: 'team' }))).toEqual([
      'b2 see [link] for details',
      'b1',
      'a2',
      // The one read rule: prose naming a credential is kept; a value in an assignment is redacted.
      'a3 the password: [redacted]',
      'a1',
    ]);
    expect(texts(await invoke(listNotesOperation, ctxAt(NOW), { include_private: true }))).toContain('private one');
    expect(await invoke(listNotesOperation, ctxAt(NOW), { access_level: 'secret' })).toMatchObject({
      error: expect.stringContaining('unsupported access_level'),
      notes: [],
    });
  });

  it('pages with cursors that keep the window', async () => {
    const first = await invoke(listNotesOperation, ctxAt(NOW), { since: '2026-01-01', limit: 4 });
    expect(texts(first)).toEqual(['b2 see [link] for details', 'b1', 'a2', 'a1']);
    expect(first.has_more).toBe(true);
    const second = await invoke(listNotesOperation, ctxAt(NOW), { cursor: first.next_cursor as string, limit: 4 });
    expect(texts(second)).toEqual(['legacy note', 'old']);
    expect(second).toMatchObject({ has_more: false, next_cursor: null });
    expect(await invoke(listNotesOperation, ctxAt(NOW), { cursor: 'not-a-cursor' })).toMatchObject({
      error: "invalid cursor: 'not-a-cursor'",
      notes: [],
    });
  });

  it('filters to granted namespaces for quarantined members, through the guard', async () => {
    const member = callerFor('alpha', { tier: 'quarantined', grants: ['alpha'] });
    const linked = await linkedClient(library, { fallbackCaller: member, now: () => NOW, env: {} });
    try {
      const own = (await callJson(linked.client, 'list_notes', {})) as Record<string, unknown>;
      expect(texts(own)).toEqual(['a2', 'a1']);
      expect(await callJson(linked.client, 'list_notes', { agent: 'beta' })).toEqual({
        error: 'access denied',
        op: 'list_notes',
        agent: 'alpha',
        tier: 'quarantined',
        detail: "namespace 'beta' not granted",
        notes: [],
        next_cursor: null,
        has_more: false,
      });
    } finally {
      await linked.close();
    }
  });
});

describe('list_workstreams with a fixed clock', () => {
  const view = (payload: Record<string, unknown>) =>
    (payload.workstreams as { name: string; status: string }[]).map((stream) => [stream.name, stream.status]);

  it('derives active, idle and archived from activity and entities', async () => {
    const payload = await invoke(listWorkstreamsOperation, ctxAt(NOW), {});
    expect(view(payload)).toEqual([
      ['Old Tray', 'archived'],
      ['Bourdon', 'active'],
      ['Infra', 'active'],
      ['Future', 'active'],
      ['Sunset', 'archived'],
      ['Legacy', 'idle'],
    ]);
    const bourdon = payload.workstreams[1];
    expect(bourdon).toEqual({
      name: 'Bourdon',
      agents: ['alpha', 'beta'],
      session_count: 2,
      note_count: 2,
      first_activity: '2026-06-10',
      last_activity: '2026-06-12',
      status: 'active',
      recent_actions: ['k3', 'api_key rotated', 'k1'],
    });
    const legacy = payload.workstreams[5];
    expect(legacy).toMatchObject({
      session_count: 1,
      note_count: 2,
      first_activity: '2026-04-01',
      last_activity: '2026-05-20',
    });
  });

  it('moves with the clock: what was active goes idle', async () => {
    const later = await invoke(listWorkstreamsOperation, ctxAt(new Date(2026, 6, 1, 12)), {});
    expect(view(later)).toEqual([
      ['Old Tray', 'archived'],
      ['Bourdon', 'idle'],
      ['Infra', 'idle'],
      ['Future', 'idle'],
      ['Sunset', 'archived'],
      ['Legacy', 'idle'],
    ]);
    // 2026-06-27: Bourdon's last activity (06-12) is 15 days back, Old Tray's entity still archived.
    expect(
      view(await invoke(listWorkstreamsOperation, ctxAt(new Date(2026, 5, 26, 12)), { status: 'active' })),
    ).toEqual([
      ['Bourdon', 'active'],
      ['Infra', 'active'],
    ]);
    expect(
      view(await invoke(listWorkstreamsOperation, ctxAt(new Date(2026, 5, 27, 12)), { status: 'active' })),
    ).toEqual([]);
  });

  it('filters by status, since and agent, and checks its arguments', async () => {
    expect(view(await invoke(listWorkstreamsOperation, ctxAt(NOW), { status: 'archived' }))).toEqual([
      ['Old Tray', 'archived'],
      ['Sunset', 'archived'],
    ]);
    expect(view(await invoke(listWorkstreamsOperation, ctxAt(NOW), { status: 'idle' }))).toEqual([['Legacy', 'idle']]);
    expect(view(await invoke(listWorkstreamsOperation, ctxAt(NOW), { since: '2026-06-12' }))).toEqual([
      ['Old Tray', 'archived'],
      ['Bourdon', 'active'],
      ['Infra', 'active'],
    ]);
    expect(view(await invoke(listWorkstreamsOperation, ctxAt(NOW), { agent: 'beta' }))).toEqual([
      ['Bourdon', 'active'],
      ['Future', 'active'],
    ]);
    expect(await invoke(listWorkstreamsOperation, ctxAt(NOW), { status: 'stalled' })).toMatchObject({
      error: 'unsupported status: stalled (use active, idle or archived)',
      workstreams: [],
    });
  });

  it('hides private activity unless asked', async () => {
    expect(view(await invoke(listWorkstreamsOperation, ctxAt(NOW), {})).map(([name]) => name)).not.toContain('Hidden');
    expect(view(await invoke(listWorkstreamsOperation, ctxAt(NOW), { include_private: true }))[0]).toEqual([
      'Hidden',
      'active',
    ]);
  });

  it('pages', async () => {
    const first = await invoke(listWorkstreamsOperation, ctxAt(NOW), { limit: 4 });
    expect(view(first)).toHaveLength(4);
    expect(first.has_more).toBe(true);
    const second = await invoke(listWorkstreamsOperation, ctxAt(NOW), {
      limit: 4,
      cursor: first.next_cursor as string,
    });
    expect(view(second)).toEqual([
      ['Sunset', 'archived'],
      ['Legacy', 'idle'],
    ]);
    expect(second.has_more).toBe(false);
  });
});
