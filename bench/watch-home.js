// The large home `bourdon watch` is benched on (bench/watch.js, bench/watch-choice.js): every
// generated home of bench/participant-homes.js in one, plus Claude Code projects (memory notes
// beside session transcripts), a Codex home of 2,000 rollouts over a year of day folders, and
// an MCP memory graph: some 16,000 files and 1,300 folders under what the participants read.
// Deterministic; made once in .bench-data/watch-home.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HOMES, words } from './participant-homes.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const WATCH_HOME = path.join(ROOT, '.bench-data', 'watch-home');

export function makeWatchHome(home = WATCH_HOME) {
  const done = path.join(home, '.made');
  if (fs.existsSync(done)) return home;
  fs.rmSync(home, { recursive: true, force: true });
  fs.mkdirSync(home, { recursive: true });
  for (const make of Object.values(HOMES)) make(home);
  const write = (relative, text) => {
    const file = path.join(home, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  };
  for (let project = 0; project < 50; project += 1) {
    const dir = `.claude/projects/-work-p${project}`;
    write(`${dir}/memory/MEMORY.md`, '# index\n');
    for (let note = 0; note < 20; note += 1)
      write(
        `${dir}/memory/note_${note}.md`,
        `---\nname: "Topic ${project}-${note}"\ntype: project\n---\n\n${words(60, note)}\n`,
      );
    for (let t = 0; t < 20; t += 1) write(`${dir}/${project}-${t}.jsonl`, `{"type":"user","text":"${words(40, t)}"}\n`);
  }
  const index = [];
  for (let i = 0; i < 2000; i += 1) {
    const when = new Date(Date.UTC(2026, 0, 1) + i * 3_600_000 * 4).toISOString();
    const id = `0199a1b2-0000-7000-8000-${String(i).padStart(12, '0')}`;
    const day = when.slice(0, 10).split('-');
    const line = {
      timestamp: when,
      type: 'session_meta',
      payload: { id, timestamp: when, cwd: `/home/dev/p${i % 40}` },
    };
    write(
      `.codex/sessions/${day.join('/')}/rollout-${when.slice(0, 19).replaceAll(':', '-')}-${id}.jsonl`,
      JSON.stringify(line) + '\n',
    );
    index.push(JSON.stringify({ id, thread_name: `Work ${i}`, updated_at: when }));
  }
  write('.codex/session_index.jsonl', index.join('\n') + '\n');
  write('.codex/log/codex-tui.log', 'log\n');
  write(
    'claude-memory/memory.jsonl',
    JSON.stringify({ type: 'entity', name: 'Graph', entityType: 'thing', observations: ['one'] }) + '\n',
  );
  fs.writeFileSync(done, '');
  return home;
}

/** Files and folders under `dir`. */
export function countTree(dir) {
  let files = 0;
  let folders = 0;
  const walk = (at) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        folders += 1;
        walk(path.join(at, entry.name));
      } else files += 1;
    }
  };
  walk(dir);
  return { files, folders };
}
