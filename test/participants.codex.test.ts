/**
 * The codex participant against the engine's recorded cases (conformance/participants/codex), run
 * in-process over a copy of each case's home, and over hostile inputs (property tests): garbage
 * JSONL, binary junk, a database that is not SQLite, huge and deeply nested lines never make
 * `export()` throw or hang.
 */
import fc from 'fast-check';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ExportEnvironment, ManifestData } from '../src/participants/kit/participant.js';
import { codexParticipant } from '../src/participants/codex/index.js';
import { tempDir } from './helpers/fixtures.js';
import {
  caseEnvironment,
  comparable,
  copyCaseHome,
  expectedManifest,
  filterAtTeam,
  recordedCases,
  exportEnvironment,
} from './helpers/participant-cases.js';
import { sinceOf } from '../src/participants/kit/since.js';

const recorded = recordedCases('codex');

describe('codex participant: the engine-recorded cases', () => {
  it('has cases to run', () => expect(recorded.length).toBeGreaterThan(0));

  it.each(recorded.map((item) => [item.id, item] as const))('%s', async (_id, item) => {
    const { home } = copyCaseHome(item);
    const result = await codexParticipant.export(caseEnvironment(item.spec, home));
    const expected = expectedManifest(item, home);
    if (!expected) {
      expect(result.manifest).toBeUndefined();
      return;
    }
    expect(result.manifest).toBeDefined();
    const actual = filterAtTeam(result.manifest as ManifestData);
    expect(comparable(actual, item.spec.unordered)).toEqual(comparable(expected, item.spec.unordered));
    expect(typeof (actual.agent as Record<string, unknown>).role_narrative).toBe('string');
  });
});

// ---------------------------------------------------------------------------------------------
// Behaviour a user relies on beyond the recorded cases, and hostile inputs.

const NOW = new Date('2026-05-01T12:00:00Z');

function environment(home: string, extra: Partial<ExportEnvironment> = {}): ExportEnvironment {
  return exportEnvironment(home, { now: NOW, hostname: 'test-host', ...extra });
}

function freshHome(): string {
  const home = path.join(tempDir('cx-home-'), 'home');
  fs.mkdirSync(home, { recursive: true });
  return home;
}

function write(file: string, content: string | Uint8Array): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

const meta = (id: string, cwd: string, timestamp = '2026-04-20T10:00:00Z'): string =>
  JSON.stringify({ timestamp, type: 'session_meta', payload: { id, timestamp, cwd } });
const userText = (text: string): string =>
  JSON.stringify({
    type: 'response_item',
    payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
  });
const patch = (files: string[]): string =>
  JSON.stringify({
    type: 'response_item',
    payload: {
      type: 'function_call',
      name: 'apply_patch',
      arguments: files.map((file) => `*** Update File: ${file}`).join('\n'),
    },
  });

/** A Codex home with an index and one rollout per entry. */
function indexedHome(entries: { id: string; name: string; cwd: string; lines?: string[] }[]): string {
  const home = freshHome();
  const codex = path.join(home, '.codex');
  write(
    path.join(codex, 'session_index.jsonl'),
    entries
      .map((entry) => JSON.stringify({ id: entry.id, thread_name: entry.name, updated_at: '2026-04-20T10:00:00Z' }))
      .join('\n'),
  );
  for (const entry of entries) {
    write(
      path.join(codex, 'sessions', '2026', '04', '20', `rollout-2026-04-20T10-00-00-${entry.id}.jsonl`),
      [meta(entry.id, entry.cwd), ...(entry.lines ?? [])].join('\n'),
    );
  }
  return home;
}

function sessionsOf(manifest: ManifestData | undefined): Record<string, unknown>[] {
  return (manifest?.recent_sessions as Record<string, unknown>[] | undefined) ?? [];
}
function entityNames(manifest: ManifestData | undefined): string[] {
  return ((manifest?.known_entities as Record<string, unknown>[] | undefined) ?? []).map((e) => String(e.name));
}

