/**
 * The read-only SQLite access the participants use: it reads what a running agent committed
 * (its write-ahead log included), never locks or changes the agent's files, and turns a file it
 * cannot read into a one-line reason. Python's sqlite3 plays the agent.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openReadOnly } from '../src/core/native/sqlite.js';
import { tempDir } from './helpers/fixtures.js';

function python(script: string, ...args: string[]): string {
  const run = spawnSync('python3', ['-c', script, ...args], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return run.stdout.trim();
}

/** A WAL-mode database whose last `walRows` rows are only in the log, copied as a running agent leaves it. */
function walDatabase(dir: string, walRows: number): string {
  const source = path.join(dir, 'agent.db');
  const copy = path.join(dir, 'session-store.db');
  python(
    [
      'import sqlite3,shutil,sys',
      'src,dst,n=sys.argv[1],sys.argv[2],int(sys.argv[3])',
      'c=sqlite3.connect(src,isolation_level=None)',
      "c.execute('PRAGMA journal_mode=WAL'); c.execute('PRAGMA wal_autocheckpoint=0')",
      "c.execute('CREATE TABLE sessions (id TEXT, summary TEXT)')",
      "c.execute(\"INSERT INTO sessions VALUES ('old','checkpointed')\"); c.execute('PRAGMA wal_checkpoint(TRUNCATE)')",
      'for i in range(n): c.execute("INSERT INTO sessions VALUES (?, ?)", ("s%d" % i, "x" * 300))',
      "shutil.copy(src, dst); shutil.copy(src + '-wal', dst + '-wal')",
    ].join('\n'),
    source,
    copy,
    String(walRows),
  );
  return copy;
}

async function ids(file: string): Promise<string[]> {
  const db = await openReadOnly(file);
  try {
    return db.all('SELECT id FROM sessions ORDER BY rowid').map((row) => String(row.id));
  } finally {
    db.close();
  }
}

