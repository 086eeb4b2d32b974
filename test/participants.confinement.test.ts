/**
 * What an export reads (issue 41, item 1), attacked as a hostile repository would: an export
 * run in its folder falls back to its `./claude-brain` and reads its `./.mcp.json`. Links there
 * to the user's ~/.pgpass, ~/.kube/config and ~/.docker/config.json, and a config naming a graph
 * elsewhere in the home, must publish nothing; each refusal is one warning naming the file.
 * A brain folder that is itself a link (kept in a synced drive) still works, and so does a
 * file given explicitly.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { runExportCli } from './helpers/export-cli.js';
import { REPO_ROOT, tempDir } from './helpers/fixtures.js';

const PGPASS = 'db.example.com:5432:app:admin:PgpassSecret42';
const KUBE = 'client-key-data: S3VCRS1LRVktREFUQS1TRUNSRVQ=';
const DOCKER = '{"auths": {"ghcr.io": {"auth": "RE9DS0VSLUFVVEgtU0VDUkVU"}}}';
const GRAPH_SECRET = 'Graph outside the repository';

function write(file: string, text: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

function graphLine(name: string): string {
  return JSON.stringify({ type: 'entity', name, entityType: 'project', observations: [`${name}.`] }) + '\n';
}

/** A home with credentials in it, and a hostile repository inside it (so the home bound alone does not help). */
function hostileSetup() {
  const root = tempDir('bourdon-hostile-repo-');
  const home = path.join(root, 'home');
  write(path.join(home, '.pgpass'), `${PGPASS}\n`);
  write(path.join(home, '.kube', 'config'), `users:\n- name: me\n  user:\n    ${KUBE}\n`);
  write(path.join(home, '.docker', 'config.json'), `${DOCKER}\n`);
  write(path.join(home, 'private', 'graph.jsonl'), graphLine(GRAPH_SECRET));

  const repo = path.join(root, 'home', 'src', 'evil-repo');
  const log = path.join(repo, 'claude-brain', 'LOG');
  fs.mkdirSync(log, { recursive: true });
  fs.symlinkSync('../../../../.pgpass', path.join(log, '2026-12-01-notes.md'));
  fs.symlinkSync(path.join(home, '.kube', 'config'), path.join(log, '2026-12-02-kube.md'));
  write(path.join(repo, 'claude-brain', 'LOG', '2026-12-03-real.md'), 'Shipped the parser.\n');
  fs.mkdirSync(path.join(repo, 'claude-brain', 'PROJECTS'), { recursive: true });
  fs.symlinkSync(path.join(home, '.docker'), path.join(repo, 'claude-brain', 'PROJECTS', 'Registry'));
  fs.symlinkSync(path.join(home, '.docker', 'config.json'), path.join(home, '.docker', 'OVERVIEW.md'));
  // The repository's MCP config names a graph outside it, and one inside it.
  write(
    path.join(repo, '.mcp.json'),
    JSON.stringify({
      mcpServers: {
        outside: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-memory'],
          env: { MEMORY_FILE_PATH: path.join(home, 'private', 'graph.jsonl') },
        },
        inside: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-memory'],
          env: { MEMORY_FILE_PATH: path.join(repo, 'data', 'graph.jsonl') },
        },
      },
    }),
  );
  write(path.join(repo, 'data', 'graph.jsonl'), graphLine('Graph inside the repository'));
  return { root, home, repo };
}

const SECRETS = ['PgpassSecret42', 'S3VCRS1LRVktREFUQS1TRUNSRVQ', 'RE9DS0VSLUFVVEgtU0VDUkVU', GRAPH_SECRET];

