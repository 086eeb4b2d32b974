/**
 * Hostile native stores never crash or hang the cursor and copilot-cli exports: generated JSON of
 * any shape in Cursor's ItemTable, columns of the wrong type in Copilot's session store, huge
 * values, files that are not SQLite or are cut short. The export still returns a manifest, its
 * texts stay within the engine's cuts, and an unreadable database is a one-line warning while
 * the other databases still export. The ISO date reading is checked against Python's own.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import fc from 'fast-check';
import type { SqlJsStatic, SqlValue } from 'sql.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { copilotCliParticipant } from '../src/participants/copilot-cli/index.js';
import { cursorParticipant } from '../src/participants/cursor/index.js';
import {
  calendarDayOf,
  isoCalendarDate,
  isoDateOf,
  isoInstant,
  sortInstant,
  stateTimestampDate,
} from '../src/core/native/python-dates.js';
import { codePointLength } from '../src/participants/kit/scrub.js';
import { tempDir } from './helpers/fixtures.js';
import { exportEnvironment } from './helpers/participant-cases.js';

const require = createRequire(import.meta.url);
let SQL: SqlJsStatic;
beforeAll(async () => {
  SQL = await (require('sql.js') as () => Promise<SqlJsStatic>)();
});

function writeDatabase(file: string, schema: string, insert: string, rows: SqlValue[][]): void {
  const db = new SQL.Database();
  db.run(schema);
  for (const row of rows) db.run(insert, row);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, db.export());
  db.close();
}

const GLOBAL_DB = ['.config', 'Cursor', 'User', 'globalStorage', 'state.vscdb'];
const ROOT_DB = ['.config', 'Cursor', 'state.vscdb'];
const COPILOT_DB = ['.copilot', 'session-store.db'];

const cursorKey = fc.oneof(
  fc.constantFrom('composerData:1', 'workbench.panel.aichat.view', 'chat.x', 'misc', 'aiService.prompts'),
  fc.string(),
);
/** Records shaped like Cursor's, with any JSON in any field, and arbitrary JSON besides. */
const cursorRecord = fc.oneof(
  fc.record(
    {
      title: fc.jsonValue(),
      text: fc.jsonValue(),
      messages: fc.array(fc.dictionary(fc.constantFrom('content', 'text', 'files', 'messages'), fc.jsonValue())),
      workspacePath: fc.jsonValue(),
      workspace: fc.jsonValue(),
      createdAt: fc.oneof(
        fc.jsonValue(),
        fc.double(),
        fc.integer(),
        fc.date().map((d) => d.toISOString()),
      ),
      time: fc.oneof(fc.double(), fc.bigInt({ min: -(2n ** 60n), max: 2n ** 60n }).map(Number)),
      files: fc.jsonValue(),
      references: fc.array(fc.oneof(fc.string(), fc.dictionary(fc.constantFrom('path', 'uri'), fc.jsonValue()))),
    },
    { requiredKeys: [] },
  ),
  fc.jsonValue(),
);
/** What an ItemTable cell can hold: JSON text, JSON as a blob, or a value of the wrong type. */
const cursorCell: fc.Arbitrary<SqlValue> = fc.oneof(
  cursorRecord.map((value) => JSON.stringify(value) ?? 'null'),
  cursorRecord.map((value) => new TextEncoder().encode(JSON.stringify(value) ?? 'null')),
  fc.string(),
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.constant(null),
  fc.uint8Array({ maxLength: 64 }),
);