describe('openReadOnly', () => {
  it('reads the rows a WAL-mode agent has committed but not yet checkpointed', async () => {
    const file = walDatabase(tempDir(), 40);
    const rows = await ids(file);
    expect(rows).toHaveLength(41);
    expect(rows.at(-1)).toBe('s39');
    // Without its log the main file alone holds only the checkpointed row.
    fs.rmSync(`${file}-wal`);
    expect(await ids(file)).toEqual(['old']);
  });

  it('stops at the last whole commit of a log cut short mid-frame', async () => {
    const file = walDatabase(tempDir(), 5);
    const wal = fs.readFileSync(`${file}-wal`);
    fs.writeFileSync(`${file}-wal`, wal.subarray(0, wal.length - 100));
    expect(await ids(file)).toEqual(['old', 's0', 's1', 's2', 's3']);
  });

  it('never writes, creates or changes anything beside the database (no -shm, no -journal)', async () => {
    const file = walDatabase(tempDir(), 3);
    const before = fs.readdirSync(path.dirname(file)).sort();
    const bytes = fs.readFileSync(file);
    const log = fs.readFileSync(`${file}-wal`);
    const mtime = fs.statSync(file).mtimeMs;
    const db = await openReadOnly(file);
    db.all('SELECT * FROM sessions');
    db.close();
    expect(fs.readdirSync(path.dirname(file)).sort()).toEqual(before);
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
    expect(fs.readFileSync(`${file}-wal`).equals(log)).toBe(true);
    expect(fs.statSync(file).mtimeMs).toBe(mtime);
  });

  it('holds no lock: the agent commits, with no busy timeout, while our copy is open', async () => {
    const file = path.join(tempDir(), 'state.vscdb');
    python(
      "import sqlite3,sys\nc=sqlite3.connect(sys.argv[1])\nc.execute('CREATE TABLE sessions (id TEXT)')\nc.commit()",
      file,
    );
    const db = await openReadOnly(file);
    const committed = python(
      [
        'import sqlite3,sys',
        'c=sqlite3.connect(sys.argv[1],isolation_level=None,timeout=0)',
        "c.execute('BEGIN EXCLUSIVE'); c.execute(\"INSERT INTO sessions VALUES ('new')\"); c.execute('COMMIT')",
        "print('committed')",
      ].join('\n'),
      file,
    );
    expect(db.all('SELECT id FROM sessions')).toEqual([]);
    db.close();
    expect(committed).toBe('committed');
  });

  it('reads the last committed state while a writer holds the exclusive lock', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'state.vscdb');
    python(
      "import sqlite3,sys\nc=sqlite3.connect(sys.argv[1])\nc.execute('CREATE TABLE sessions (id TEXT)')\nc.execute(\"INSERT INTO sessions VALUES ('a')\")\nc.commit()",
      file,
    );
    const holder = spawn(
      'python3',
      [
        '-c',
        [
          'import sqlite3,sys',
          'c=sqlite3.connect(sys.argv[1],isolation_level=None)',
          "c.execute('BEGIN EXCLUSIVE'); c.execute(\"INSERT INTO sessions VALUES ('uncommitted')\")",
          "print('held',flush=True)",
          "sys.stdin.readline(); c.execute('ROLLBACK')",
        ].join('\n'),
        file,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    await new Promise((resolve) => holder.stdout.once('data', resolve));
    try {
      expect(await ids(file)).toEqual(['a']);
    } finally {
      holder.stdin.end();
      await new Promise((resolve) => holder.once('exit', resolve));
    }
  });

  it('refuses, with a one-line reason, a database whose rollback journal is hot (being written)', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'state.vscdb');
    python(
      "import sqlite3,sys\nc=sqlite3.connect(sys.argv[1])\nc.execute('CREATE TABLE sessions (id TEXT)')\nc.commit()",
      file,
    );
    fs.writeFileSync(
      `${file}-journal`,
      Buffer.concat([Buffer.from([0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]), Buffer.alloc(504)]),
    );
    await expect(openReadOnly(file)).rejects.toThrow(/^[^\n]*state\.vscdb: it is being written[^\n]*$/);
    // A journal whose header was zeroed (committed, journal_mode=PERSIST) is not hot.
    fs.writeFileSync(`${file}-journal`, Buffer.alloc(512));
    expect(await ids(file)).toEqual([]);
  });

  it.each([
    ['a text file', Buffer.from('this is not a database\n'.repeat(100)), /not a SQLite database/],
    ['random bytes', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)), /not a SQLite database/],
  ])('turns %s into a one-line reason naming the file', async (_label, bytes, reason) => {
    const file = path.join(tempDir(), 'state.vscdb');
    fs.writeFileSync(file, bytes);
    const error = await openReadOnly(file).then(
      () => undefined,
      (caught: unknown) => caught as Error,
    );
    expect(error?.message).toMatch(reason);
    expect(error?.message).toContain(file);
    expect(error?.message).not.toContain('\n');
  });

  it('turns a database cut short into a one-line reason, or reads what is there, never hangs or crashes', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'whole.db');
    python(
      "import sqlite3,sys\nc=sqlite3.connect(sys.argv[1])\nc.execute('PRAGMA page_size=512')\nc.execute('CREATE TABLE sessions (id TEXT)')\nc.executemany('INSERT INTO sessions VALUES (?)', [('s%d' % i,) for i in range(2000)])\nc.commit()",
      file,
    );
    const whole = fs.readFileSync(file);
    for (const size of [100, 512, 1024, 4096, Math.floor(whole.length / 2)]) {
      const cut = path.join(dir, `cut-${size}.db`);
      fs.writeFileSync(cut, whole.subarray(0, size));
      const outcome = await ids(cut).then(
        (rows) => `rows:${rows.length}`,
        (error: Error) => `error:${error.message}`,
      );
      expect(outcome).not.toContain('\n');
      if (outcome.startsWith('error:')) expect(outcome).toContain(cut);
    }
  });

  it('reads the database as it was when opened, while the agent rewrites it underneath', async () => {
    const file = path.join(tempDir(), 'state.vscdb');
    const agent = [
      'import sqlite3,sys',
      'c=sqlite3.connect(sys.argv[1],isolation_level=None)',
      "c.execute('CREATE TABLE IF NOT EXISTS sessions (id TEXT, body TEXT)')",
      'n=int(sys.argv[2])',
      "c.execute('BEGIN'); c.execute('DELETE FROM sessions')",
      'c.executemany("INSERT INTO sessions VALUES (?, ?)", [("%s%d" % (sys.argv[3], i), "x" * (i % 900)) for i in range(n)])',
      "c.execute('COMMIT'); c.execute('VACUUM')",
    ].join('\n');
    python(agent, file, '3000', 'old');
    const db = await openReadOnly(file);
    try {
      // Every page of the file changes (new rows, then VACUUM) while our copy is open and unread.
      python(agent, file, '500', 'new');
      const rows = [...db.rows('SELECT id FROM sessions ORDER BY rowid')].map((row) => String(row.id));
      expect(rows).toHaveLength(3000);
      expect(rows[2999]).toBe('old2999');
    } finally {
      db.close();
    }
  });

  it('leaves nothing of its copy in the temp folder, while open or after', async () => {
    const file = walDatabase(tempDir(), 20);
    const temp = tempDir('bourdon-tmpdir-');
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = temp;
    try {
      const db = await openReadOnly(file);
      expect(fs.readdirSync(temp)).toEqual([]);
      expect(db.all('SELECT COUNT(*) AS n FROM sessions')).toEqual([{ n: 21 }]);
      db.close();
      expect(fs.readdirSync(temp)).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });

  it('hands rows over in batches, the same rows as all(); a loop left early frees its statement', async () => {
    const file = path.join(tempDir(), 'state.vscdb');
    python(
      [
        'import sqlite3,sys',
        'c=sqlite3.connect(sys.argv[1])',
        "c.execute('CREATE TABLE ItemTable (key TEXT, value BLOB, n, r REAL)')",
        // 3 MB of values: more than one batch by size, and by count.
        'c.executemany("INSERT INTO ItemTable VALUES (?, ?, ?, ?)", [("k%d" % i, ("v%d" % i) * 300 if i % 3 else bytes([i % 256]) * 40, i if i % 5 else None, i / 7) for i in range(2000)])',
        'c.commit()',
      ].join('\n'),
      file,
    );
    const db = await openReadOnly(file);
    try {
      const all = db.all('SELECT key, value, n, r FROM ItemTable');
      expect([...db.rows('SELECT key, value, n, r FROM ItemTable')]).toEqual(all);
      let seen = 0;
      for (const row of db.rows('SELECT key FROM ItemTable')) {
        expect(row.key).toBe(`k${seen}`);
        if (++seen === 3) break;
      }
      expect([...db.rows('SELECT key FROM ItemTable WHERE key = ?', ['k1999'])]).toEqual([{ key: 'k1999' }]);
      expect([...db.rows('SELECT key FROM ItemTable WHERE 0')]).toEqual([]);
    } finally {
      db.close();
    }
  });

  it('opens a WAL-mode database whose log was checkpointed and removed, as it is', async () => {
    const file = walDatabase(tempDir(), 4);
    python(
      "import sqlite3,sys\nc=sqlite3.connect(sys.argv[1])\nc.execute('PRAGMA wal_checkpoint(TRUNCATE)')\nc.close()",
      file,
    );
    fs.rmSync(`${file}-wal`, { force: true });
    fs.rmSync(`${file}-shm`, { force: true });
    expect(fs.readFileSync(file).subarray(18, 20)).toEqual(Buffer.from([2, 2]));
    expect(await ids(file)).toEqual(['old', 's0', 's1', 's2', 's3']);
  });
});
