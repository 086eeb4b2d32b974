#!/usr/bin/env node
// Deterministic generator of large agent libraries for benchmarks.
// Usage: node bench/generate.js <dir> [agents=50] [entities=1000] [sessions=500] [notes=50]
// The same arguments always produce byte-identical files (seeded PRNG, fixed dates).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const WORDS = (
  'sync engine chart renderer release tide watch merge cursor token cache index store vector clock ' +
  'device queue worker parser schema gateway billing search ranking report export import audit ledger mobile ' +
  'desktop plugin theme layout router session history rollback peer federation recognition context memory'
).split(' ');
const TYPES = ['project', 'module', 'ticket', 'concept', 'person', 'draft', 'milestone'];
const VIS = ['public', 'public', 'public', 'team', 'team', 'private'];
const AGENT_TYPES = ['code-assistant', 'note-capture', 'research-assistant', 'project-manager', 'other'];

function prng(seed) {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
}

function day(offset) {
  const base = Date.UTC(2026, 10, 28); // 2026-11-28, so recent windows have rows
  return new Date(base - offset * 86_400_000).toISOString().slice(0, 10);
}

const quote = (text) => `'${String(text).replace(/'/g, "''")}'`;

export function manifestText(index, sizes) {
  const rand = prng(0x9e3779b9 ^ (index * 2654435761));
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const phrase = (n) => Array.from({ length: n }, () => pick(WORDS)).join(' ');
  const id = `agent-${String(index).padStart(3, '0')}`;
  const lines = [
    "spec_version: '0.1'",
    'agent:',
    `  id: ${id}`,
    `  type: ${pick(AGENT_TYPES)}`,
    `  role_narrative: ${quote(`Works on ${phrase(3)}.`)}`,
    `last_updated: '${day(index % 30)}T12:00:00+00:00'`,
    'capabilities: [code-read, code-write]',
    'known_entities:',
  ];
  for (let e = 0; e < sizes.entities; e++) {
    // Names repeat across agents (shared projects) but also include agent-specific ones.
    const shared = e < sizes.entities / 4;
    const name = shared ? `Project ${WORDS[e % WORDS.length]} ${e % 97}` : `${phrase(2)} ${index}-${e}`;
    lines.push(`  - name: ${quote(name)}`);
    lines.push(`    type: ${pick(TYPES)}`);
    lines.push(`    summary: ${quote(`${phrase(8)}.`)}`);
    if (e % 3 === 0) lines.push(`    aliases: [${quote(`${WORDS[e % WORDS.length]}${e}`)}]`);
    lines.push(`    tags: [${pick(WORDS)}, ${pick(WORDS)}]`);
    if (e % 50 === 0) lines.push(`    valid_to: '2026-01-01'`);
    lines.push(`    visibility: ${pick(VIS)}`);
  }
  lines.push('recent_sessions:');
  for (let s = 0; s < sizes.sessions; s++) {
    lines.push(`  - date: '${day(Math.floor(rand() * 365))}'`);
    lines.push(`    cwd: /home/dev/${pick(WORDS)}`);
    lines.push(`    project_focus: [${quote(`Project ${WORDS[s % WORDS.length]} ${s % 97}`)}]`);
    lines.push(`    key_actions: [${quote(phrase(5))}, ${quote(phrase(4))}]`);
    lines.push(`    files_touched: [src/${pick(WORDS)}.ts]`);
    lines.push(`    visibility: ${pick(VIS)}`);
  }
  lines.push('notes:');
  for (let n = 0; n < sizes.notes; n++) {
    lines.push(`  - date: '${day(Math.floor(rand() * 120))}T10:00:00+00:00'`);
    lines.push(`    title: ${quote(phrase(3))}`);
    lines.push(`    text: ${quote(`${phrase(20)}.`)}`);
    lines.push(`    tags: [${pick(WORDS)}]`);
    lines.push(`    project_focus: [${quote(`Project ${WORDS[n % WORDS.length]} ${n % 97}`)}]`);
    lines.push(`    visibility: ${pick(VIS)}`);
  }
  return { id, text: lines.join('\n') + '\n' };
}

export function generateLibrary(root, sizes = {}) {
  const full = { agents: 50, entities: 1000, sessions: 500, notes: 50, ...sizes };
  const agentsDir = path.join(root, 'agents');
  fs.mkdirSync(agentsDir, { recursive: true });
  let bytes = 0;
  for (let i = 0; i < full.agents; i++) {
    const { id, text } = manifestText(i, full);
    fs.writeFileSync(path.join(agentsDir, `${id}.l5.yaml`), text);
    bytes += Buffer.byteLength(text);
  }
  return { root, bytes, ...full };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [dir, agents, entities, sessions, notes] = process.argv.slice(2);
  if (!dir) {
    process.stderr.write('usage: node bench/generate.js <dir> [agents] [entities] [sessions] [notes]\n');
    process.exit(2);
  }
  const sizes = Object.fromEntries(
    Object.entries({ agents, entities, sessions, notes })
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, Number(v)]),
  );
  const result = generateLibrary(dir, sizes);
  process.stdout.write(
    `${result.agents} manifests, ${(result.bytes / 1e6).toFixed(1)} MB in ${path.join(dir, 'agents')}\n`,
  );
}