function expectSaneCursorManifest(manifest: Record<string, unknown> | undefined): void {
  expect(manifest).toBeDefined();
  const sessions = (manifest!.recent_sessions ?? []) as { date: string; key_actions: string[] }[];
  for (const session of sessions) {
    expect(session.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(session.key_actions).toHaveLength(1);
    expect(codePointLength(session.key_actions[0])).toBeLessThanOrEqual(256);
  }
  const dates = sessions.map((session) => session.date);
  expect(dates).toEqual([...dates].sort().reverse());
}

describe('cursor export over hostile databases', () => {
  it('never throws on any JSON, blob or wrongly typed value in ItemTable', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(cursorKey, cursorCell), { maxLength: 25 }), async (rows) => {
        const home = tempDir('bourdon-cursor-prop-');
        writeDatabase(
          path.join(home, ...GLOBAL_DB),
          'CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)',
          'INSERT INTO ItemTable VALUES (?, ?)',
          rows,
        );
        const result = await cursorParticipant.export(exportEnvironment(home));
        expectSaneCursorManifest(result.manifest);
        expect(result.warnings).toEqual([]);
        fs.rmSync(home, { recursive: true, force: true });
      }),
      { numRuns: 60, seed: 2026 },
    );
  });

  it('an unreadable database is one warning; the readable one still exports', async () => {
    const hostile: [string, Buffer][] = [
      ['not SQLite', Buffer.from('{"composerData": "not a database"}')],
      ['random bytes', Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 2654435761) % 251))],
      ['a header alone', Buffer.concat([Buffer.from('SQLite format 3\0', 'latin1'), Buffer.alloc(84, 0xff)])],
    ];
    for (const [label, bytes] of hostile) {
      const home = tempDir('bourdon-cursor-hostile-');
      fs.mkdirSync(path.dirname(path.join(home, ...ROOT_DB)), { recursive: true });
      fs.writeFileSync(path.join(home, ...ROOT_DB), bytes);
      writeDatabase(
        path.join(home, ...GLOBAL_DB),
        'CREATE TABLE ItemTable (key TEXT, value BLOB)',
        'INSERT INTO ItemTable VALUES (?, ?)',
        [['composerData:1', JSON.stringify({ title: 'Still exported', cwd: '/w/app' })]],
      );
      const result = await cursorParticipant.export(exportEnvironment(home));
      expect(result.warnings, label).toHaveLength(1);
      expect(result.warnings[0], label).toContain('state.vscdb');
      expect(result.warnings[0], label).not.toContain('\n');
      expect(result.manifest!.recent_sessions, label).toEqual([
        { date: '2026-05-01', cwd: '/w/app', key_actions: ['Still exported'] },
      ]);
    }
  });

  it('a database cut short at any length never throws', async () => {
    const home = tempDir('bourdon-cursor-cut-');
    const file = path.join(home, ...GLOBAL_DB);
    const rows = Array.from({ length: 300 }, (_, i) => [
      `composerData:${i}`,
      JSON.stringify({ title: `task ${i}`, cwd: `/w/p${i % 7}` }),
    ]);
    writeDatabase(file, 'CREATE TABLE ItemTable (key TEXT, value BLOB)', 'INSERT INTO ItemTable VALUES (?, ?)', rows);
    const whole = fs.readFileSync(file);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: whole.length - 1 }), async (size) => {
        fs.writeFileSync(file, whole.subarray(0, size));
        const result = await cursorParticipant.export(exportEnvironment(home));
        expectSaneCursorManifest(result.manifest);
        expect(result.warnings.length).toBeLessThanOrEqual(1);
      }),
      { numRuns: 40, seed: 7 },
    );
  });

  it('huge values are cut, not carried: a 4 MB title, a 200,000-file list', async () => {
    const home = tempDir('bourdon-cursor-huge-');
    const files = Array.from({ length: 200_000 }, (_, i) => `src/f${i % 1000}.ts`);
    writeDatabase(
      path.join(home, ...GLOBAL_DB),
      'CREATE TABLE ItemTable (key TEXT, value BLOB)',
      'INSERT INTO ItemTable VALUES (?, ?)',
      [['composerData:big', JSON.stringify({ title: 'word '.repeat(800_000), files })]],
    );
    const result = await cursorParticipant.export(exportEnvironment(home));
    const [session] = result.manifest!.recent_sessions as { key_actions: string[]; files_touched: string[] }[];
    expect(codePointLength(session.key_actions[0])).toBe(256);
    expect(session.files_touched).toHaveLength(1000);
  });

  it('any JSON in the short index never throws; entries without a key are skipped', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.jsonValue(),
          fc.record({
            entries: fc.array(
              fc.dictionary(
                fc.constantFrom(
                  'topic_key',
                  'topic_name',
                  'triggers',
                  'aliases',
                  'tags',
                  'summary',
                  'access_level',
                  'last_updated',
                ),
                fc.jsonValue(),
              ),
            ),
          }),
        ),
        async (payload) => {
          const home = tempDir('bourdon-cursor-index-');
          fs.mkdirSync(path.join(home, '.cursor', 'memory'), { recursive: true });
          fs.writeFileSync(path.join(home, '.cursor', 'memory', 'short-index.json'), JSON.stringify(payload) ?? '');
          const result = await cursorParticipant.export(exportEnvironment(home));
          expect(result.manifest).toBeDefined();
          for (const entity of (result.manifest!.known_entities ?? []) as { name: unknown; visibility?: string }[]) {
            expect(typeof entity.name).toBe('string');
            expect(entity.visibility).not.toBe('private');
          }
          fs.rmSync(home, { recursive: true, force: true });
        },
      ),
      { numRuns: 60, seed: 11 },
    );
  });
});