describe('an export run in a hostile repository', () => {
  it('claude-code: links in ./claude-brain to files outside it are refused, one warning each; the rest is exported', async () => {
    const { root, home, repo } = hostileSetup();
    const out = path.join(root, 'claude-code.yaml');
    const result = await runCli(['claude-code', 'export', '--out', out], {
      env: { HOME: home, CLAUDE_BRAIN: undefined, SOURCE_DATE_EPOCH: '1764806400' },
      cwd: repo,
    });
    expect(result.code, result.stderr).toBe(0);
    const text = fs.readFileSync(out, 'utf8');
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    expect(text).toContain('Shipped the parser.');
    const warnings = result.stderr.trim().split('\n');
    for (const name of ['2026-12-01-notes.md', '2026-12-02-kube.md', path.join('PROJECTS', 'Registry')]) {
      expect(warnings.filter((line) => line.includes(name) && line.includes('skipped'))).toHaveLength(1);
    }
    for (const line of warnings) expect(line).not.toContain('\n');
  });

  it('mcp-memory: ./.mcp.json may name a graph inside the repository, not one elsewhere', async () => {
    const { root, home, repo } = hostileSetup();
    const out = path.join(root, 'mcp-memory.yaml');
    const result = await runCli(['mcp-memory', 'export', '--out', out], {
      env: { HOME: home, MEMORY_FILE_PATH: undefined, SOURCE_DATE_EPOCH: '1764806400' },
      cwd: repo,
    });
    expect(result.code, result.stderr).toBe(0);
    const text = fs.readFileSync(out, 'utf8');
    expect(text).not.toContain(GRAPH_SECRET);
    expect(text).toContain('Graph inside the repository');
    const refusals = result.stderr.split('\n').filter((line) => line.includes(path.join('private', 'graph.jsonl')));
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatch(/skipped, .*\.mcp\.json names it but it lies outside the working folder/);
  });

  it('the same graph given explicitly (--file) is read', async () => {
    const { root, home, repo } = hostileSetup();
    const out = path.join(root, 'explicit.yaml');
    const result = await runCli(
      ['mcp-memory', 'export', '--file', path.join(home, 'private', 'graph.jsonl'), '--out', out],
      { env: { HOME: home, SOURCE_DATE_EPOCH: '1764806400' }, cwd: repo },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(fs.readFileSync(out, 'utf8')).toContain(GRAPH_SECRET);
  });

  it('a brain folder that is itself a link (a synced drive outside the home) still works', async () => {
    const root = tempDir('bourdon-synced-brain-');
    const home = path.join(root, 'home');
    const drive = path.join(root, 'drive', 'brain');
    write(path.join(drive, 'LOG', '2026-12-01-sync.md'), 'Synced brain entry.\n');
    fs.mkdirSync(home, { recursive: true });
    fs.symlinkSync(drive, path.join(home, 'claude-brain'));
    const out = path.join(root, 'out.yaml');
    const result = await runCli(['claude-code', 'export', '--out', out], {
      env: { HOME: home, CLAUDE_BRAIN: undefined, SOURCE_DATE_EPOCH: '1764806400' },
      cwd: root,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(fs.readFileSync(out, 'utf8')).toContain('Synced brain entry.');
    expect(result.stderr).toBe('');
  });
});

describe('a broken link in a store', () => {
  it('claude-code: a brain note that is a link to nothing, or one that loops, is named once each; the rest is exported', async () => {
    const root = tempDir('bourdon-broken-links-');
    const brain = path.join(root, 'home', 'claude-brain');
    write(path.join(brain, 'LOG', '2026-12-03-real.md'), 'Shipped the parser.\n');
    fs.symlinkSync('nowhere.md', path.join(brain, 'LOG', '2026-12-01-gone.md'));
    fs.symlinkSync('2026-12-02-loop.md', path.join(brain, 'LOG', '2026-12-02-loop.md'));
    const out = path.join(root, 'out.yaml');
    const result = await runCli(['claude-code', 'export', '--out', out], {
      env: { HOME: path.join(root, 'home'), CLAUDE_BRAIN: undefined, SOURCE_DATE_EPOCH: '1764806400' },
      cwd: root,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(fs.readFileSync(out, 'utf8')).toContain('Shipped the parser.');
    const lines = result.stderr.trim().split('\n');
    expect(
      lines.filter((line) => line.includes('2026-12-01-gone.md') && line.includes('a link to nothing')),
    ).toHaveLength(1);
    expect(
      lines.filter((line) => line.includes('2026-12-02-loop.md') && line.includes('a link that loops')),
    ).toHaveLength(1);
  });
});

/** Runs `script` in Python with `args`; its sqlite3 plays the agent writing its store. */
function python(script: string, ...args: string[]): void {
  const run = spawnSync('python3', ['-c', script, ...args], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
}

/** A SQLite database at `file` made by `statements` (one per line). */
function sqlite(file: string, statements: string[]): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  python(
    'import sqlite3,sys\nc=sqlite3.connect(sys.argv[1])\nfor s in sys.argv[2:]: c.execute(s)\nc.commit()',
    file,
    ...statements,
  );
  return file;
}

const item = (key: string, title: string) =>
  `INSERT INTO ItemTable VALUES ('${key}', '${JSON.stringify({ title, createdAt: '2026-12-01' })}')`;
const SESSIONS_TABLE =
  'CREATE TABLE sessions (id TEXT, cwd TEXT, repository TEXT, branch TEXT, summary TEXT, created_at TEXT, updated_at TEXT)';
const session = (id: string, summary: string) =>
  `INSERT INTO sessions VALUES ('${id}', '/w', 'acme/app', 'main', '${summary}', '2026-12-01T10:00:00Z', '2026-12-01T10:00:00Z')`;

/** The lines of `stderr` naming `name` as skipped. */
const refusals = (stderr: string, name: string) =>
  stderr.split('\n').filter((line) => line.includes(name) && line.includes('skipped'));

describe('the SQLite participants read confined (cursor, copilot-cli)', () => {
  it('cursor: a workspace database and the short index that are links out of their folders are refused, one warning each', async () => {
    const root = tempDir('bourdon-cursor-links-');
    const home = path.join(root, 'home');
    const outside = path.join(home, 'elsewhere');
    sqlite(path.join(outside, 'secret.vscdb'), [
      'CREATE TABLE ItemTable (key TEXT, value BLOB)',
      item('chat.secret', 'SecretCursorTitle42'),
    ]);
    write(
      path.join(outside, 'index.json'),
      JSON.stringify({ entries: [{ topic_key: 'SecretTopic42', summary: 'x', visibility: 'team' }] }),
    );
    const storage = path.join(home, '.config', 'Cursor', 'User', 'workspaceStorage');
    sqlite(path.join(storage, 'a', 'state.vscdb'), [
      'CREATE TABLE ItemTable (key TEXT, value BLOB)',
      item('chat.real', 'Real workspace chat'),
    ]);
    fs.mkdirSync(path.join(storage, 'b'));
    fs.symlinkSync(path.join(outside, 'secret.vscdb'), path.join(storage, 'b', 'state.vscdb'));
    // A whole workspace folder that is a link out, too.
    fs.symlinkSync(outside, path.join(storage, 'c'));
    fs.mkdirSync(path.join(home, '.cursor', 'memory'), { recursive: true });
    fs.symlinkSync(path.join(outside, 'index.json'), path.join(home, '.cursor', 'memory', 'short-index.json'));
    fs.copyFileSync(path.join(outside, 'secret.vscdb'), path.join(outside, 'state.vscdb'));

    const out = path.join(root, 'cursor.yaml');
    const result = await runCli(['cursor', 'export', '--out', out], {
      env: { HOME: home, CURSOR_DIR: undefined, SOURCE_DATE_EPOCH: '1764806400' },
      cwd: root,
    });
    expect(result.code, result.stderr).toBe(0);
    const text = fs.readFileSync(out, 'utf8');
    expect(text).toContain('Real workspace chat');
    expect(text).not.toContain('SecretCursorTitle42');
    expect(text).not.toContain('SecretTopic42');
    for (const name of [path.join('b', 'state.vscdb'), path.join('c', 'state.vscdb'), 'short-index.json'])
      expect(refusals(result.stderr, name), result.stderr).toHaveLength(1);
  });

  it('copilot-cli: a session store that is a link out of its folder is refused with one warning; the manifest is still written', async () => {
    const root = tempDir('bourdon-copilot-cli-link-');
    const home = path.join(root, 'home');
    sqlite(path.join(home, 'elsewhere', 'store.db'), [SESSIONS_TABLE, session('s1', 'SecretCopilotSummary42')]);
    fs.mkdirSync(path.join(home, '.copilot'), { recursive: true });
    fs.symlinkSync(path.join(home, 'elsewhere', 'store.db'), path.join(home, '.copilot', 'session-store.db'));
    const out = path.join(root, 'copilot-cli.yaml');
    const result = await runCli(['copilot-cli', 'export', '--out', out], {
      env: { HOME: home, COPILOT_CLI_HOME: undefined, SOURCE_DATE_EPOCH: '1764806400' },
      cwd: root,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(fs.readFileSync(out, 'utf8')).not.toContain('SecretCopilotSummary42');
    expect(refusals(result.stderr, 'session-store.db'), result.stderr).toHaveLength(1);
  });

  it("copilot-cli: a write-ahead log that is a link out is refused with one warning; the store's own rows are exported", async () => {
    const root = tempDir('bourdon-copilot-cli-wal-');
    const home = path.join(root, 'home');
    const agent = path.join(home, 'elsewhere', 'agent.db');
    fs.mkdirSync(path.dirname(agent), { recursive: true });
    // A WAL-mode store whose checkpointed row is in the main file and whose later row is only in its log.
    python(
      [
        'import sqlite3,sys',
        'c=sqlite3.connect(sys.argv[1],isolation_level=None)',
        "c.execute('PRAGMA journal_mode=WAL'); c.execute('PRAGMA wal_autocheckpoint=0')",
        'c.execute(sys.argv[2]); c.execute(sys.argv[3])',
        "c.execute('PRAGMA wal_checkpoint(TRUNCATE)')",
        'c.execute(sys.argv[4])',
        "import shutil; shutil.copy(sys.argv[1], sys.argv[5]); shutil.copy(sys.argv[1] + '-wal', sys.argv[1] + '-kept-wal')",
      ].join('\n'),
      agent,
      SESSIONS_TABLE,
      session('s1', 'Checkpointed summary'),
      session('s2', 'SecretWalSummary42'),
      path.join(home, 'elsewhere', 'main.db'),
    );
    const folder = path.join(home, '.copilot');
    fs.mkdirSync(folder, { recursive: true });
    fs.copyFileSync(path.join(home, 'elsewhere', 'main.db'), path.join(folder, 'session-store.db'));
    fs.symlinkSync(`${agent}-kept-wal`, path.join(folder, 'session-store.db-wal'));
    const out = path.join(root, 'copilot-cli.yaml');
    const result = await runCli(['copilot-cli', 'export', '--out', out], {
      env: { HOME: home, COPILOT_CLI_HOME: undefined, SOURCE_DATE_EPOCH: '1764806400' },
      cwd: root,
    });
    expect(result.code, result.stderr).toBe(0);
    const text = fs.readFileSync(out, 'utf8');
    expect(text).toContain('Checkpointed summary');
    expect(text).not.toContain('SecretWalSummary42');
    expect(refusals(result.stderr, 'session-store.db-wal'), result.stderr).toHaveLength(1);
    // The same log beside the store, not a link, is read: the refusal is the link's, not the log's.
    fs.rmSync(path.join(folder, 'session-store.db-wal'));
    fs.copyFileSync(`${agent}-kept-wal`, path.join(folder, 'session-store.db-wal'));
    const again = await runCli(['copilot-cli', 'export', '--out', out], {
      env: { HOME: home, COPILOT_CLI_HOME: undefined, SOURCE_DATE_EPOCH: '1764806400' },
      cwd: root,
    });
    expect(again.code, again.stderr).toBe(0);
    expect(fs.readFileSync(out, 'utf8')).toContain('SecretWalSummary42');
  });
});

/** The recorded cx_state_db home in a fresh machine, with `elsewhere/` beside the home (outside the Codex home); `exportCodex` exports into its library. */
function codexMachine() {
  const root = tempDir('bourdon-codex-links-');
  const folders = {
    home: path.join(root, 'home'),
    bourdonHome: path.join(root, 'config'),
    library: path.join(root, 'library'),
  };
  const fixture = path.join(
    REPO_ROOT,
    'test',
    'fixtures',
    'conformance',
    'participants',
    'codex',
    'cx_state_db',
    'home',
  );
  fs.cpSync(fixture, folders.home, { recursive: true });
  const codexHome = path.join(folders.home, '.codex');
  const elsewhere = path.join(root, 'elsewhere');
  fs.mkdirSync(elsewhere);
  const exportCodex = async () => {
    const result = await runExportCli(folders, ['codex', 'export'], { CODEX_HOME: undefined });
    expect(result.code, result.stderr).toBe(0);
    return {
      stderr: result.stderr,
      manifest: fs.readFileSync(path.join(folders.library, 'agents', 'codex.l5.yaml'), 'utf8'),
    };
  };
  return { root, home: folders.home, codexHome, elsewhere, exportCodex };
}

describe("codex reads its state database's log confined too", () => {
  it('a write-ahead log beside state_5.sqlite that is a link out is refused with one warning; the checkpointed rows are exported', async () => {
    const { root, home, elsewhere } = codexMachine();
    const state = path.join(home, '.codex', 'state_5.sqlite');
    // A change only in the log: kept (with the main file as it was) while the connection is open.
    python(
      [
        'import sqlite3,sys,shutil',
        'c=sqlite3.connect(sys.argv[1],isolation_level=None)',
        "c.execute('PRAGMA journal_mode=WAL'); c.execute('PRAGMA wal_autocheckpoint=0')",
        "c.execute(\"UPDATE threads SET title='SecretWalTitle42' WHERE id='thr-aaaa-0001'\")",
        "shutil.copy(sys.argv[1], sys.argv[2]); shutil.copy(sys.argv[1] + '-wal', sys.argv[3])",
      ].join('\n'),
      state,
      path.join(elsewhere, 'main.sqlite'),
      path.join(elsewhere, 'kept-wal'),
    );
    fs.rmSync(`${state}-wal`, { force: true });
    fs.rmSync(`${state}-shm`, { force: true });
    fs.copyFileSync(path.join(elsewhere, 'main.sqlite'), state);
    fs.symlinkSync(path.join(elsewhere, 'kept-wal'), `${state}-wal`);
    const out = path.join(root, 'codex.yaml');
    const run = () =>
      runCli(['codex', 'export', '--out', out], {
        env: { HOME: home, CODEX_HOME: undefined, SOURCE_DATE_EPOCH: '1777636800' },
        cwd: home,
      });
    const result = await run();
    expect(result.code, result.stderr).toBe(0);
    const text = fs.readFileSync(out, 'utf8');
    expect(text).toContain('Quarry import pipeline');
    expect(text).not.toContain('SecretWalTitle42');
    expect(refusals(result.stderr, 'state_5.sqlite-wal'), result.stderr).toHaveLength(1);
    // The same log beside the database, not a link, is read: the refusal is the link's.
    fs.rmSync(`${state}-wal`);
    fs.copyFileSync(path.join(elsewhere, 'kept-wal'), `${state}-wal`);
    const again = await run();
    expect(again.code, again.stderr).toBe(0);
    expect(fs.readFileSync(out, 'utf8')).toContain('SecretWalTitle42');
  });
});

describe('codex: a main file of the Codex home that is a link out is refused with one warning (docs/security.md)', () => {
  /** A file outside the Codex home holding SecretOutside42 where `file` (a path in the Codex home) would be. */
  const outsideFiles: [string, string, (file: string, outside: string) => void][] = [
    [
      'memories/MEMORY.md',
      'MEMORY.md',
      (_file, outside) => {
        write(outside, '# Task Group: SecretOutside42\n');
      },
    ],
    [
      'state_5.sqlite',
      'state.sqlite',
      (file, outside) => {
        fs.copyFileSync(file, outside);
        fs.rmSync(file);
        python(
          "import sqlite3,sys\nc=sqlite3.connect(sys.argv[1])\nc.execute(\"UPDATE threads SET title='SecretOutside42' WHERE id='thr-aaaa-0001'\")\nc.commit()",
          outside,
        );
      },
    ],
  ];

  it.each(outsideFiles)(
    '%s linked outside: the rest is exported, one warning names it, its content is not published',
    async (relative, name, makeOutside) => {
      const { codexHome, elsewhere, exportCodex } = codexMachine();
      const file = path.join(codexHome, relative);
      const outside = path.join(elsewhere, name);
      makeOutside(file, outside);
      fs.symlinkSync(outside, file);
      const { stderr, manifest } = await exportCodex();
      // The rest: the raw memories (and, without the database, the session index's sessions).
      expect(manifest).toContain('explain quarry schema');
      expect(manifest).not.toContain('SecretOutside42');
      const named = stderr.split('\n').filter((line) => line.includes(path.basename(file)));
      expect(named, stderr).toEqual([
        expect.stringContaining(`${file}: skipped, it is a link leading outside ${codexHome}`),
      ]);
      // The same file in the home, not a link, is read: the refusal is the link's.
      fs.rmSync(file);
      fs.copyFileSync(outside, file);
      const again = await exportCodex();
      expect(again.manifest).toContain('SecretOutside42');
      expect(again.stderr).not.toContain(path.basename(file));
    },
  );
});