describe('codex participant: sources and failures', () => {
  it('finds nothing in a home without Codex: no manifest, and no warning (the report line says it)', async () => {
    const result = await codexParticipant.export(environment(freshHome()));
    expect(result.manifest).toBeUndefined();
    expect(result.warnings).toEqual([]);
    expect(result.sources.every((source) => !source.found)).toBe(true);
  });

  it('exports the ~/codex-brain overlay alone when there is no Codex home', async () => {
    const home = freshHome();
    write(path.join(home, 'codex-brain', 'quarry.md'), '# Task Group: quarry imports\ndescription: nightly dumps\n');
    const result = await codexParticipant.export(environment(home));
    expect(result.manifest?.capabilities).toEqual(['codex_brain']);
    expect(result.manifest?.recent_sessions).toBeUndefined();
    expect(entityNames(result.manifest)).toEqual(['quarry imports']);
  });

  it('reads $CODEX_HOME when it is a directory, and reports its sources', async () => {
    const home = freshHome();
    const elsewhere = path.join(home, 'custom-codex');
    write(path.join(elsewhere, 'memories', 'MEMORY.md'), '# Task Group: lighthouse keeping\n');
    const result = await codexParticipant.export(environment(home, { env: { HOME: home, CODEX_HOME: elsewhere } }));
    expect(result.manifest?.capabilities).toEqual(['codex_home', 'memories_dir', 'memory_md']);
    expect(entityNames(result.manifest)).toContain('lighthouse keeping');
    const sources = await codexParticipant.sources(environment(home, { env: { HOME: home, CODEX_HOME: elsewhere } }));
    expect(sources.find((source) => source.name === 'memory_md')).toMatchObject({ found: true });
  });

  it('reads a $CODEX_HOME outside the home (a folder the user named), and still no link out of it', async () => {
    const home = freshHome();
    const elsewhere = path.join(tempDir('cx-elsewhere-'), 'codex');
    write(path.join(elsewhere, 'memories', 'MEMORY.md'), '# Task Group: lighthouse keeping\n');
    write(path.join(home, 'notes', 'secret.md'), '# Task Group: secret in the home\n');
    fs.symlinkSync(path.join(home, 'notes', 'secret.md'), path.join(elsewhere, 'memories', 'raw_memories.md'));
    const result = await codexParticipant.export(environment(home, { env: { HOME: home, CODEX_HOME: elsewhere } }));
    expect(entityNames(result.manifest)).toEqual(['lighthouse keeping']);
    expect(result.warnings).toEqual([
      `${path.join(elsewhere, 'memories', 'raw_memories.md')}: skipped, it is a link leading outside ${elsewhere}`,
    ]);
  });

  it('a state database that is not SQLite: one warning, the index still exported', async () => {
    const home = indexedHome([{ id: 's-1', name: 'Tune the harbour lights', cwd: '/work/harbour' }]);
    write(path.join(home, '.codex', 'state_5.sqlite'), 'this is not a database at all, just text');
    const result = await codexParticipant.export(environment(home));
    expect(result.warnings.some((warning) => warning.includes('state_5.sqlite'))).toBe(true);
    expect(result.warnings.every((warning) => !warning.includes('\n'))).toBe(true);
    expect(sessionsOf(result.manifest).map((session) => session.key_actions)).toEqual([['Tune the harbour lights']]);
    expect(result.sources.find((source) => source.name === 'state_db')?.problem).toBeTruthy();
  });

  it('never writes into the Codex home', async () => {
    const home = indexedHome([{ id: 's-1', name: 'Tune the harbour lights', cwd: '/work/harbour' }]);
    write(path.join(home, '.codex', 'state_5.sqlite'), 'junk');
    const before = listTree(path.join(home, '.codex'));
    await codexParticipant.export(environment(home));
    expect(listTree(path.join(home, '.codex'))).toEqual(before);
  });

  it('does not follow symlinks out of the home', async () => {
    const outside = tempDir('cx-outside-');
    write(path.join(outside, 'MEMORY.md'), '# Task Group: secret from outside\n');
    write(path.join(outside, 'rollout-2026-04-20T10-00-00-s-2.jsonl'), meta('s-2', '/outside/vault'));
    const home = indexedHome([{ id: 's-1', name: 'Tune the harbour lights', cwd: '/work/harbour' }]);
    fs.mkdirSync(path.join(home, '.codex', 'memories'));
    fs.symlinkSync(path.join(outside, 'MEMORY.md'), path.join(home, '.codex', 'memories', 'MEMORY.md'));
    fs.symlinkSync(outside, path.join(home, '.codex', 'sessions', 'linked'));
    fs.appendFileSync(
      path.join(home, '.codex', 'session_index.jsonl'),
      `\n${JSON.stringify({ id: 's-2', thread_name: 'Outside thread', updated_at: '2026-04-21T10:00:00Z' })}`,
    );
    const result = await codexParticipant.export(environment(home));
    expect(entityNames(result.manifest)).not.toContain('secret from outside');
    const cwds = sessionsOf(result.manifest).map((session) => session.cwd);
    expect(cwds).not.toContain('/outside/vault');
  });

  it('does not follow a link in the Codex home to another file of the home (issue 41: ~/.pgpass)', async () => {
    const home = indexedHome([{ id: 's-1', name: 'Tune the harbour lights', cwd: '/work/harbour' }]);
    write(path.join(home, 'notes', 'secret.md'), '# Task Group: secret elsewhere in the home\n');
    fs.mkdirSync(path.join(home, '.codex', 'memories'));
    fs.symlinkSync(path.join(home, 'notes', 'secret.md'), path.join(home, '.codex', 'memories', 'MEMORY.md'));
    const result = await codexParticipant.export(environment(home));
    expect(entityNames(result.manifest)).not.toContain('secret elsewhere in the home');
    expect(sessionsOf(result.manifest).map((session) => session.key_actions)).toEqual([['Tune the harbour lights']]);
  });

  it('says each file it refuses once: a MEMORY.md linked out of the Codex home is one warning naming it', async () => {
    const outside = tempDir('cx-outside-');
    write(path.join(outside, 'MEMORY.md'), '# Task Group: secret from outside\n');
    const home = indexedHome([{ id: 's-1', name: 'Tune the harbour lights', cwd: '/work/harbour' }]);
    const memoryMd = path.join(home, '.codex', 'memories', 'MEMORY.md');
    fs.mkdirSync(path.dirname(memoryMd));
    fs.symlinkSync(path.join(outside, 'MEMORY.md'), memoryMd);
    const result = await codexParticipant.export(environment(home));
    expect(result.warnings).toEqual([
      `${memoryMd}: skipped, it is a link leading outside ${path.join(home, '.codex')}`,
    ]);
    expect(result.sources.find((source) => source.name === 'memory_md')?.found).toBe(false);
  });

  it('does not read a rollout the state database names outside the Codex home, with one warning; one inside is read', async () => {
    const require = createRequire(import.meta.url);
    const SQL = await (require('sql.js') as () => Promise<{ Database: new () => SqlDatabase }>)();
    const home = freshHome();
    const codexHome = path.join(home, '.codex');
    const inside = path.join(codexHome, 'sessions', 'rollout-2026-04-20T10-00-00-t-1.jsonl');
    const outside = path.join(home, 'elsewhere', 'rollout-2026-04-20T10-00-00-t-1.jsonl');
    for (const file of [inside, outside])
      write(file, [meta('t-1', '/work/harbour'), patch(['src/secret.ts'])].join('\n'));
    const exportNaming = async (rollout: string) => {
      const db = new SQL.Database();
      db.run('CREATE TABLE threads (id, title, cwd, rollout_path, updated_at)');
      db.run('INSERT INTO threads VALUES (?, ?, ?, ?, ?)', [
        't-1',
        'Tune the harbour lights',
        '/work/harbour',
        rollout,
        '2026-04-20T10:00:00Z',
      ]);
      write(path.join(codexHome, 'state_5.sqlite'), db.export());
      db.close();
      return codexParticipant.export(environment(home));
    };
    const refused = await exportNaming(outside);
    expect(refused.warnings).toEqual([`${outside}: skipped, it leads outside ${codexHome}`]);
    expect(sessionsOf(refused.manifest).map((session) => session.files_touched)).toEqual([undefined]);
    const read = await exportNaming(inside);
    expect(read.warnings).toEqual([]);
    expect(sessionsOf(read.manifest).map((session) => session.files_touched)).toEqual([['src/secret.ts']]);
  });

  it('keeps the files apply_patch touched, only for rollouts up to 1,000,000 bytes', async () => {
    const filler = JSON.stringify({ type: 'event_msg', payload: { type: 'noise', text: 'x'.repeat(1_000_000) } });
    const home = indexedHome([
      { id: 's-1', name: 'Small rollout work', cwd: '/work/harbour', lines: [patch(['src/a.ts', 'SRC/A.ts', 'b.ts'])] },
      { id: 's-2', name: 'Large rollout work', cwd: '/work/harbour', lines: [patch(['src/c.ts']), filler] },
    ]);
    const sessions = sessionsOf((await codexParticipant.export(environment(home))).manifest);
    const byAction = Object.fromEntries(sessions.map((s) => [String((s.key_actions as string[])[0]), s.files_touched]));
    expect(byAction['Small rollout work']).toEqual(['src/a.ts', 'b.ts']);
    expect(byAction['Large rollout work']).toBeUndefined();
  });

  it('skips a line over the cap; it still counts as a record before session_meta', async () => {
    const huge = JSON.stringify({ type: 'event_msg', payload: { type: 'noise', text: 'y'.repeat(6 * 1024 * 1024) } });
    const home = indexedHome([{ id: 's-1', name: 'Huge line session', cwd: '/unused' }]);
    const rollout = path.join(home, '.codex', 'sessions', '2026', '04', '20', 'rollout-2026-04-20T10-00-00-s-1.jsonl');
    write(rollout, [huge, 'not json', meta('s-1', '/work/harbour'), userText('talk about Continuo')].join('\n'));
    const result = await codexParticipant.export(environment(home));
    expect(sessionsOf(result.manifest)).toEqual([
      expect.objectContaining({ cwd: '/work/harbour', key_actions: ['Huge line session'] }),
    ]);
  });

  it('applies --since to sessions and their thread topics only', async () => {
    const home = freshHome();
    const codex = path.join(home, '.codex');
    write(
      path.join(codex, 'session_index.jsonl'),
      [
        JSON.stringify({ id: 'old', thread_name: 'Old harbour work', updated_at: '2026-03-01T10:00:00Z' }),
        JSON.stringify({ id: 'new', thread_name: 'New harbour work', updated_at: '2026-04-25T10:00:00Z' }),
      ].join('\n'),
    );
    // Distilled memory present, so the fallback memory (which would name every thread) is not built.
    write(path.join(codex, 'memories', 'MEMORY.md'), '# Task Group: harbour upkeep\n');
    const result = await codexParticipant.export(environment(home, { since: sinceOf('2026-04-01') }));
    expect(sessionsOf(result.manifest).map((s) => s.date)).toEqual(['2026-04-25']);
    expect(entityNames(result.manifest)).toContain('New harbour work');
    expect(entityNames(result.manifest)).not.toContain('Old harbour work');
  });

  it('replaces a credential-looking thread name and masks links', async () => {
    const home = indexedHome([
      { id: 's-1', name: 'rotate the password for prod', cwd: '/work/harbour' },
      { id: 's-2', name: 'read https://example.com/x?token=1 first', cwd: '/work/harbour' },
    ]);
    const actions = sessionsOf((await codexParticipant.export(environment(home))).manifest).map((s) => s.key_actions);
    expect(actions).toContainEqual(['[redacted credential-like text]']);
    expect(actions).toContainEqual(['read [link] first']);
  });
});

