/**
 * The Claude desktop surfaces' rules that the recorded cases do not reach (conformance/
 * participants/README.md, "claude_desktop_code" and "claude_desktop_cowork"): dates and their
 * fallbacks, labels of any JSON type, projects and hints, ordering, the audit transcript's
 * scalars and its caps, Python's cent rounding; and hostile stores (broken JSON, invalid UTF-8,
 * wrong types, a folder or a FIFO where a file should be, a link loop, huge files), run through
 * the real binary: the bad item is skipped with one line naming it, the rest exported.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { claudeDesktopCodeParticipant } from '../src/participants/claude-desktop/code.js';
import {
  claudeDesktopCoworkParticipant,
  MAX_AUDIT_LINES,
  pyFixed2,
} from '../src/participants/claude-desktop/cowork.js';
import { desktopDir } from '../src/participants/claude-desktop/surface.js';
import type { ExportEnvironment, Participant } from '../src/participants/kit/participant.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';
import { exportEnvironment } from './helpers/participant-cases.js';
import { sinceOf } from '../src/participants/kit/since.js';

type Row = Record<string, unknown>;
type Manifest = Row & { recent_sessions: Row[]; known_entities: Row[]; capabilities: string[] };

const ORG = path.join('acct', 'org');

/** Writes `<home>/.config/Claude/<store>/acct/org/<name>` (JSON unless a string or bytes) and returns its path. */
function put(home: string, store: string, name: string, content: unknown): string {
  const file = path.join(home, '.config', 'Claude', store, ORG, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(
    file,
    typeof content === 'string' || Buffer.isBuffer(content) ? content : JSON.stringify(content, null, 2),
  );
  return file;
}

const code = (home: string, name: string, state: unknown) => put(home, 'claude-code-sessions', name, state);
const cowork = (home: string, name: string, state: unknown) => put(home, 'local-agent-mode-sessions', name, state);
/** A run's audit transcript, beside `local_<id>.json`. */
const audit = (home: string, id: string, content: string | Buffer) =>
  put(home, 'local-agent-mode-sessions', path.join(`local_${id}`, 'audit.jsonl'), content);
const jsonl = (...records: unknown[]) => records.map((record) => JSON.stringify(record)).join('\n') + '\n';

async function run(participant: Participant, home: string, extra: Partial<ExportEnvironment> = {}) {
  const result = await participant.export(exportEnvironment(home, extra));
  return { manifest: result.manifest as Manifest | undefined, warnings: result.warnings };
}

async function manifestOf(participant: Participant, home: string, extra: Partial<ExportEnvironment> = {}) {
  const { manifest } = await run(participant, home, extra);
  expect(manifest).toBeDefined();
  return manifest!;
}

const MS = (day: string) => Date.parse(`${day}T12:00:00Z`);

describe('claude-desktop-code rules', () => {
  it('dates: ms above 1e12, seconds below, numeric strings, lastActivityAt when createdAt is unusable', async () => {
    const home = tempDir();
    code(home, 'local_a.json', { sessionId: 'a', title: 'ms', createdAt: MS('2026-04-20') });
    code(home, 'local_b.json', { sessionId: 'b', title: 'seconds', createdAt: MS('2026-04-21') / 1000 });
    code(home, 'local_c.json', { sessionId: 'c', title: 'string', createdAt: ` ${MS('2026-04-22')} ` });
    code(home, 'local_d.json', { sessionId: 'd', title: 'bool', createdAt: true, lastActivityAt: MS('2026-04-23') });
    code(home, 'local_e.json', { sessionId: 'e', title: 'soon', createdAt: 'soon', lastActivityAt: '1776988800.5' });
    code(home, 'local_f.json', { sessionId: 'f', title: 'none', createdAt: null, lastActivityAt: [1] });
    code(home, 'local_g.json', { sessionId: 'g', title: 'year 10000', createdAt: 1e15 });
    const sessions = (await manifestOf(claudeDesktopCodeParticipant, home)).recent_sessions;
    expect(sessions.map((session) => [session.key_actions, session.date])).toEqual([
      [['soon'], '2026-04-24'],
      [['bool'], '2026-04-23'],
      [['string'], '2026-04-22'],
      [['seconds'], '2026-04-21'],
      [['ms'], '2026-04-20'],
      [['year 10000'], ''],
      [['none'], ''],
    ]);
  });

  it('orders by (date, id) descending, the id from sessionId as text or the file name', async () => {
    const home = tempDir();
    const day = MS('2026-04-20');
    code(home, 'local_zz.json', { title: 'file name zz', createdAt: day });
    code(home, 'local_m.json', { sessionId: 7, title: 'number 7', createdAt: day });
    code(home, 'local_a.json', { sessionId: 'local_b', title: 'id local_b', createdAt: day });
    code(home, 'local_0.json', { sessionId: '', title: 'empty id: file name local_0', createdAt: day });
    const titles = (await manifestOf(claudeDesktopCodeParticipant, home)).recent_sessions.map(
      (session) => (session.key_actions as string[])[0],
    );
    expect(titles).toEqual(['file name zz', 'id local_b', 'empty id: file name local_0', 'number 7']);
  });

  it('labels: any JSON value as text, scrubbed and cut; untitled; the key actions re-scrubbed', async () => {
    const home = tempDir();
    const long = 'word '.repeat(60);
    code(home, 'local_a.json', {
      title: long,
      model: 4.5,
      effort: true,
      permissionMode: { mode: 'plan' },
      cwd: '   ',
      createdAt: MS('2026-04-25'),
    });
    code(home, 'local_b.json', { title: null, model: '', cwd: 'see https://x.example/a', createdAt: MS('2026-04-24') });
    code(home, 'local_c.json', { title: 'my password is hunter2', createdAt: MS('2026-04-23') });
    const [a, b, c] = (await manifestOf(claudeDesktopCodeParticipant, home)).recent_sessions;
    const title = (a.key_actions as string[])[0];
    expect([...title].length).toBe(160);
    expect(title.endsWith(' wo...')).toBe(true);
    expect((a.key_actions as string[]).slice(1)).toEqual([
      'model: 4.5',
      'effort: True',
      "permission: {'mode': 'plan'}",
    ]);
    expect(a.cwd).toBeUndefined();
    expect(a.project_focus).toBeUndefined();
    expect(b.key_actions).toEqual(['(untitled conversation)']);
    expect(b.cwd).toBe('see [link]');
    expect(c.key_actions).toEqual(['[redacted credential-like text]']);
  });

  it('projects: basenames of the raw cwd and selected folders, then hints; duplicates by case; at most six', async () => {
    const home = tempDir();
    code(home, 'local_a.json', {
      cwd: '/work/api_key-vault/',
      userSelectedFolders: ['C:\\Users\\dev\\x', '/', '.', '/srv/API_KEY-VAULT', '/srv/./microchip/.', 7],
      createdAt: MS('2026-04-25'),
    });
    code(home, 'local_b.json', {
      cwd: '/p/pruning',
      userSelectedFolders: ['/p/one', '/p/two', '/p/three', '/p/four', '/p/five', '/p/six'],
      createdAt: MS('2026-04-24'),
    });
    code(home, 'local_c.json', { cwd: '/p/Pruning', userSelectedFolders: '/p/ignored', createdAt: MS('2026-04-23') });
    const manifest = await manifestOf(claudeDesktopCodeParticipant, home);
    const [a, b, c] = manifest.recent_sessions;
    // The cwd label is redacted, yet the project still comes from the real path.
    expect(a.cwd).toBe('[redacted credential-like text]');
    expect(a.project_focus).toEqual(['api_key-vault', 'C:\\Users\\dev\\x', 'microchip', 'CHIP']);
    expect(b.project_focus).toEqual(['pruning', 'one', 'two', 'three', 'four', 'five']);
    expect(c.project_focus).toEqual(['Pruning', 'Prun']);
    // Entities: the surface, then each project not yet an exact entity name, in session order.
    expect(manifest.known_entities.map((entity) => entity.name)).toEqual([
      'Claude Desktop Code',
      'api_key-vault',
      'C:\\Users\\dev\\x',
      'microchip',
      'CHIP',
      'pruning',
      'one',
      'two',
      'three',
      'four',
      'five',
      'Pruning',
      'Prun',
    ]);
  });

  it('counts only JSON true among enabledMcpTools; capabilities carry the largest count', async () => {
    const home = tempDir();
    code(home, 'local_a.json', {
      title: 'a',
      enabledMcpTools: { x: true, y: 1, z: 'yes', w: true, v: null },
      createdAt: MS('2026-04-25'),
    });
    code(home, 'local_b.json', { title: 'b', enabledMcpTools: [true, true, true], createdAt: MS('2026-04-24') });
    const manifest = await manifestOf(claudeDesktopCodeParticipant, home);
    expect(manifest.capabilities).toEqual(['claude-desktop-code', 'mcp-tools:2']);
    expect(manifest.recent_sessions.map((session) => session.key_actions)).toEqual([['a', 'mcp-tools: 2'], ['b']]);
  });

  it('an empty store gives the surface entity alone; all undated conversations give it an empty last_touched', async () => {
    const empty = tempDir();
    fs.mkdirSync(path.join(empty, '.config', 'Claude', 'claude-code-sessions'), { recursive: true });
    const bare = await manifestOf(claudeDesktopCodeParticipant, empty);
    expect(bare.capabilities).toEqual(['claude-desktop-code', 'mcp-tools:0']);
    expect(bare.recent_sessions).toEqual([]);
    expect(bare.known_entities).toEqual([
      {
        name: 'Claude Desktop Code',
        type: 'agent-surface',
        summary: 'Claude desktop app GUI Claude Code surface (metadata-only federation).',
        tags: ['claude-desktop', 'claude-desktop-code', 'agent-surface'],
        visibility: 'team',
      },
    ]);
    const undated = tempDir();
    code(undated, 'local_a.json', { title: 'a', cwd: '/x/site' });
    const manifest = await manifestOf(claudeDesktopCodeParticipant, undated);
    expect(manifest.known_entities[0].last_touched).toBe('');
    expect(manifest.known_entities[1]).not.toHaveProperty('last_touched');
    expect(manifest.recent_sessions[0].date).toBe('');
  });

  it('--since keeps undated conversations and those on or after the day; the surface date comes from those kept', async () => {
    const home = tempDir();
    code(home, 'local_a.json', { title: 'old', cwd: '/x/old', createdAt: MS('2026-04-01') });
    code(home, 'local_b.json', { title: 'new', cwd: '/x/new', createdAt: MS('2026-04-20') });
    code(home, 'local_c.json', { title: 'undated', cwd: '/x/new' });
    const manifest = await manifestOf(claudeDesktopCodeParticipant, home, { since: sinceOf('2026-04-20') });
    expect(manifest.recent_sessions.map((session) => session.date)).toEqual(['2026-04-20', '']);
    expect(manifest.known_entities.map((entity) => [entity.name, entity.last_touched])).toEqual([
      ['Claude Desktop Code', '2026-04-20'],
      ['new', '2026-04-20'],
    ]);
  });

  it('reads only <store>/<account>/<org>/local_*.json; no store, no manifest; the override replaces the default', async () => {
    const home = tempDir();
    expect((await run(claudeDesktopCodeParticipant, home)).manifest).toBeUndefined();
    code(home, 'local_a.json', { title: 'two levels down' });
    put(home, 'claude-code-sessions', path.join('..', 'local_top.json'), { title: 'one level' });
    put(home, 'claude-code-sessions', path.join('deeper', 'local_deep.json'), { title: 'three levels' });
    code(home, 'remote_a.json', { title: 'remote' });
    code(home, 'local_a.txt', { title: 'not json by name' });
    const titles = (await manifestOf(claudeDesktopCodeParticipant, home)).recent_sessions.map(
      (session) => (session.key_actions as string[])[0],
    );
    expect(titles).toEqual(['two levels down']);

    const elsewhere = tempDir();
    const dir = path.join(elsewhere, 'Claude');
    fs.mkdirSync(path.join(dir, 'claude-code-sessions', ORG), { recursive: true });
    fs.writeFileSync(path.join(dir, 'claude-code-sessions', ORG, 'local_x.json'), '{"title": "named"}');
    const named = await manifestOf(claudeDesktopCodeParticipant, home, {
      env: { HOME: home, BOURDON_CLAUDE_DESKTOP_DIR: dir },
    });
    expect(named.recent_sessions.map((session) => session.key_actions)).toEqual([['named']]);
  });

  it('finds the desktop folder on each platform', () => {
    const base = exportEnvironment('/home/u');
    expect(desktopDir(base)).toBe('/home/u/.config/Claude');
    expect(desktopDir({ ...base, platform: 'darwin' })).toBe('/home/u/Library/Application Support/Claude');
    expect(desktopDir({ ...base, platform: 'win32', env: { APPDATA: '/roaming' } })).toBe('/roaming/Claude');
    expect(desktopDir({ ...base, platform: 'win32', env: {} })).toBe('/home/u/AppData/Roaming/Claude');
    expect(desktopDir({ ...base, env: { BOURDON_CLAUDE_DESKTOP_DIR: '' } })).toBe('/home/u/.config/Claude');
    expect(desktopDir({ ...base, env: { BOURDON_CLAUDE_DESKTOP_DIR: 'rel/Claude' } })).toBe('/home/u/rel/Claude');
  });
});

describe('claude-desktop-cowork rules', () => {
  it('reads init counts and result scalars from the audit, key by key, later records winning', async () => {
    const home = tempDir();
    cowork(home, 'local_r1.json', {
      title: 'run one',
      model: 'opus',
      permissionMode: 'default',
      enabledMcpTools: { a: true },
      createdAt: MS('2026-04-25'),
      initialMessage: 'SECRET BODY',
    });
    audit(
      home,
      'r1',
      jsonl(
        { type: 'system', subtype: 'init', tools: [1, 2, 3], skills: ['a', 'b'] },
        { type: 'system', subtype: 'init', tools: [1, 2, 3, 4, 5], skills: 'not a list' },
        { type: 'result', subtype: 'success', total_cost_usd: 0.125, num_turns: 4, is_error: true },
        { type: 'result', subtype: 'error_during_execution', num_turns: true, result: 'SECRET RESULT' },
        { type: 'user', message: { content: 'SECRET MESSAGE' } },
      ),
    );
    cowork(home, 'local_r2.json', { title: 'run two', createdAt: MS('2026-04-24') });
    audit(
      home,
      'r2',
      jsonl(
        { type: 'result', total_cost_usd: true, num_turns: 9.5, is_error: 'yes' },
        { type: 'system', subtype: 'init', tools: [], skills: [1, 2, 3, 4] },
      ),
    );
    cowork(home, 'local_r3.json', { title: 'run three', createdAt: MS('2026-04-23') });
    audit(home, 'r3', jsonl({ type: 'result', total_cost_usd: '0.5', num_turns: '3', is_error: false }));
    const manifest = await manifestOf(claudeDesktopCoworkParticipant, home);
    expect(manifest.capabilities).toEqual(['claude-desktop-cowork', 'mcp-tools:1', 'tools:5', 'skills:4']);
    expect(manifest.recent_sessions.map((session) => session.key_actions)).toEqual([
      ['run one', 'model: opus', 'permission: default', 'True turns', '$0.12', 'error', 'mcp-tools: 1'],
      ['run two', '$1.00'],
      ['run three'],
    ]);
    expect(JSON.stringify(manifest)).not.toMatch(/SECRET/);
  });

  it('audit lines: split at \\r too, trimmed, must start with { and be an object; bad bytes replaced; capped', async () => {
    const home = tempDir();
    cowork(home, 'local_r.json', { title: 'r', createdAt: MS('2026-04-25') });
    const lines = Buffer.concat([
      Buffer.from('  {"type": "result", "num_turns": 1}  \r'),
      Buffer.from('[{"type": "result", "num_turns": 2}]\r\n'),
      Buffer.from('x{"type": "result", "num_turns": 3}\n'),
      Buffer.from('{"type": "system", "subtype": "init", "tools": ["'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"], "skills": [1]}\n'),
    ]);
    audit(home, 'r', lines);
    const manifest = await manifestOf(claudeDesktopCoworkParticipant, home);
    expect(manifest.recent_sessions[0].key_actions).toEqual(['r', '1 turns']);
    expect(manifest.capabilities).toEqual(['claude-desktop-cowork', 'mcp-tools:0', 'tools:1', 'skills:1']);

    // Only the first MAX_AUDIT_LINES lines are read: a result after them is not.
    const capped = tempDir();
    cowork(capped, 'local_c.json', { title: 'c', createdAt: MS('2026-04-25') });
    const filler = '{"type": "user"}\n'.repeat(MAX_AUDIT_LINES - 1);
    audit(capped, 'c', filler + jsonl({ type: 'result', num_turns: 5 }, { type: 'result', num_turns: 6 }));
    const cut = await manifestOf(claudeDesktopCoworkParticipant, capped);
    expect(cut.recent_sessions[0].key_actions).toEqual(['c', '5 turns']);
  });

  it('tools and skills count only runs kept by --since; the Co-Work wording', async () => {
    const home = tempDir();
    cowork(home, 'local_old.json', { title: 'old', cwd: '/w/old', createdAt: MS('2026-04-01') });
    audit(home, 'old', jsonl({ type: 'system', subtype: 'init', tools: [1, 2, 3], skills: [1] }));
    cowork(home, 'local_new.json', { title: 'new', cwd: '/w/new', createdAt: MS('2026-04-25') });
    audit(home, 'new', jsonl({ type: 'system', subtype: 'init', tools: [1], skills: [] }));
    const manifest = await manifestOf(claudeDesktopCoworkParticipant, home, { since: sinceOf('2026-04-20') });
    expect(manifest.capabilities).toEqual(['claude-desktop-cowork', 'mcp-tools:0', 'tools:1']);
    expect(manifest.known_entities.map((entity) => [entity.name, entity.summary])).toEqual([
      ['Claude Desktop Co-Work', 'Claude desktop app Co-Work / local-agent mode surface (metadata-only federation).'],
      ['new', 'Project inferred from a Claude Desktop Co-Work run cwd.'],
    ]);
    expect((manifest.visibility_policy as Row).team_tags).toEqual([
      'claude-desktop',
      'claude-desktop-cowork',
      'agent-surface',
      'workspace',
    ]);
  });

  it('the untitled run, no effort read, and a Code store not read', async () => {
    const home = tempDir();
    code(home, 'local_code.json', { title: 'a Code conversation' });
    expect((await run(claudeDesktopCoworkParticipant, home)).manifest).toBeUndefined();
    cowork(home, 'local_a.json', { effort: 'high', createdAt: MS('2026-04-25') });
    const manifest = await manifestOf(claudeDesktopCoworkParticipant, home);
    expect(manifest.recent_sessions[0].key_actions).toEqual(['(untitled run)']);
  });

  it("formats cents as Python's round-half-even on the binary value", () => {
    expect(pyFixed2(0.4271)).toBe('0.43');
    expect(pyFixed2(0.005)).toBe('0.01');
    expect(pyFixed2(1.5)).toBe('1.50');
    expect(pyFixed2(0.125)).toBe('0.12');
    expect(pyFixed2(0.375)).toBe('0.38');
    expect(pyFixed2(2.675)).toBe('2.67');
    expect(pyFixed2(-0.125)).toBe('-0.12');
    expect(pyFixed2(-0)).toBe('-0.00');
    expect(pyFixed2(1e21)).toBe('1000000000000000000000.00');
    expect(pyFixed2(0)).toBe('0.00');
  });
});

describe('claude desktop surfaces: hostile stores, through the binary', () => {
  it('skips each bad file with one line naming it, exports the rest, no stack trace, no hang', async () => {
    const home = tempDir();
    const store = 'local-agent-mode-sessions';
    cowork(home, 'local_good.json', { title: 'the good run', cwd: '/w/good', createdAt: MS('2026-04-25') });
    audit(home, 'good', jsonl({ type: 'result', num_turns: 2 }));
    const bad = {
      truncated: cowork(home, 'local_truncated.json', '{"title": "cut'),
      utf8: cowork(home, 'local_utf8.json', Buffer.from([0x7b, 0x22, 0x74, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d])),
      array: cowork(home, 'local_array.json', '[1, 2]'),
      huge: cowork(home, 'local_huge.json', `{"title": "${'x'.repeat(5 * 1024 * 1024)}"}`),
      folder: path.join(home, '.config', 'Claude', store, ORG, 'local_folder.json'),
      loop: path.join(home, '.config', 'Claude', store, ORG, 'local_loop.json'),
    };
    fs.mkdirSync(bad.folder);
    fs.symlinkSync(bad.loop, bad.loop);
    // Wrong types everywhere: still a run, with what can be read.
    cowork(home, 'local_types.json', {
      sessionId: ['x'],
      title: { nested: true },
      cwd: 42,
      userSelectedFolders: '/not/a/list',
      enabledMcpTools: 'all',
      createdAt: 'yesterday',
    });
    // An audit that is a FIFO: never opened, so nothing waits on it.
    cowork(home, 'local_fifo.json', { title: 'fifo audit', createdAt: MS('2026-04-24') });
    const fifo = path.join(home, '.config', 'Claude', store, ORG, 'local_fifo', 'audit.jsonl');
    fs.mkdirSync(path.dirname(fifo), { recursive: true });
    execFileSync('mkfifo', [fifo]);
    // A state linked from outside the home is not read.
    const outside = path.join(tempDir(), 'local_outside.json');
    fs.writeFileSync(outside, '{"title": "from outside"}');
    const linked = path.join(home, '.config', 'Claude', store, ORG, 'local_outside.json');
    fs.symlinkSync(outside, linked);

    const out = path.join(home, 'out.yaml');
    const result = await runCli(['claude-desktop-cowork', 'export', '--out', out], {
      env: { HOME: home, COLUMNS: '1000', SOURCE_DATE_EPOCH: '1777636800', BOURDON_LOCAL_NAME: 'h' },
      cwd: home,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    const warnings = result.stderr.trim().split('\n');
    const named = (file: string) => warnings.filter((line) => line.includes(file));
    for (const file of [...Object.values(bad), fifo, linked]) expect(named(file), file).toHaveLength(1);
    expect(named(bad.utf8)[0]).toMatch(/not valid UTF-8/);
    expect(named(bad.loop)[0]).toMatch(/a link that loops/);
    expect(warnings).toHaveLength(8);

    const manifest = yaml.load(fs.readFileSync(out, 'utf8')) as Manifest;
    expect(manifest.recent_sessions.map((session) => session.key_actions)).toEqual([
      ['the good run', '2 turns'],
      ['fifo audit'],
      ["{'nested': True}"],
    ]);
    expect(manifest.recent_sessions[2]).toMatchObject({ date: '', cwd: '42' });
    expect(manifest.recent_sessions[2]).not.toHaveProperty('project_focus');
  });
});
