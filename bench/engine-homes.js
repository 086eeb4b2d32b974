// Homes for the participants bench/participant-homes.js has none for, used by bench/engine.js:
// claude-code, mcp-memory (the engine's claude-code reads the same graph), codex, cursor and
// copilot-cli, in the shapes the recorded cases hold (test/fixtures/conformance/participants).
// Deterministic: every name, date and text derived from its index. `fraction` shrinks each
// (bench/engine.js --quick passes 0.1). SQLite files are written by python3's sqlite3 module.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { words } from './participant-homes.js';

const pad = (n, width = 2) => String(n).padStart(width, '0');
const count = (n, fraction) => Math.max(1, Math.round(n * fraction));
const megabytes = (dir) => {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) total += fs.statSync(path.join(entry.parentPath, entry.name)).size;
  return (total / 1e6).toFixed(1);
};
const writer = (home) => (relative, text) => {
  const file = path.join(home, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};

/** Runs a python3 script (sqlite3 at hand) with a JSON argument. */
const python = (script, arg) => execFileSync('python3', ['-c', script, JSON.stringify(arg)], { stdio: 'inherit' });

const CURSOR_DB = `
import json, sqlite3, sys
a = json.loads(sys.argv[1])
words = lambda n, s: ' '.join('word%d' % ((i * 7 + s) % 97) for i in range(n))
db = sqlite3.connect(a['file'])
db.execute('CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)')
for i in range(a['records']):
    messages = [{'role': 'assistant' if m % 2 else 'user', 'content': words(120, i + m),
                 'filePaths': ['src/f%d.ts' % ((i + m) % 30)] if m % 4 == 0 else []} for m in range(16)]
    if i % 5 == 4:
        record = {'messages': messages, 'workspacePath': '/home/dev/project-%d' % (i % 40),
                  'updatedAt': 1776000000000 + i * 60000}
        key = 'workbench.panel.aichat.%d' % i
    else:
        record = {'title': words(6, i), 'workspace': {'path': '/home/dev/project-%d' % (i % 40)},
                  'createdAt': '2026-%02d-%02dT%02d:00:00Z' % (3 + i % 2, i % 28 + 1, i % 24),
                  'files': ['src/f%d.ts' % (i % 30), {'path': 'test/t%d.test.ts' % (i % 9)}], 'messages': messages}
        key = 'composerData:%d' % i
    db.execute('INSERT INTO ItemTable VALUES (?, ?)', (key, json.dumps(record)))
    db.execute('INSERT INTO ItemTable VALUES (?, ?)', ('workbench.view.state.%d' % i,
               json.dumps({'open': i % 2 == 0, 'width': i % 900, 'label': words(30, i)})))
db.commit()
`;

const COPILOT_CLI_DB = `
import json, sqlite3, sys
a = json.loads(sys.argv[1])
words = lambda n, s: ' '.join('word%d' % ((i * 7 + s) % 97) for i in range(n))
db = sqlite3.connect(a['file'])
db.executescript('''
CREATE TABLE schema_version (version INTEGER NOT NULL);
INSERT INTO schema_version VALUES (4);
CREATE TABLE sessions (id TEXT PRIMARY KEY, cwd TEXT, repository TEXT, host_type TEXT, branch TEXT,
  summary TEXT, created_at TEXT, updated_at TEXT);
CREATE TABLE turns (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, turn_index INTEGER NOT NULL,
  user_message TEXT, assistant_response TEXT, timestamp TEXT);
CREATE TABLE checkpoints (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL,
  checkpoint_number INTEGER NOT NULL, title TEXT, overview TEXT, history TEXT, work_done TEXT,
  technical_details TEXT, important_files TEXT, next_steps TEXT, created_at TEXT);
CREATE TABLE session_files (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, file_path TEXT NOT NULL,
  tool_name TEXT, turn_index INTEGER, first_seen_at TEXT);
CREATE TABLE session_refs (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, ref_type TEXT NOT NULL,
  ref_value TEXT NOT NULL, turn_index INTEGER, created_at TEXT);
CREATE TABLE dynamic_context_items (repository TEXT NOT NULL, branch TEXT NOT NULL, src TEXT NOT NULL,
  name TEXT NOT NULL, description TEXT NOT NULL DEFAULT '', content TEXT NOT NULL DEFAULT '',
  read_count INTEGER NOT NULL DEFAULT 0, count INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (repository, branch, src, name));
''')
for n in range(a['sessions']):
    sid = 's%05d' % n
    stamp = '2026-%02d-%02dT%02d:00:00Z' % (3 + n % 2, n % 28 + 1, n % 24)
    db.execute('INSERT INTO sessions VALUES (?,?,?,?,?,?,?,?)', (sid, '/home/dev/project-%d' % (n % 40),
               'acme/project-%d' % (n % 40), 'cli', 'main' if n % 3 else 'feat/x%d' % n, words(10, n), stamp, stamp))
    for t in range(10):
        db.execute('INSERT INTO turns (session_id, turn_index, user_message, assistant_response, timestamp) VALUES (?,?,?,?,?)',
                   (sid, t, words(30, n + t), words(200, n * 3 + t), stamp))
    for c in range(2):
        db.execute('INSERT INTO checkpoints (session_id, checkpoint_number, title, overview, created_at) VALUES (?,?,?,?,?)',
                   (sid, c + 1, 'Step %d %s' % (c + 1, words(4, n + c)), words(40, n + c), stamp))
    for f in range(4):
        db.execute('INSERT INTO session_files (session_id, file_path, tool_name) VALUES (?,?,?)',
                   (sid, 'src/f%d.ts' % ((n + f) % 30), 'edit'))
    db.execute('INSERT INTO session_refs (session_id, ref_type, ref_value) VALUES (?,?,?)', (sid, 'commit', '%07x' % n))
for r in range(40):
    for k in range(5):
        db.execute('INSERT INTO dynamic_context_items VALUES (?,?,?,?,?,?,?,?)', ('acme/project-%d' % r, 'main',
                   'memory' if k % 2 else 'instructions', 'Item %d' % k, words(12, r + k), words(40, r * 5 + k), k, k * 2))
db.commit()
`;

/** A Codex rollout of about `target` bytes: session_meta, a user prompt, then calls, outputs and prompts. */
function rollout(id, timestamp, cwd, n, target) {
  const say = (text) =>
    JSON.stringify({
      timestamp,
      type: 'response_item',
      payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
    });
  const lines = [
    JSON.stringify({ timestamp, type: 'session_meta', payload: { id, timestamp, cwd, originator: 'codex_cli_rs' } }),
    say(`Please ${words(8, n)} in ${path.basename(cwd)}`),
  ];
  let size = lines[0].length + lines[1].length;
  for (let turn = 0; size < target; turn += 1) {
    const line =
      turn % 5 === 0
        ? JSON.stringify({
            type: 'response_item',
            payload: {
              type: 'function_call',
              name: 'apply_patch',
              arguments: `*** Begin Patch\n*** Update File: src/f${(n + turn) % 30}.ts\n@@\n-a\n+b\n*** End Patch`,
            },
          })
        : turn % 5 === 1
          ? say(words(20, n + turn))
          : JSON.stringify({
              type: 'response_item',
              payload: { type: 'function_call_output', output: words(300, n * 3 + turn) },
            });
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n') + '\n';
}

/** The MCP memory graph of about `bytes`: 24 observations per entity (as bench/participants.js). */
function graph(file, bytes) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const lines = [];
  let written = 0;
  for (let n = 0; written < bytes; n += 1) {
    const line = JSON.stringify({
      type: 'entity',
      name: `Entity ${n}`,
      entityType: 'thing',
      observations: Array.from({ length: 24 }, (_, i) => words(i ? 30 : 12, n + i)),
    });
    lines.push(line);
    written += line.length + 1;
    if (lines.length === 10_000) {
      fs.appendFileSync(file, lines.join('\n') + '\n');
      lines.length = 0;
    }
  }
  if (lines.length) fs.appendFileSync(file, lines.join('\n') + '\n');
}

/** The homes, by participant id: each returns what it made, for the table's first column. */
export const ENGINE_HOMES = {
  'claude-code'(home, _scale = 1, fraction = 1) {
    const write = writer(home);
    // One project folder: the engine reads the first folder with a MEMORY.md it lists, we read
    // every one (docs/conformance.md), so only one gives both the same input.
    const notes = count(1000, fraction);
    const dir = '.claude/projects/-work-p0/memory';
    write(`${dir}/MEMORY.md`, '# index\n');
    for (let n = 0; n < notes; n += 1)
      write(
        `${dir}/note_${n}.md`,
        `---\nname: "Topic ${n}"\ntype: ${n % 3 ? 'project' : 'feedback'}\ndescription: "${words(30, n)}"\n` +
          `tags: [t${n % 10}, bench]\n---\n\n${words(200, n)}\n`,
      );
    const brain = count(100, fraction);
    for (let n = 0; n < brain; n += 1) {
      write(`claude-brain/PROJECTS/P${n}/OVERVIEW.md`, `# Project ${n}\n\n${words(80, n)}\n\n## Status\n\nActive.\n`);
      write(`claude-brain/LOG/2026-04-${pad((n % 28) + 1)}-m${n}.md`, `${words(40, n)}\n`);
    }
    return `${notes} notes in one project, ${brain} projects, ${brain} logs, ${megabytes(home)} MB`;
  },
  /** The graph at ~/claude-memory/memory.jsonl: ours `mcp-memory export --file`, the engine's claude-code. */
  'mcp-memory'(home, _scale = 1, fraction = 1) {
    graph(path.join(home, 'claude-memory', 'memory.jsonl'), 50 * 1024 * 1024 * fraction);
    return `graph of ${megabytes(home)} MB`;
  },
  codex(home, _scale = 1, fraction = 1) {
    const write = writer(home);
    const rollouts = count(1000, fraction);
    const index = [];
    for (let n = 0; n < rollouts; n += 1) {
      const timestamp = new Date(Date.UTC(2026, 0, 1) + n * 7_200_000).toISOString().replace('.000', '');
      const id = `0199a1b2-0000-7000-8000-${pad(n, 12)}`;
      const cwd = `/home/dev/src/project-${n % 8}`;
      const name = `rollout-${timestamp.slice(0, 19).replaceAll(':', '-')}-${id}.jsonl`;
      write(
        path.join('.codex', 'sessions', ...timestamp.slice(0, 10).split('-'), name),
        rollout(id, timestamp, cwd, n, 50_000),
      );
      index.push(JSON.stringify({ id, thread_name: `Work on project-${n % 8} ${n}`, updated_at: timestamp }));
    }
    write('.codex/session_index.jsonl', index.join('\n') + '\n');
    return `${rollouts} rollouts, ${megabytes(home)} MB`;
  },
  cursor(home, _scale = 1, fraction = 1) {
    const file = path.join(home, '.config', 'Cursor', 'User', 'globalStorage', 'state.vscdb');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const records = count(5000, fraction);
    python(CURSOR_DB, { file, records });
    return `${records} chat records, ${megabytes(home)} MB database`;
  },
  'copilot-cli'(home, _scale = 1, fraction = 1) {
    const file = path.join(home, '.copilot', 'session-store.db');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const sessions = count(2000, fraction);
    python(COPILOT_CLI_DB, { file, sessions });
    return `${sessions} sessions × 10 turns, ${megabytes(home)} MB database`;
  },
};