describe('codex participant: engine rules beyond the recorded cases', () => {
  it('memory consolidation sessions, the overlay, repeated project names and canonical preferences', async () => {
    const home = indexedHome([
      { id: 's-1', name: 'Consolidate memories', cwd: '', lines: [patch(['MEMORY.md', 'raw_memories.md'])] },
      { id: 's-2', name: 'Paint the beacon', cwd: '/work/beacon' },
    ]);
    // The first session ran inside the Codex home's memories folder.
    const rollout = path.join(home, '.codex', 'sessions', '2026', '04', '20', 'rollout-2026-04-20T10-00-00-s-1.jsonl');
    write(
      rollout,
      [meta('s-1', path.join(home, '.codex', 'memories')), patch(['MEMORY.md', 'raw_memories.md'])].join('\n'),
    );
    write(
      path.join(home, '.codex', 'memories', 'MEMORY.md'),
      [
        '# Task Group: Lighthouse restoration',
        'keywords: Lighthouse, `Beacon`',
        '## User Preferences',
        '- The user wants git commit and push at every checkpoint on the mac',
        '- Prefer short answers; no fluff',
      ].join('\n'),
    );
    write(path.join(home, 'codex-brain', 'notes', 'plan.md'), '# Task Group: Beacon maintenance\n');
    write(path.join(home, 'codex-brain', 'empty.md'), '');
    write(path.join(home, 'codex-brain', 'data.json'), '# Task Group: not read\n');

    const manifest = (await codexParticipant.export(environment(home))).manifest;
    expect(manifest?.capabilities).toEqual([
      'codex_brain',
      'codex_home',
      'memories_dir',
      'memory_md',
      'session_index',
      'sessions_dir',
    ]);
    const sessions = sessionsOf(manifest);
    expect(sessions.find((s) => s.cwd === '/work/beacon')).toMatchObject({
      project_focus: ['Beacon'],
      key_actions: ['Paint the beacon'],
    });
    expect(sessions.find((s) => s.cwd !== '/work/beacon')).toMatchObject({
      // "memories" is a project key the engine keeps for the session, though junk as an entity.
      project_focus: ['memories'],
      key_actions: ['Updated Codex memory artifacts: MEMORY.md, raw_memories.md'],
      files_touched: ['MEMORY.md', 'raw_memories.md'],
    });
    const entities = (manifest?.known_entities as Record<string, unknown>[])
      // The temp path (in the rollout's raw text) may name a concept; that rule has its own case.
      .filter((entity) => !(entity.tags as string[]).includes('codex-fallback-concept'))
      .map(({ visibility, ...rest }) => {
        expect(visibility).toBe('team');
        return rest;
      });
    expect(entities).toEqual([
      {
        name: 'cross-machine handoff workflow',
        type: 'preference',
        summary: 'User preference: The user wants git commit and push at every checkpoint on the mac',
        tags: ['codex-preference', 'workflow'],
      },
      {
        name: 'short answers preference',
        type: 'preference',
        summary: 'User preference: Prefer short answers; no fluff',
        tags: ['codex-preference'],
      },
      {
        name: 'Beacon',
        type: 'project',
        summary: 'Beacon maintenance',
        last_touched: '2026-04-20',
        tags: ['codex-project', 'codex-memory'],
      },
      {
        name: 'Lighthouse',
        type: 'project',
        summary: 'Lighthouse restoration',
        tags: ['codex-project', 'codex-memory'],
      },
      {
        name: 'Beacon maintenance',
        type: 'topic',
        summary: 'Codex memory topic: Beacon maintenance',
        tags: ['codex-memory'],
      },
      {
        name: 'Codex memory artifacts',
        type: 'topic',
        summary: 'Codex thread: Codex memory artifacts',
        last_touched: '2026-04-20',
        tags: ['codex-thread'],
      },
      {
        name: 'Lighthouse restoration',
        type: 'topic',
        summary: 'Codex memory topic: Lighthouse restoration',
        tags: ['codex-memory'],
      },
      {
        name: 'Paint the beacon',
        type: 'topic',
        summary: 'Codex thread: Paint the beacon',
        last_touched: '2026-04-20',
        tags: ['codex-thread'],
      },
    ]);
  });
});