const anyCell: fc.Arbitrary<SqlValue> = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.constant(null),
  fc.uint8Array({ maxLength: 16 }),
  fc.constant(''),
  fc.constantFrom('acme/tern', '2026-04-21T10:00:00Z', 'the password is x'),
);

describe('copilot-cli export over hostile databases', () => {
  it('never throws on wrongly typed columns, and keeps its caps', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(anyCell, { minLength: 7, maxLength: 7 }), { maxLength: 12 }),
        fc.array(fc.array(anyCell, { minLength: 4, maxLength: 4 }), { maxLength: 12 }),
        fc.array(fc.array(anyCell, { minLength: 6, maxLength: 6 }), { maxLength: 12 }),
        async (sessionRows, checkpointRows, contextRows) => {
          const home = tempDir('bourdon-copilot-prop-');
          const file = path.join(home, ...COPILOT_DB);
          const db = new SQL.Database();
          db.run('CREATE TABLE sessions (id, cwd, repository, branch, summary, created_at, updated_at)');
          db.run('CREATE TABLE checkpoints (session_id, checkpoint_number, title, overview)');
          db.run('CREATE TABLE turns (session_id)');
          db.run('CREATE TABLE session_refs (session_id, ref_type, ref_value)');
          db.run('CREATE TABLE dynamic_context_items (repository, src, name, description, content, count)');
          db.run('ALTER TABLE dynamic_context_items ADD COLUMN branch');
          db.run('ALTER TABLE dynamic_context_items ADD COLUMN read_count');
          for (const row of sessionRows) db.run('INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?)', row);
          for (const row of checkpointRows) db.run('INSERT INTO checkpoints VALUES (?, ?, ?, ?)', row);
          for (const row of sessionRows) db.run('INSERT INTO turns VALUES (?)', [row[0]]);
          for (const row of sessionRows) db.run('INSERT INTO session_refs VALUES (?, ?, ?)', [row[0], row[2], row[4]]);
          for (const row of contextRows)
            db.run(
              'INSERT INTO dynamic_context_items (repository, src, name, description, content, count) VALUES (?, ?, ?, ?, ?, ?)',
              row,
            );
          fs.mkdirSync(path.dirname(file), { recursive: true });
          fs.writeFileSync(file, db.export());
          db.close();
          const result = await copilotCliParticipant.export(exportEnvironment(home));
          const manifest = result.manifest!;
          expect(manifest.capabilities).toHaveLength(7);
          for (const session of (manifest.recent_sessions ?? []) as { key_actions?: string[]; visibility: string }[]) {
            expect(session.visibility).toBe('team');
            expect((session.key_actions ?? []).length).toBeLessThanOrEqual(6);
            for (const action of session.key_actions ?? []) expect(codePointLength(action)).toBeLessThanOrEqual(280);
          }
          fs.rmSync(home, { recursive: true, force: true });
        },
      ),
      { numRuns: 50, seed: 26 },
    );
  });

  it('a store that is not SQLite still gives the manifest, with one warning', async () => {
    const home = tempDir('bourdon-copilot-hostile-');
    fs.mkdirSync(path.join(home, '.copilot'));
    fs.writeFileSync(path.join(home, ...COPILOT_DB), 'definitely not sqlite');
    const result = await copilotCliParticipant.export(exportEnvironment(home));
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toMatch(/session-store\.db: not a SQLite database$/);
    expect(result.manifest!.capabilities).toHaveLength(7);
    expect(result.manifest!.recent_sessions).toBeUndefined();
  });

  it('a sessions table of an unknown schema is reported, not thrown', async () => {
    const home = tempDir('bourdon-copilot-schema-');
    writeDatabase(
      path.join(home, ...COPILOT_DB),
      'CREATE TABLE sessions (uuid TEXT, title TEXT)',
      'INSERT INTO sessions VALUES (?, ?)',
      [['a', 'b']],
    );
    const result = await copilotCliParticipant.export(exportEnvironment(home));
    expect(result.warnings).toEqual([expect.stringMatching(/table sessions unreadable: no such column/)]);
    expect(result.manifest!.recent_sessions).toBeUndefined();
  });
});

