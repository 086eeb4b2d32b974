/**
 * Exports are bounded in time and size (issue 41, item 6): a small SQLite file whose generated
 * column is costly is abandoned after BOURDON_SOURCE_READ_TIMEOUT and the rest exported; a huge
 * knowledge graph is read line by line and only its newest entities taken; a manifest that would
 * pass the 8 MiB limit keeps the newest rows that fit and says how many it left out; a
 * 200,000-character name is cut like the other fields.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { MAX_MANIFEST_BYTES } from '../src/core/store/library.js';
import { stringifyYaml } from '../src/core/store/yaml.js';
import { MAX_GRAPH_ENTITIES } from '../src/participants/kit/knowledge-graph.js';
import { fitManifest, MAX_NAME_CHARS } from '../src/participants/finish.js';
import { openReadOnly } from '../src/participants/kit/sqlite.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';

const FIXTURES = path.join(import.meta.dirname, 'fixtures', 'conformance', 'participants');

/** A few KB of SQLite whose ItemTable.value, a generated column, takes minutes to compute. */
function costlyDatabase(file: string): void {
  // The column is added after the rows: SQLite would compute it for each row inserted after it.
  const script = [
    'import sqlite3, sys',
    'c = sqlite3.connect(sys.argv[1])',
    'inner = "printf(\'%.*c\', 100000000, raw)"',
    "for i in range(8): inner = 'upper(lower(%s))' % inner",
    "c.execute('CREATE TABLE ItemTable (key TEXT, raw TEXT)')",
    "for i in range(20): c.execute(\"INSERT INTO ItemTable(key, raw) VALUES ('composer.composerData%d', 'a')\" % i)",
    'c.commit()',
    "c.execute('ALTER TABLE ItemTable ADD COLUMN value TEXT GENERATED ALWAYS AS (substr(%s, 1, 10)) VIRTUAL' % inner)",
    'c.commit()',
  ].join('\n');
  const run = spawnSync('python3', ['-c', script, file], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
}

interface Manifest {
  known_entities: { name: string }[];
  recent_sessions: { date: string; key_actions?: string[] }[];
}

describe('a source read bounded in time', () => {
  it('openReadOnly abandons a costly database with one line, and the next database still reads', async () => {
    const dir = tempDir('bourdon-costly-');
    const costly = path.join(dir, 'costly.vscdb');
    costlyDatabase(costly);
    const before = process.env.BOURDON_SOURCE_READ_TIMEOUT;
    process.env.BOURDON_SOURCE_READ_TIMEOUT = '1';
    try {
      const error = await openReadOnly(costly)
        .then(
          (db) => {
            try {
              db.all('SELECT key, value FROM ItemTable');
              return null;
            } finally {
              db.close();
            }
          },
          (failure: Error) => failure,
        )
        .catch((failure: Error) => failure);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(/^took longer than 1 s[^\n]*BOURDON_SOURCE_READ_TIMEOUT[^\n]*$/);
    } finally {
      if (before === undefined) delete process.env.BOURDON_SOURCE_READ_TIMEOUT;
      else process.env.BOURDON_SOURCE_READ_TIMEOUT = before;
    }
    const good = await openReadOnly(
      path.join(
        FIXTURES,
        'cursor',
        'cu_global_workspace',
        'home',
        '.config',
        'Cursor',
        'User',
        'globalStorage',
        'state.vscdb',
      ),
    );
    expect(good.tables().has('ItemTable')).toBe(true);
    good.close();
  });

  it('cursor export skips the costly database with one warning and exports the rest', async () => {
    const root = tempDir('bourdon-costly-cursor-');
    const home = path.join(root, 'home');
    fs.cpSync(path.join(FIXTURES, 'cursor', 'cu_global_workspace', 'home'), home, { recursive: true });
    const hostile = path.join(home, '.config', 'Cursor', 'User', 'workspaceStorage', 'aaa111', 'state.vscdb');
    fs.rmSync(hostile);
    costlyDatabase(hostile);
    const out = path.join(root, 'cursor.yaml');
    const result = await runCli(['cursor', 'export', '--out', out], {
      env: { HOME: home, CURSOR_DIR: undefined, BOURDON_SOURCE_READ_TIMEOUT: '1', SOURCE_DATE_EPOCH: '1777636800' },
      cwd: root,
    });
    expect(result.code, result.stderr).toBe(0);
    const warnings = result.stderr.trim().split('\n');
    expect(warnings.filter((line) => line.includes('aaa111') && line.includes('took longer than 1 s'))).toHaveLength(1);
    const manifest = yaml.load(fs.readFileSync(out, 'utf8')) as Manifest;
    expect(manifest.recent_sessions.length).toBeGreaterThan(0);
  });
});

describe('an export bounded in size', () => {
  it('a huge graph is cut to its newest entities, a warning says how many were left out, the notes and brain rows stay', async () => {
    const root = tempDir('bourdon-big-graph-');
    const home = path.join(root, 'home');
    const graph = path.join(home, 'claude-memory', 'memory.jsonl');
    fs.mkdirSync(path.dirname(graph), { recursive: true });
    const total = MAX_GRAPH_ENTITIES + 2_500;
    const observation = 'o'.repeat(400);
    const fd = fs.openSync(graph, 'w');
    for (let i = 0; i < total; i += 1) {
      fs.writeSync(
        fd,
        JSON.stringify({ type: 'entity', name: `Graph ${i}`, entityType: 'concept', observations: [observation] }) +
          '\n',
      );
    }
    fs.closeSync(fd);
    const memory = path.join(home, '.claude', 'projects', '-work-app', 'memory');
    fs.mkdirSync(memory, { recursive: true });
    fs.writeFileSync(path.join(memory, 'MEMORY.md'), '# index\n');
    fs.writeFileSync(
      path.join(memory, 'release.md'),
      '---\nname: Release notes\ntype: project\n---\n\nHow we release.\n',
    );
    fs.mkdirSync(path.join(home, 'claude-brain', 'LOG'), { recursive: true });
    fs.writeFileSync(path.join(home, 'claude-brain', 'LOG', '2026-12-01-ship.md'), 'Shipped it.\n');
    const out = path.join(root, 'claude-code.yaml');
    const result = await runCli(['claude-code', 'export', '--out', out], {
      env: { HOME: home, CLAUDE_BRAIN: undefined, SOURCE_DATE_EPOCH: '1764806400' },
      cwd: root,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`${total} entities; the newest ${MAX_GRAPH_ENTITIES} are exported, 2500 left out`);
    const manifest = yaml.load(fs.readFileSync(out, 'utf8')) as Manifest;
    const names = manifest.known_entities.map((entity) => entity.name);
    expect(names).toContain('Release notes');
    expect(names).toContain(`Graph ${total - 1}`);
    expect(names).not.toContain('Graph 0');
    expect(manifest.recent_sessions.map((session) => session.date)).toEqual(['2026-12-01']);
  });

  it('a manifest over the limit keeps the newest rows that fit and says how many it left out', async () => {
    const root = tempDir('bourdon-big-notes-');
    const home = path.join(root, 'home');
    const memory = path.join(home, '.claude', 'projects', '-work-app', 'memory');
    fs.mkdirSync(memory, { recursive: true });
    fs.writeFileSync(path.join(memory, 'MEMORY.md'), '# index\n');
    // 300 notes of 20 tags of 1,900 characters each: about 11 MiB of manifest.
    const notes = 300;
    for (let i = 0; i < notes; i += 1) {
      const tags = Array.from({ length: 20 }, (_, j) => `t${i}-${j}-${'x'.repeat(1_890)}`);
      fs.writeFileSync(
        path.join(memory, `note-${String(i).padStart(3, '0')}.md`),
        `---\nname: Note ${i}\ntags: [${tags.join(', ')}]\n---\nbody\n`,
      );
    }
    fs.mkdirSync(path.join(home, 'claude-brain', 'LOG'), { recursive: true });
    fs.writeFileSync(path.join(home, 'claude-brain', 'LOG', '2026-12-01-ship.md'), 'Shipped it.\n');
    const out = path.join(root, 'claude-code.yaml');
    const result = await runCli(['claude-code', 'export', '--out', out], {
      env: { HOME: home, CLAUDE_BRAIN: undefined, SOURCE_DATE_EPOCH: '1764806400' },
      cwd: root,
    });
    expect(result.code, result.stderr).toBe(0);
    const line = result.stderr.split('\n').find((text) => text.includes('the newest rows that fit are kept'));
    expect(line).toMatch(/8 MiB limit: .* (\d+) entities and 0 sessions left out$/);
    expect(fs.statSync(out).size).toBeLessThanOrEqual(MAX_MANIFEST_BYTES);
    const manifest = yaml.load(fs.readFileSync(out, 'utf8')) as Manifest;
    const leftOut = Number(/ (\d+) entities and/.exec(line!)![1]);
    expect(manifest.known_entities.length + leftOut).toBe(notes);
    expect(manifest.known_entities.length).toBeGreaterThan(150);
    // The dated brain row ranks first; undated notes are kept in the participant's order.
    expect(manifest.recent_sessions.map((session) => session.date)).toEqual(['2026-12-01']);
    expect(manifest.known_entities[0].name).toBe('Note 0');
  }, 120_000);

  it('a 200,000-character name is cut like the other fields', async () => {
    const root = tempDir('bourdon-long-name-');
    const graph = path.join(root, 'graph.jsonl');
    fs.writeFileSync(
      graph,
      JSON.stringify({ type: 'entity', name: 'n'.repeat(200_000), entityType: 'concept' }) + '\n',
    );
    const out = path.join(root, 'mcp-memory.yaml');
    const result = await runCli(['mcp-memory', 'export', '--file', graph, '--out', out], {
      env: { HOME: root, SOURCE_DATE_EPOCH: '1764806400' },
      cwd: root,
    });
    expect(result.code, result.stderr).toBe(0);
    const [entity] = (yaml.load(fs.readFileSync(out, 'utf8')) as Manifest).known_entities;
    expect([...entity.name]).toHaveLength(MAX_NAME_CHARS);
    expect(entity.name.endsWith('…')).toBe(true);
  });

  it('fitManifest ranks dated rows newest first and keeps each list in its order', () => {
    const big = 'x'.repeat(1_000);
    const manifest = {
      spec_version: '0.1',
      known_entities: [
        { name: 'old', last_touched: '2020-01-01', summary: big },
        { name: 'new', last_touched: '2026-01-01', summary: big },
      ],
      recent_sessions: [
        { date: '2026-02-01', key_actions: [big] },
        { date: '2019-01-01', key_actions: [big] },
      ],
    };
    const { manifest: fitted, leftOut, yaml: text } = fitManifest(manifest, 2_600);
    expect(leftOut).toEqual({ entities: 1, sessions: 1 });
    expect(fitted.known_entities).toEqual([manifest.known_entities[1]]);
    expect(fitted.recent_sessions).toEqual([manifest.recent_sessions[0]]);
    // The YAML it sized is the fitted manifest's, ready to write.
    expect(text).toBe(stringifyYaml(fitted));
    expect(fitManifest(manifest, 10_000)).toEqual({
      manifest,
      leftOut: { entities: 0, sessions: 0 },
      yaml: stringifyYaml(manifest),
    });
  });
});