function listTree(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath, entry.name);
    const info = fs.lstatSync(full);
    out.push(`${path.relative(dir, full)} ${info.size} ${info.mtimeMs}`);
  }
  return out.sort();
}

// ---------------------------------------------------------------------------------------------
// Property tests: whatever the files hold, export() resolves with plain data and valid dates.

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function assertWellFormed(manifest: ManifestData | undefined): void {
  expect(manifest).toBeDefined();
  expect(() => JSON.stringify(manifest)).not.toThrow();
  for (const session of sessionsOf(manifest)) {
    expect(session.date).toMatch(DAY);
    for (const action of session.key_actions as unknown[]) expect(typeof action).toBe('string');
  }
  for (const entity of (manifest?.known_entities as Record<string, unknown>[] | undefined) ?? []) {
    expect(typeof entity.name).toBe('string');
    expect(String(entity.name).trim()).not.toBe('');
  }
}

const timestampArb = fc.oneof(
  fc
    .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
    .map((d) => d.toISOString()),
  fc.constantFrom(
    '2026-04-30T23:59:59+02:00',
    '2026-13-45T00:00:00Z',
    '20260430T101010',
    'abcd-ef-ghij',
    '',
    '2026-04-30',
  ),
  fc.string({ maxLength: 30 }),
  fc.integer(),
);
const looseValue = fc.oneof(fc.jsonValue({ maxDepth: 3 }), timestampArb);
const rolloutRecord = fc.record(
  {
    timestamp: timestampArb,
    type: fc.oneof(
      fc.constantFrom('session_meta', 'response_item', 'event_msg', 'user_input'),
      fc.jsonValue({ maxDepth: 1 }),
    ),
    payload: fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.record(
        {
          id: fc.oneof(fc.constantFrom('s-1', 's-2', ''), looseValue),
          cwd: fc.oneof(
            fc.constantFrom('/work/harbour', 'C:\\Users\\x\\lantern', '/home/x/.codex/memories'),
            looseValue,
          ),
          timestamp: timestampArb,
          type: fc.constantFrom('message', 'function_call', 'user_message'),
          role: fc.constantFrom('user', 'assistant'),
          name: fc.constantFrom('apply_patch', 'shell'),
          arguments: fc.oneof(fc.constantFrom('*** Update File: a.ts\n*** Move to: b.ts'), looseValue),
          content: fc.oneof(
            fc.constant([{ type: 'input_text', text: 'Bourdon recognition-first runtime layer' }]),
            looseValue,
          ),
          text: looseValue,
          message: looseValue,
        },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: [] },
);
const rolloutLine = fc.oneof(
  fc.string({ maxLength: 120 }),
  rolloutRecord.map((record) => JSON.stringify(record)),
  fc.constantFrom('['.repeat(50_000), '{"a":'.repeat(20_000), '\u0000\u0001', '{"type": NaN}'),
);
const indexLine = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc
    .record(
      {
        id: fc.oneof(fc.constantFrom('s-1', 's-2', '*', ''), looseValue),
        thread_name: fc.oneof(fc.string({ maxLength: 60 }), looseValue),
        updated_at: timestampArb,
      },
      { requiredKeys: [] },
    )
    .map((record) => JSON.stringify(record)),
);
const memoryLine = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.constantFrom(
    '# Task Group: harbour lights',
    '## Task 1: Fix the lantern',
    'task_group: quarry-import',
    'keywords: Harbour, `Lantern`, , ``',
    '## User Preferences',
    '### Preference signals',
    '- The user prefers backend-first delivery [Task 2]',
    '- stop when asked',
    '## Keywords',
    '- Harbour, Quarry',
    '## Reusable Knowledge',
    'description: Recovered concept: Continuo',
    '## Thread `s-1`',
    'Key steps:',
    '<!-- BEGIN BOURDON FALLBACK MEMORY -->',
    '<!-- END BOURDON FALLBACK MEMORY -->',
  ),
);

