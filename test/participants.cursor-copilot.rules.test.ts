/**
 * The conformance README's cursor and copilot-cli rules that the recorded cases do not reach:
 * --since, the directory overrides, inferred topics, value types, the caps and orders of the
 * copilot session store, and the federation filter on dynamic context.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { SqlJsStatic, SqlValue } from 'sql.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { copilotCliParticipant } from '../src/participants/copilot-cli/index.js';
import { cursorParticipant } from '../src/participants/cursor/index.js';
import type { ExportEnvironment } from '../src/participants/kit/participant.js';
import { tempDir } from './helpers/fixtures.js';
import { exportEnvironment } from './helpers/participant-cases.js';
import { sinceOf } from '../src/participants/kit/since.js';

const require = createRequire(import.meta.url);
let SQL: SqlJsStatic;
beforeAll(async () => {
  SQL = await (require('sql.js') as () => Promise<SqlJsStatic>)();
});

function database(file: string, statements: string[], rows: [string, SqlValue[]][] = []): void {
  const db = new SQL.Database();
  for (const statement of statements) db.run(statement);
  for (const [sql, values] of rows) db.run(sql, values);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, db.export());
  db.close();
}

function itemTable(file: string, rows: [SqlValue, SqlValue][]): void {
  database(
    file,
    ['CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)'],
    rows.map((row) => ['INSERT INTO ItemTable VALUES (?, ?)', row]),
  );
}

type Manifest = Record<string, unknown> & {
  recent_sessions?: Record<string, unknown>[];
  known_entities?: Record<string, unknown>[];
};

async function cursorExport(home: string, extra: Partial<ExportEnvironment> = {}): Promise<Manifest> {
  return (await cursorParticipant.export(exportEnvironment(home, extra))).manifest as Manifest;
}

describe('cursor rules', () => {
  it('reads workspace stores in name order, BLOB values, and dates from epoch ms, booleans and ISO forms', async () => {
    const home = tempDir();
    const storage = path.join(home, '.config', 'Cursor', 'User', 'workspaceStorage');
    itemTable(path.join(storage, 'b', 'state.vscdb'), [['chat.b', JSON.stringify({ title: 'second store' })]]);
    itemTable(path.join(storage, 'a', 'state.vscdb'), [
      ['chat.ms', new TextEncoder().encode(JSON.stringify({ title: 'blob value', time: 1_776_800_000_000 }))],
      ['chat.bool', JSON.stringify({ title: 'a boolean date', createdAt: true })],
      ['chat.week', JSON.stringify({ title: 'week date', createdAt: '2026-W14-3' })],
      ['chat.int', 42],
    ]);
    const sessions = (await cursorExport(home)).recent_sessions!;
    expect(sessions.map((s) => [s.date, (s.key_actions as string[])[0]])).toEqual([
      ['2026-05-01', 'second store'],
      ['2026-04-21', 'blob value'],
      ['2026-04-01', 'week date'],
      ['1970-01-01', 'a boolean date'],
    ]);
  });

  it('--since drops older sessions but projects keep their newest date', async () => {
    const home = tempDir();
    itemTable(path.join(home, '.config', 'Cursor', 'state.vscdb'), [
      ['chat.1', JSON.stringify({ title: 'old work', cwd: '/w/app', createdAt: '2026-03-01' })],
      ['chat.2', JSON.stringify({ title: 'new work', cwd: '/w/app/', createdAt: '2026-04-10' })],
    ]);
    const manifest = await cursorExport(home, { since: sinceOf('2026-04-01') });
    expect(manifest.recent_sessions!.map((s) => s.key_actions)).toEqual([['new work']]);
    expect(manifest.known_entities).toEqual([
      {
        name: 'app',
        type: 'project',
        aliases: ['/w/app', '/w/app/'],
        summary: 'Cursor workspace inferred from /w/app/.',
        last_touched: '2026-04-10',
        tags: ['cursor', 'workspace', 'sqlite'],
      },
    ]);
  });

  it('infers topics from words in three or more sessions, skipping stop words, short words and project names', async () => {
    const home = tempDir();
    const rows: [string, string][] = [
      'Refactor the ledger, with care',
      'Ledger tests: flaky',
      'Explain (ledger) errors with billing',
      'billing ledger again with billing billing',
    ].map((title, i) => [`chat.${i}`, JSON.stringify({ title, cwd: '/w/billing', createdAt: `2026-04-0${i + 1}` })]);
    itemTable(path.join(home, '.config', 'Cursor', 'state.vscdb'), rows);
    const topics = (await cursorExport(home)).known_entities!.filter((e) => e.type === 'topic');
    expect(topics).toEqual([
      {
        name: 'ledger',
        type: 'topic',
        summary: 'Recurring topic across 4 Cursor sessions.',
        last_touched: '2026-04-04',
        tags: ['cursor', 'topic', 'inferred'],
      },
    ]);
  });

  it('CURSOR_DIR moves both the data directory and the short index; private or private-tagged topics are dropped', async () => {
    const home = tempDir();
    const dir = path.join(home, 'portable-cursor');
    itemTable(path.join(dir, 'state.vscdb'), [['composer.x', JSON.stringify({ text: 'from the override' })]]);
    itemTable(path.join(home, '.config', 'Cursor', 'state.vscdb'), [
      ['composer.y', JSON.stringify({ text: 'ignored' })],
    ]);
    fs.mkdirSync(path.join(dir, 'memory'), { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'memory', 'short-index.json'),
      JSON.stringify({
        entries: [
          { topic_key: 'kept', topic_name: 'Kept', triggers: ['k', ' '], access_level: 'PUBLIC', tags: ['ops', 7] },
          { topic_key: 'p', topic_name: 'Private one', access_level: 'private' },
          { topic_key: 's', topic_name: 'Secret one', tags: ['secret'] },
        ],
      }),
    );
    const manifest = await cursorExport(home, { env: { HOME: home, CURSOR_DIR: dir } });
    expect(manifest.recent_sessions!.map((s) => s.key_actions)).toEqual([['from the override']]);
    expect(manifest.known_entities).toEqual([
      { name: 'Kept', type: 'topic', aliases: ['k'], tags: ['ops', '7', 'short-index'], visibility: 'public' },
    ]);
  });

  it('uses the macOS and Windows data directories on those platforms', async () => {
    const home = tempDir();
    itemTable(path.join(home, 'Library', 'Application Support', 'Cursor', 'state.vscdb'), [
      ['chat.mac', JSON.stringify({ title: 'on a mac' })],
    ]);
    itemTable(path.join(home, 'AppData', 'Cursor', 'state.vscdb'), [
      ['chat.win', JSON.stringify({ title: 'on windows' })],
    ]);
    const mac = await cursorExport(home, { platform: 'darwin' });
    expect(mac.recent_sessions!.map((s) => s.key_actions)).toEqual([['on a mac']]);
    const windows = await cursorExport(home, {
      platform: 'win32',
      env: { HOME: home, APPDATA: path.join(home, 'AppData') },
    });
    expect(windows.recent_sessions!.map((s) => s.key_actions)).toEqual([['on windows']]);
  });
});

const COPILOT_SCHEMA = [
  'CREATE TABLE sessions (id TEXT PRIMARY KEY, cwd TEXT, repository TEXT, branch TEXT, summary TEXT, created_at TEXT, updated_at TEXT)',
  'CREATE TABLE checkpoints (id INTEGER PRIMARY KEY, session_id TEXT, checkpoint_number INTEGER, title TEXT, overview TEXT)',
  'CREATE TABLE session_files (id INTEGER PRIMARY KEY, session_id TEXT, file_path TEXT)',
  'CREATE TABLE session_refs (id INTEGER PRIMARY KEY, session_id TEXT, ref_type TEXT, ref_value TEXT)',
  'CREATE TABLE turns (id INTEGER PRIMARY KEY, session_id TEXT)',
  'CREATE TABLE dynamic_context_items (repository TEXT, branch TEXT, src TEXT, name TEXT, description TEXT, content TEXT, read_count INTEGER, count INTEGER)',
];

describe('copilot-cli rules', () => {
  it('exports the newest 100 sessions, and projects from the newest 200', async () => {
    const home = tempDir();
    const rows: [string, SqlValue[]][] = Array.from({ length: 230 }, (_, i) => [
      'INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?)',
      [`s${i}`, '/w', `org/r${i}`, 'main', null, new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString(), null],
    ]);
    database(path.join(home, '.copilot', 'session-store.db'), COPILOT_SCHEMA, rows);
    const manifest = (await copilotCliParticipant.export(exportEnvironment(home))).manifest as Manifest;
    expect(manifest.recent_sessions).toHaveLength(100);
    expect(manifest.recent_sessions![0].project_focus).toEqual(['org/r229']);
    expect(manifest.known_entities).toHaveLength(200);
    expect(manifest.known_entities!.at(-1)!.name).toBe('org/r30');
  });

  it('caps key actions at 6 and files at 20; --since compares created_at as the engine does', async () => {
    const home = tempDir();
    const rows: [string, SqlValue[]][] = [
      [
        'INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?)',
        ['a', '/w', 'o/a', 'm', 'Do it', '2026-04-02T09:00:00Z', null],
      ],
      [
        'INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?)',
        ['b', '/w', 'o/b', 'm', 'Older', '2026-03-30T09:00:00Z', null],
      ],
      // A space instead of T sorts before the bound's T: the engine's text comparison drops it.
      [
        'INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?)',
        ['c', '/w', 'o/c', 'm', 'Spaced', '2026-04-01 09:00:00', null],
      ],
      ...[4, 1, 3, 2].map((n): [string, SqlValue[]] => [
        'INSERT INTO checkpoints (session_id, checkpoint_number, title) VALUES (?, ?, ?)',
        ['a', n, `Step ${n}`],
      ]),
      ...Array.from({ length: 25 }, (_, i): [string, SqlValue[]] => [
        'INSERT INTO session_files (session_id, file_path) VALUES (?, ?)',
        ['a', `f${i}.ts`],
      ]),
      ...Array.from({ length: 4 }, (_, i): [string, SqlValue[]] => [
        'INSERT INTO session_refs (session_id, ref_type, ref_value) VALUES (?, ?, ?)',
        ['a', 'commit', `c${i}`],
      ]),
      ['INSERT INTO turns (session_id) VALUES (?)', ['a']],
    ];
    database(path.join(home, '.copilot', 'session-store.db'), COPILOT_SCHEMA, rows);
    const manifest = (await copilotCliParticipant.export(exportEnvironment(home, { since: sinceOf('2026-04-01') })))
      .manifest as Manifest;
    expect(manifest.recent_sessions).toHaveLength(1);
    const [session] = manifest.recent_sessions!;
    expect(session.key_actions).toEqual([
      'Do it',
      'checkpoint: Step 1',
      'checkpoint: Step 2',
      'checkpoint: Step 3',
      'turns: 1',
      'commit: c0',
    ]);
    expect(session.files_touched).toEqual(Array.from({ length: 20 }, (_, i) => `f${i}.ts`));
  });

  it('COPILOT_CLI_HOME moves the store; dynamic context by use, private-tagged sources dropped', async () => {
    const home = tempDir();
    const dir = path.join(home, 'copilot-elsewhere');
    database(path.join(dir, 'session-store.db'), COPILOT_SCHEMA, [
      [
        'INSERT INTO dynamic_context_items VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        ['o/a', 'm', 'memory', 'Rarely used', 'r', '', 0, 1],
      ],
      [
        'INSERT INTO dynamic_context_items VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        ['o/a', 'm', 'health', 'Private source', 'x', '', 0, 8],
      ],
      [
        'INSERT INTO dynamic_context_items VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        ['o/a', 'm', 'memory', 'Often used', 'See https://x.y/z', '', 0, 5],
      ],
    ]);
    const manifest = (
      await copilotCliParticipant.export(exportEnvironment(home, { env: { HOME: home, COPILOT_CLI_HOME: dir } }))
    ).manifest as Manifest;
    expect(manifest.known_entities!.map((e) => [e.name, e.summary])).toEqual([
      ['Often used', 'See [link]'],
      ['Rarely used', 'r'],
    ]);
  });
});
