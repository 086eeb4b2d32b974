/**
 * `bourdon watch` follows a source that appears after it started, for every kind of participant,
 * without a restart (issue 53's fault "a source folder that appears after watch started"): the
 * real binary with a real watcher over a temp home. Where a participant's paths are decided by
 * what exists (Cursor's stores inside a data folder not there yet, Claude Code's per-project
 * memory folders, the MCP memory graph a host's config names), the watch names them again: at
 * once when something appears under a followed path, else every --rescan seconds.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { SqlJsStatic, SqlValue } from 'sql.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/fixtures.js';
import { libraryHas, memoryFile, startWatch, writeFile, type RunningWatch } from './helpers/watch.js';

const require = createRequire(import.meta.url);
let SQL: SqlJsStatic;
beforeAll(async () => {
  SQL = await (require('sql.js') as () => Promise<SqlJsStatic>)();
});

/** A VS Code-style state database (Cursor's): an ItemTable with these rows. */
function itemTable(file: string, rows: [SqlValue, SqlValue][]): void {
  const db = new SQL.Database();
  db.run('CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)');
  for (const row of rows) db.run('INSERT INTO ItemTable VALUES (?, ?)', row);
  writeFile(file, '');
  fs.writeFileSync(file, db.export());
  db.close();
}

let running: RunningWatch[] = [];
afterEach(async () => {
  for (const watch of running) if (watch.child.exitCode === null) await watch.stop('SIGKILL');
  running = [];
});

function stand(args: string[] = []) {
  const home = tempDir('bourdon-watch-appear-home-');
  const library = path.join(tempDir('bourdon-watch-appear-lib-'), 'library');
  const env = { HOME: home, BOURDON_HOME: tempDir('bourdon-watch-appear-config-') };
  const cascade = path.join(home, '.cascade-bourdon', 'memory.md');
  writeFile(cascade, memoryFile(['Alpha']));
  return {
    home,
    library,
    start() {
      const watch = startWatch(['--library', library, ...args], env);
      running.push(watch);
      return watch;
    },
  };
}

const note = (name: string) => `---\nname: "${name}"\ntype: project\n---\n\nWhat ${name} is about.\n`;

describe('bourdon watch: sources that appear after it started', () => {
  it('follows Cursor installed while it runs: its data folder, then a workspace store in it', async () => {
    const s = stand();
    const watch = s.start();
    await watch.waitFor((e) => e.event === 'caught up');
    expect(fs.existsSync(path.join(s.home, '.config'))).toBe(false);
    const from = watch.events.length;
    itemTable(path.join(s.home, '.config', 'Cursor', 'User', 'workspaceStorage', 'a1', 'state.vscdb'), [
      ['chat.1', JSON.stringify({ title: 'installed later', cwd: '/w/app', createdAt: '2026-04-10' })],
    ]);
    await watch.waitFor((e) => e.event === 'exported' && e.agent === 'cursor', { from });
    expect(libraryHas(s.library, 'cursor', 'installed later')).toBe(true);
    // A second workspace store, once Cursor is there, is followed too.
    const again = watch.events.length;
    itemTable(path.join(s.home, '.config', 'Cursor', 'User', 'workspaceStorage', 'b2', 'state.vscdb'), [
      ['chat.2', JSON.stringify({ title: 'second workspace', cwd: '/w/other', createdAt: '2026-04-11' })],
    ]);
    await watch.waitFor((e) => e.event === 'exported' && e.agent === 'cursor', { from: again });
    expect(libraryHas(s.library, 'cursor', 'second workspace')).toBe(true);
  }, 90_000);

  it('follows Claude Code projects begun while it runs, the first and the next beside it', async () => {
    const s = stand(['--rescan', '1']);
    const memory = (project: string) => path.join(s.home, '.claude', 'projects', project, 'memory');
    const watch = s.start();
    await watch.waitFor((e) => e.event === 'caught up');
    // The first project: its folder appears under the followed ~/.claude/projects.
    let from = watch.events.length;
    writeFile(path.join(memory('-work-one'), 'first.md'), note('First Topic'));
    writeFile(path.join(memory('-work-one'), 'MEMORY.md'), '# index\n');
    await watch.waitFor((e) => e.event === 'exported' && e.agent === 'claude-code', { from });
    await watch.waitFor((e) => e.event === 'watching' && e.agent === 'claude-code', { from });
    expect(libraryHas(s.library, 'claude-code', 'First Topic')).toBe(true);
    // A second: its folder lies beside the followed one's, not under anything followed now.
    from = watch.events.length;
    writeFile(path.join(memory('-work-two'), 'second.md'), note('Second Topic'));
    writeFile(path.join(memory('-work-two'), 'MEMORY.md'), '# index\n');
    const now = await watch.waitFor((e) => e.event === 'watching' && e.agent === 'claude-code', { from });
    expect(now.message).toBe('now following claude-code: 1 new path');
    await watch.waitFor((e) => e.event === 'exported' && e.agent === 'claude-code', { from });
    expect(libraryHas(s.library, 'claude-code', 'Second Topic')).toBe(true);
    // And a change to either project's notes is followed from then on.
    for (const [project, file, name] of [
      ['-work-one', 'first.md', 'Renamed First'],
      ['-work-two', 'second.md', 'Renamed Second'],
    ] as const) {
      const later = watch.events.length;
      writeFile(path.join(memory(project), file), note(name));
      await watch.waitFor((e) => e.event === 'exported' && e.agent === 'claude-code', { from: later });
      expect(libraryHas(s.library, 'claude-code', name)).toBe(true);
    }
  }, 120_000);

  it("follows the MCP memory graph once a host's config names it", async () => {
    const s = stand(['--rescan', '1']);
    const graph = path.join(s.home, 'graphs', 'memory.jsonl');
    writeFile(
      graph,
      JSON.stringify({ type: 'entity', name: 'Graph Entity', entityType: 'project', observations: ['o'] }) + '\n',
    );
    const watch = s.start();
    await watch.waitFor((e) => e.event === 'caught up');
    expect(watch.events.some((e) => e.agent === 'mcp-memory')).toBe(false);
    const from = watch.events.length;
    const server = {
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-memory'],
      env: { MEMORY_FILE_PATH: graph },
    };
    writeFile(path.join(s.home, '.claude.json'), JSON.stringify({ mcpServers: { memory: server } }));
    await watch.waitFor((e) => e.event === 'exported' && e.agent === 'mcp-memory', { from });
    expect(libraryHas(s.library, 'mcp-memory', 'Graph Entity')).toBe(true);
    const later = watch.events.length;
    fs.appendFileSync(
      graph,
      JSON.stringify({ type: 'entity', name: 'Added Later', entityType: 'project', observations: ['p'] }) + '\n',
    );
    await watch.waitFor((e) => e.event === 'exported' && e.agent === 'mcp-memory', { from: later });
    expect(libraryHas(s.library, 'mcp-memory', 'Added Later')).toBe(true);
  }, 90_000);
});