describe('codex participant: hostile inputs (property tests)', () => {
  it('garbage and odd JSON in the index, rollouts and memories never throw', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(indexLine, { maxLength: 8 }),
        fc.array(fc.array(rolloutLine, { maxLength: 6 }), { maxLength: 3 }),
        fc.array(memoryLine, { maxLength: 15 }),
        fc.option(fc.constantFrom('2026-04-01', '2030-01-01'), { nil: undefined }),
        async (index, rollouts, memory, since) => {
          const home = freshHome();
          const codex = path.join(home, '.codex');
          write(path.join(codex, 'session_index.jsonl'), index.join('\n'));
          rollouts.forEach((lines, i) =>
            write(
              path.join(codex, 'sessions', '2026', '04', `rollout-2026-04-2${i}T00-00-00-s-${i + 1}.jsonl`),
              lines.join('\n'),
            ),
          );
          write(path.join(codex, 'memories', 'raw_memories.md'), memory.join('\n'));
          write(path.join(home, 'codex-brain', 'notes.md'), memory.slice().reverse().join('\r\n'));
          const result = await codexParticipant.export(environment(home, { since: sinceOf(since) }));
          assertWellFormed(result.manifest);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('binary junk in every file never throws', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 3000 }),
        fc.uint8Array({ maxLength: 3000 }),
        fc.uint8Array({ maxLength: 3000 }),
        async (a, b, c) => {
          const home = freshHome();
          const codex = path.join(home, '.codex');
          write(path.join(codex, 'state_5.sqlite'), a);
          write(path.join(codex, 'session_index.jsonl'), b);
          write(path.join(codex, 'sessions', 'rollout-x-s-1.jsonl'), c);
          write(path.join(codex, 'memories', 'MEMORY.md'), a);
          write(path.join(codex, 'memories', 'raw_memories.md'), b);
          write(path.join(codex, 'memories', 'rollout_summaries', 'x.md'), c);
          const result = await codexParticipant.export(environment(home));
          assertWellFormed(result.manifest);
          expect(result.warnings.every((warning) => !warning.includes('\n'))).toBe(true);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('any values in the state database threads never throw', async () => {
    const require = createRequire(import.meta.url);
    const SQL = await (require('sql.js') as () => Promise<{ Database: new () => SqlDatabase }>)();
    const sqlValue = fc.oneof(
      fc.constant(null),
      fc.integer(),
      fc.double({ noNaN: true }),
      fc.string({ maxLength: 40 }),
      fc.uint8Array({ maxLength: 12 }),
      fc.constantFrom(
        '2026-04-30T10:00:00Z',
        '1777291200000',
        '-5',
        '1e400',
        'nan',
        '.codex/sessions/x.jsonl',
        '/etc/passwd',
      ),
    );
    const row = fc.tuple(sqlValue, sqlValue, sqlValue, sqlValue, sqlValue, sqlValue, sqlValue);
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 8 }), async (rows) => {
        const home = freshHome();
        const db = new SQL.Database();
        db.run('CREATE TABLE threads (id, title, first_user_message, cwd, rollout_path, updated_at_ms, created_at)');
        for (const values of rows) db.run('INSERT INTO threads VALUES (?, ?, ?, ?, ?, ?, ?)', values);
        write(path.join(home, '.codex', 'state_5.sqlite'), db.export());
        db.close();
        write(path.join(home, '.codex', 'sessions', 'x.jsonl'), meta('s-9', '/work/harbour', '2030-01-01T00:00:00Z'));
        const result = await codexParticipant.export(environment(home));
        assertWellFormed(result.manifest);
      }),
      { numRuns: 40 },
    );
  });
});

interface SqlDatabase {
  run(sql: string, params?: unknown[]): void;
  export(): Uint8Array;
  close(): void;
}