describe('ISO dates read as Python 3.11 reads them', () => {
  it('agrees with datetime.fromisoformat on generated ISO-like strings: the date, and the instant (naive read as UTC)', () => {
    const digits = (n: number) =>
      fc.array(fc.constantFrom(...'0123456789'), { minLength: n, maxLength: n }).map((d) => d.join(''));
    const piece = fc.oneof(
      fc.constantFrom('-', ':', 'T', ' ', 'W', '-W', 'Z', '+', '.', ',', 'x', 'é', '😀'),
      digits(1),
      digits(2),
      digits(3),
      digits(4),
      fc.constantFrom('2026', '2024', '0001', '9999', '2026-04-01', '20260401', '2026-W53', '2026W01', '2024-02-29'),
      fc.constantFrom('10:30', '23:59:59', '+05:30', 'T10:30:00.123Z', '.000Z'),
    );
    const samples = fc.sample(
      fc.array(piece, { maxLength: 9 }).map((parts) => parts.join('')),
      { numRuns: 5000, seed: 5 },
    );
    // The instant as microseconds since 1970, exact (a float timestamp would round far from 1970).
    const script =
      'import json,sys\nfrom datetime import datetime,timezone\nepoch=datetime(1970,1,1,tzinfo=timezone.utc)\nout=[]\n' +
      'for v in json.load(sys.stdin):\n' +
      '  try: d=datetime.fromisoformat(v.replace("Z","+00:00"))\n' +
      '  except (ValueError, OverflowError): out.append(None); continue\n' +
      '  u=d if d.tzinfo else d.replace(tzinfo=timezone.utc)\n' +
      '  try: micros=(u-epoch)//__import__("datetime").timedelta(microseconds=1)\n' +
      '  except OverflowError: micros=None\n' +
      '  out.append([d.date().isoformat(), micros])\nprint(json.dumps(out))\n';
    const run = spawnSync('python3', ['-c', script], { input: JSON.stringify(samples), encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const expected = JSON.parse(run.stdout) as ([string, number | null] | null)[];
    const micros = (sample: string) => {
      const instant = isoInstant(sample);
      return instant === undefined ? null : Math.round(instant * 1000);
    };
    const differences = samples
      .map((sample, i) => ({
        sample,
        python: expected[i] && [expected[i][0], expected[i][1]],
        ours: isoCalendarDate(sample) === undefined ? null : [isoCalendarDate(sample), micros(sample)],
      }))
      // An aware instant before year 1 or after 9999 in UTC: Python cannot subtract it; the day still stands.
      .filter((row) => !(row.python && row.ours && row.python[1] === null && row.python[0] === row.ours[0]))
      .filter((row) => JSON.stringify(row.python) !== JSON.stringify(row.ours));
    expect(differences).toEqual([]);
    expect(expected.filter(Boolean).length).toBeGreaterThan(50);
  });

  it('the codex rules and the turn compiler read ISO text through the same parser (week dates, offset seconds, years below 100)', () => {
    expect(isoDateOf('2026-W15-1')).toBe('2026-04-06');
    expect(calendarDayOf('2026W011T10:00')).toBe('2025-12-29');
    expect(stateTimestampDate('2026-04-27T10:00:00+05:30:15.5')).toBe('2026-04-27');
    // Offset seconds count, as Python's timedelta does: 10:00 at +05:30:15.5 is 04:29:44.5 UTC.
    expect(sortInstant('2026-04-27T10:00:00+05:30:15.5')).toBe(Date.UTC(2026, 3, 27, 4, 29, 44, 500) / 1000);
    expect(sortInstant('0050-01-01')).toBe(-60_589_296_000);
    // Text after a complete offset is refused, as Python refuses it; isoDateOf then takes the dashed head.
    expect(stateTimestampDate('2026-04-23T14:00:00Z20')).toBe('');
    expect(isoDateOf('2026-04-23T14:00:00Z20')).toBe('2026-04-23');
  });
});
