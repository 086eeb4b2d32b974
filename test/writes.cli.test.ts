/**
 * The write commands on the real binary: `bourdon commit` (file and stdin, YAML and JSON),
 * `bourdon note add`, and bad input of every kind. Each bad input is one line on stderr, the
 * exit status of its code (docs/errors.md), and nothing written anywhere in the library.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILURES, type ErrorCode } from '../src/core/errors.js';
import { baseEnv, runCli, type CliResult } from './helpers/cli.js';
import { BIN, REPO_ROOT, tempDir } from './helpers/fixtures.js';

const cleanup: string[] = [];
afterAll(() => {
  for (const dir of cleanup) fs.rmSync(dir, { recursive: true, force: true });
});

/** Every file under the library with its bytes: "nothing written" means this does not change. */
function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        out[path.relative(root, full) + '/'] = '';
        walk(full);
      } else out[path.relative(root, full)] = fs.readFileSync(full, 'base64');
    }
  };
  walk(root);
  return out;
}

/** Spawns the CLI with a large stdin, tolerating the CLI closing it early (EPIPE). */
function runWithBigStdin(args: string[], input: Buffer, env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: REPO_ROOT,
      env: baseEnv(env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.stdin.on('error', () => {}); // the CLI stops reading at the cap
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

describe('bad input to the write commands', () => {
  let library: string;
  let env: Record<string, string>;
  let before: Record<string, string>;

  beforeAll(async () => {
    library = tempDir('bourdon-cli-writes-');
    const home = tempDir('bourdon-home-');
    cleanup.push(library, home);
    fs.mkdirSync(path.join(library, 'agents'));
    env = { BOURDON_HOME: home };
    const seed = await runCli(
      ['commit', 'codex', '--agent-type', 'code-assistant', '--file', '-', '--library', library],
      {
        env,
        input: 'entities:\n  - name: Bourdon\n    type: project\n',
      },
    );
    expect(seed.code, seed.stderr).toBe(0);
    before = tree(library);
  });

  const cases: [string, string[], string | undefined, RegExp][] = [
    [
      'commit ../x',
      ['commit', '../x', '--agent-type', 'other', '--file', '-'],
      '{"entities":[{"name":"A"}]}',
      /invalid agent_id '\.\.\/x'/,
    ],
    [
      'commit "Bad Id"',
      ['commit', 'Bad Id', '--agent-type', 'other', '--file', '-'],
      '{}',
      /invalid agent_id 'Bad Id'/,
    ],
    [
      'commit with a 65-character id',
      ['commit', 'a'.repeat(65), '--agent-type', 'other'],
      undefined,
      /invalid agent_id/,
    ],
    [
      'note add ../x',
      ['note', 'add', '../x', 'hello', '--agent-type', 'other'],
      undefined,
      /invalid agent_id '\.\.\/x'/,
    ],
    ['history ../x', ['history', '../x'], undefined, /invalid agent_id '\.\.\/x'/],
    ['diff ../x', ['diff', '../x', '1'], undefined, /invalid agent_id '\.\.\/x'/],
    ['rollback ../x', ['rollback', '../x', '1', '--yes'], undefined, /invalid agent_id '\.\.\/x'/],
    [
      'diff of an unknown version, naming the versions there are',
      ['diff', 'codex', '7'],
      undefined,
      /^bourdon: codex has no version 7; it has versions? [\d–, and]+ \(`bourdon history codex`\)$/m,
    ],
    [
      'diff against an unknown version',
      ['diff', 'codex', '1', '--against', '9'],
      undefined,
      /^bourdon: codex has no version 9; it has versions? [\d–, and]+ \(`bourdon history codex`\)$/m,
    ],
    [
      'rollback to an unknown version',
      ['rollback', 'codex', '42', '--yes'],
      undefined,
      /^bourdon: codex has no version 42; it has versions? [\d–, and]+ \(`bourdon history codex`\)$/m,
    ],
    [
      'rollback for an agent not in the library, as history answers it',
      ['rollback', 'codx', '1', '--yes'],
      undefined,
      /^bourdon: no agent "codx" in this library; did you mean codex\?$/m,
    ],
    ['malformed YAML on stdin', ['commit', 'codex', '--file', '-'], 'entities: [ {name: A\n', /cannot parse stdin/],
    ['malformed JSON on stdin', ['commit', 'codex', '--file', '-'], '{"entities": [}', /cannot parse stdin/],
    ['a list instead of a mapping', ['commit', 'codex', '--file', '-'], '- name: A\n', /must be a mapping/],
    ['empty stdin', ['commit', 'codex', '--file', '-'], '', /stdin is empty/],
    [
      'an entity without a name',
      ['commit', 'codex', '--file', '-'],
      '{"entities":[{"summary":"x"}]}',
      /entity missing non-empty 'name'/,
    ],
    [
      'a note with a bad date',
      ['commit', 'codex', '--file', '-'],
      'notes:\n  - {date: yesterday, text: hi}\n',
      /note 'date' must be/,
    ],
    [
      'a new agent without a type',
      ['commit', 'fresh', '--file', '-'],
      '{"entities":[{"name":"A"}]}',
      /fresh has no manifest yet: give --agent-type \(code-assistant, /,
    ],
    [
      'a missing input file',
      ['commit', 'codex', '--file', '/nonexistent/rows.yaml'],
      undefined,
      /cannot read \/nonexistent\/rows\.yaml: no such file$/m,
    ],
  ];

  /** The bad inputs that are not malformed input (exit 6): what they name does not exist, or cannot be read. */
  const otherCodes: Record<string, ErrorCode> = {
    'diff of an unknown version, naming the versions there are': 'not_found',
    'diff against an unknown version': 'not_found',
    'rollback to an unknown version': 'not_found',
    'rollback for an agent not in the library, as history answers it': 'not_found',
    'a missing input file': 'source_unreadable',
  };

  for (const [title, args, input, message] of cases) {
    const code = otherCodes[title] ?? 'invalid_input';
    it(`${title}: one line, ${code} (exit ${FAILURES[code].exit}), nothing written`, async () => {
      const result = await runCli([...args, '--library', library], { env, input });
      expect(result.code, result.stderr).toBe(FAILURES[code].exit);
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines, result.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(/^bourdon: /);
      expect(lines[0]).toMatch(message);
      expect(result.stdout).toBe('');
      expect(tree(library)).toEqual(before);
    });
  }

  it('--json turns a refusal into the error payload on stdout, the same exit status', async () => {
    const result = await runCli(['commit', '../x', '--agent-type', 'other', '--json', '--library', library], { env });
    expect(result.code).toBe(FAILURES.invalid_input.exit);
    expect(JSON.parse(result.stdout)).toEqual({
      error: "invalid agent_id '../x': must match ^[a-z0-9][a-z0-9_-]*$",
      agent_id: '../x',
      mode: 'merge',
    });
    expect(tree(library)).toEqual(before);
  });

  it('oversize input on stdin (> 4 MiB): one line, invalid input, nothing written', async () => {
    const big = Buffer.from(JSON.stringify({ entities: [{ name: 'Big', summary: 'x'.repeat(4 * 1024 * 1024 + 10) }] }));
    const result = await runWithBigStdin(['commit', 'codex', '--file', '-', '--library', library], big, env);
    expect(result.code).toBe(FAILURES.invalid_input.exit);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/larger than 4194304 bytes/);
    expect(tree(library)).toEqual(before);
  });

  it('oversize input file (> 4 MiB): one line, invalid input, nothing written', async () => {
    const dir = tempDir('bourdon-big-');
    cleanup.push(dir);
    const file = path.join(dir, 'big.json');
    fs.writeFileSync(file, JSON.stringify({ entities: [{ name: 'Big', summary: 'x'.repeat(4 * 1024 * 1024 + 10) }] }));
    const result = await runCli(['commit', 'codex', '--file', file, '--library', library], { env });
    expect(result.code).toBe(FAILURES.invalid_input.exit);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/larger than 4194304 bytes/);
    expect(tree(library)).toEqual(before);
  });
});

describe('bourdon commit and note add', () => {
  let library: string;
  let env: Record<string, string>;

  beforeAll(() => {
    library = tempDir('bourdon-cli-commit-');
    const home = tempDir('bourdon-home-');
    cleanup.push(library, home);
    fs.mkdirSync(path.join(library, 'agents'));
    env = { BOURDON_HOME: home };
  });

  it('commits an L5 manifest from a YAML file and prints the write summary', async () => {
    const dir = tempDir('bourdon-input-');
    cleanup.push(dir);
    const file = path.join(dir, 'notes-bot.l5.yaml');
    fs.writeFileSync(
      file,
      [
        "spec_version: '0.1'",
        'agent: {id: notes-bot, type: note-capture, role_narrative: Takes notes}',
        'known_entities:',
        '  - {name: Roadmap, type: draft, tags: planning}',
        'recent_sessions:',
        "  - {date: '2026-06-05', cwd: /notes, key_actions: [Wrote roadmap]}",
        '',
      ].join('\n'),
    );
    const result = await runCli(['commit', 'notes-bot', '--file', file, '--json', '--library', library], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      agent_id: 'notes-bot',
      path: path.join(path.resolve(library), 'agents', 'notes-bot.l5.yaml'),
      mode: 'merge',
      entities_added: 1,
      entities_updated: 0,
      sessions_added: 1,
      sessions_updated: 0,
      notes_added: 0,
      total_entities: 1,
      total_sessions: 1,
      total_notes: 0,
      last_updated: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?\+00:00$/),
      version: 1,
    });
    const found = JSON.parse((await runCli(['find', 'roadmap', '--json', '--library', library], { env })).stdout) as {
      matches: unknown[];
    };
    expect(found.matches).toEqual([
      { name: 'Roadmap', agents: ['notes-bot'], types: ['draft'], summaries: {}, tags: ['planning'] },
    ]);
  });

  it('adds a note that list-notes then shows under the one read rule (prose naming a credential kept)', async () => {
    const added = await runCli(
      [
        'note',
        'add',
        'notes-bot',
        'Freeze until Friday; the password is in the vault',
        '--tag',
        'release',
        '--project',
        'Roadmap',
        '--json',
        '--library',
        library,
      ],
      { env },
    );
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({
      agent_id: 'notes-bot',
      notes_added: 1,
      total_notes: 1,
      version: 2,
    });
    const listed = await runCli(['list-notes', '--tag', 'release', '--json', '--library', library], { env });
    const payload = JSON.parse(listed.stdout) as { notes: Record<string, unknown>[] };
    expect(payload.notes).toHaveLength(1);
    expect(payload.notes[0]).toMatchObject({
      agent: 'notes-bot',
      // Prose that only names a credential is kept, as the exports keep it.
      text: 'Freeze until Friday; the password is in the vault',
      tags: ['release'],
      project_focus: ['Roadmap'],
    });
    const human = await runCli(['list-notes', '--library', library], { env });
    expect(human.stdout).toContain('Freeze until Friday; the password is in the vault');
  });

  it('replace needs a type and then rewrites the manifest', async () => {
    const refused = await runCli(['commit', 'notes-bot', '--mode', 'replace', '--file', '-', '--library', library], {
      env,
      input: '{"entities":[{"name":"Only"}]}',
    });
    expect(refused.code).toBe(FAILURES.invalid_input.exit);
    expect(refused.stderr).toContain('--mode replace writes a new manifest: give --agent-type (');
    const replaced = await runCli(
      [
        'commit',
        'notes-bot',
        '--mode',
        'replace',
        '--agent-type',
        'note-capture',
        '--file',
        '-',
        '--json',
        '--library',
        library,
      ],
      { env, input: '{"entities":[{"name":"Only"}]}' },
    );
    expect(JSON.parse(replaced.stdout)).toMatchObject({
      mode: 'replace',
      total_entities: 1,
      total_sessions: 0,
      total_notes: 0,
      version: 3,
    });
  });
});
