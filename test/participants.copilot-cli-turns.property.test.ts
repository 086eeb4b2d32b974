/**
 * copilot-cli counts every exported session's turns in one pass over `turns`, where the engine
 * asks `SELECT COUNT(*) FROM turns WHERE session_id = ?` once per session. The counts must be the
 * engine's whatever the column's declared type (its affinity and collation decide what `= ?`
 * matches) and whatever the ids hold: text, numbers as text, integers, reals, blobs, NULL, text
 * differing only in case. Two oracles: the engine's own queries, run by python3's sqlite3 on the
 * same file, for ids that reach JavaScript and back unchanged; and for any ids, the per-session
 * query as our reader runs it (the code before the change), since sql.js binds an integer beyond
 * 32 bits as a double and reads an integral REAL as an integer, which Python does not (a
 * difference older than the one pass, docs/participants-sqlite.md).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import fc from 'fast-check';
import type { SqlJsStatic, SqlValue } from 'sql.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { copilotCliParticipant } from '../src/participants/copilot-cli/index.js';
import { tempDir } from './helpers/fixtures.js';
import { exportEnvironment } from './helpers/participant-cases.js';

const require = createRequire(import.meta.url);
let SQL: SqlJsStatic;
beforeAll(async () => {
  SQL = await (require('sql.js') as () => Promise<SqlJsStatic>)();
});

/** The engine's reading: its sessions query, then one COUNT(*) per exported session. */
const ENGINE_COUNTS = `
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
rows = c.execute('SELECT id FROM sessions ORDER BY created_at DESC LIMIT 200').fetchall()
print(json.dumps([c.execute('SELECT COUNT(*) FROM turns WHERE session_id = ?', (r[0],)).fetchone()[0] for r in rows[:100]]))
`;

/** Ids JavaScript reads and binds back as Python does: text, blobs, NULL, 32-bit integers, non-integral reals. */
const faithfulId: fc.Arbitrary<SqlValue> = fc.oneof(
  fc.constantFrom('s1', 'S1', '7', '7.0', ' 7', '07', '7.5', 'x', ''),
  fc.constantFrom(7, 7.5, 0, -1, -2.25),
  fc.constant(null),
  fc.constantFrom(new Uint8Array([0x73, 0x31]), new Uint8Array([0x37]), new Uint8Array([])),
);
const anyId: fc.Arbitrary<SqlValue> = fc.oneof(faithfulId, fc.constantFrom(2 ** 40, 7.0, 2 ** 31, -(2 ** 33)));
const declared = fc.constantFrom(
  'TEXT',
  'INTEGER',
  'NUMERIC',
  'REAL',
  'BLOB',
  '',
  'TEXT COLLATE NOCASE',
  'VARCHAR(20)',
);

/** A store with those sessions (dated in order) and turns, its columns declared as given. */
function store(sessionType: string, turnType: string, sessionIds: SqlValue[], turnIds: SqlValue[]): string {
  const home = tempDir('bourdon-copilot-turns-');
  const file = path.join(home, '.copilot', 'session-store.db');
  const db = new SQL.Database();
  db.run(`CREATE TABLE sessions (id ${sessionType}, cwd, repository, branch, summary, created_at, updated_at)`);
  db.run(`CREATE TABLE turns (session_id ${turnType}, turn_index INTEGER)`);
  sessionIds.forEach((value, n) =>
    db.run('INSERT INTO sessions (id, created_at) VALUES (?, ?)', [value, `2026-01-${String(n + 1).padStart(2, '0')}`]),
  );
  turnIds.forEach((value, n) => db.run('INSERT INTO turns VALUES (?, ?)', [value, n]));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, db.export());
  db.close();
  return home;
}

const asActions = (counts: number[]): string[][] => counts.map((n) => (n ? [`turns: ${n}`] : []));

/**
 * For any declared types and stores of ids drawn from `id`: each exported session's key actions
 * (`turns: N` alone, or nothing: the store has nothing else) are those of the counts `oracle`
 * reads from the store's file.
 */
function countsAgree(id: fc.Arbitrary<SqlValue>, oracle: (file: string) => number[]) {
  return fc.asyncProperty(
    declared,
    declared,
    fc.array(id, { minLength: 1, maxLength: 12 }),
    fc.array(id, { maxLength: 40 }),
    async (sessionType, turnType, sessionIds, turnIds) => {
      const home = store(sessionType, turnType, sessionIds, turnIds);
      const result = await copilotCliParticipant.export(exportEnvironment(home));
      expect(result.warnings).toEqual([]);
      const sessions = (result.manifest!.recent_sessions ?? []) as { key_actions?: string[] }[];
      const expected = asActions(oracle(path.join(home, '.copilot', 'session-store.db')));
      expect(sessions.map((session) => session.key_actions ?? [])).toEqual(expected);
      fs.rmSync(home, { recursive: true, force: true });
    },
  );
}

describe('copilot-cli turn counts', () => {
  it("equal the engine's per-session COUNT(*) for any declared type of session_id", async () => {
    const engine = (file: string): number[] => {
      const run = spawnSync('python3', ['-c', ENGINE_COUNTS, file], { encoding: 'utf8' });
      expect(run.status, run.stderr).toBe(0);
      return JSON.parse(run.stdout) as number[];
    };
    await fc.assert(countsAgree(faithfulId, engine), { numRuns: 40, seed: 55 });
  }, 240_000);

  it('equal the per-session COUNT(*) run by our reader, for any ids', async () => {
    const ours = (file: string): number[] => {
      const db = new SQL.Database(fs.readFileSync(file));
      const ids = db
        .exec('SELECT id FROM sessions ORDER BY created_at DESC LIMIT 200')[0]!
        .values.map(([value]) => value!);
      const counts = ids.slice(0, 100).map((value) => {
        const statement = db.prepare('SELECT COUNT(*) FROM turns WHERE session_id = ?', [value]);
        statement.step();
        const count = Number(statement.get()[0]);
        statement.free();
        return count;
      });
      db.close();
      return counts;
    };
    await fc.assert(countsAgree(anyId, ours), { numRuns: 60, seed: 56 });
  }, 120_000);
});
