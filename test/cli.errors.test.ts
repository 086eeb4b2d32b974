/**
 * Errors as a user meets them, on the real binary and the demo library: one `--json` error
 * shape for every command, file errors in words, `rollback`, `diff` and `note show` answering
 * unknown agents and versions (or notes) as `history` does; and `query` leading with the agent
 * asked about.
 */
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FAILURES, type ErrorCode } from '../src/core/errors.js';
import { runCli } from './helpers/cli.js';
import { demoLibrary } from './helpers/demo.js';
import { at } from './helpers/items.js';

let library: string;
let home: string;

beforeAll(async () => {
  ({ library, home } = await demoLibrary('bourdon-errors'));
});

const cli = (args: string[], input?: string) =>
  runCli(args, { env: { BOURDON_HOME: home, BOURDON_LIBRARY: library }, cwd: library, input, timeoutMs: 60_000 });

describe('one --json error shape', () => {
  const failures: [string, string[], ErrorCode][] = [
    ['a usage error (the parser)', ['recent', '--limit', '0'], 'usage'],
    ['a missing library', ['agents', '--library', path.join('/nonexistent', 'lib')], 'not_found'],
    ['an unknown agent (a read)', ['history', 'codx'], 'not_found'],
    ['an unknown agent (rollback)', ['rollback', 'codx', '1', '--yes'], 'not_found'],
    ['an unknown version (rollback)', ['rollback', 'codex', '99', '--yes'], 'not_found'],
    ['an unknown version (diff)', ['diff', 'codex', '99'], 'not_found'],
    ['an unknown agent (diff)', ['diff', 'codx', '1'], 'not_found'],
    ['an unknown note (note show)', ['note', 'show', 'codex:99'], 'not_found'],
    ['a malformed note id (note show)', ['note', 'show', 'codex'], 'usage'],
    ["a tool's refusal (its payload)", ['commit', '../x', '--agent-type', 'other'], 'invalid_input'],
    ['a missing input file', ['commit', 'notes-bot', '--file', 'nope.yaml'], 'source_unreadable'],
    ['an unknown member', ['agent', 'rotate', 'nobody'], 'not_found'],
  ];
  for (const [what, args, code] of failures) {
    it(`${what}: a JSON object on stdout whose first key is "error", printed as every payload is`, async () => {
      const result = await cli([...args, '--json']);
      expect(result.code, result.stdout + result.stderr).toBe(FAILURES[code].exit);
      expect(result.stderr).toBe('');
      const parsed = JSON.parse(result.stdout) as Record<string, unknown>;
      expect(Object.keys(parsed)[0]).toBe('error');
      expect(parsed.error).toEqual(expect.stringMatching(/^[^\n]+$/));
      // The same indentation as every --json document, so one reader handles answers and errors.
      expect(result.stdout).toBe(JSON.stringify(parsed, null, 2) + '\n');
    });
  }
});

describe('errors in words', () => {
  it('a missing file says so in words, never the errno text', async () => {
    const result = await cli(['commit', 'notes-bot', '--agent-type', 'note-capture', '--file', 'nope.yaml']);
    expect(result.code).toBe(FAILURES.source_unreadable.exit);
    expect(result.stderr).toBe('bourdon: cannot read nope.yaml: no such file\n');
  });

  it('a folder given as the input file says it is a folder', async () => {
    const result = await cli(['commit', 'notes-bot', '--file', 'agents']);
    expect(result.stderr).toMatch(/^bourdon: cannot read agents: it is a folder$/m);
    expect(result.stderr).not.toMatch(/E[A-Z]{3,}:/);
  });

  it('rollback names the closest agent, as history does', async () => {
    const [rollback, history] = await Promise.all([cli(['rollback', 'codx', '1', '--yes']), cli(['history', 'codx'])]);
    const first = (text: string) => text.split('\n')[0];
    expect(first(rollback.stderr)).toBe('bourdon: no agent "codx" in this library; did you mean codex?');
    expect(first(rollback.stderr)).toBe(first(history.stderr));
    expect(rollback.code).toBe(history.code);
  });

  it('rollback to a version that does not exist lists the versions that do', async () => {
    const result = await cli(['rollback', 'codex', '99', '--yes']);
    expect(result.code).toBe(FAILURES.not_found.exit);
    expect(result.stderr.split('\n')[0]).toBe(
      'bourdon: codex has no version 99; it has versions 1–4 (`bourdon history codex`)',
    );
  });
});

describe('diff and note show answer as history and rollback do', () => {
  it('diff names the closest agent, as history does', async () => {
    const [diff, history] = await Promise.all([cli(['diff', 'codx', '1']), cli(['history', 'codx'])]);
    expect(diff.code).toBe(FAILURES.not_found.exit);
    expect(diff.stderr.split('\n')[0]).toBe('bourdon: no agent "codx" in this library; did you mean codex?');
    expect(diff.stderr.split('\n')[0]).toBe(history.stderr.split('\n')[0]);
  });

  it('diff of a version that does not exist lists the versions that do, in the words rollback uses', async () => {
    const [diff, rollback] = await Promise.all([
      cli(['diff', 'codex', '99']),
      cli(['rollback', 'codex', '99', '--yes']),
    ]);
    expect(diff.code).toBe(FAILURES.not_found.exit);
    expect(diff.stderr.split('\n')[0]).toBe(
      'bourdon: codex has no version 99; it has versions 1–4 (`bourdon history codex`)',
    );
    expect(diff.stderr).toBe(rollback.stderr);
  });

  it('note show: an unknown agent gets the closest ids, an unknown note the ids there are', async () => {
    const agent = await cli(['note', 'show', 'codx:1']);
    expect(agent.code).toBe(FAILURES.not_found.exit);
    expect(agent.stderr.split('\n')[0]).toBe('bourdon: no agent "codx" in this library; did you mean codex?');
    const note = await cli(['note', 'show', 'codex:99']);
    expect(note.code).toBe(FAILURES.not_found.exit);
    expect(note.stderr).toBe('bourdon: no note codex:99; the notes of codex are codex:1 to codex:2\n');
    const malformed = await cli(['note', 'show', 'codex']);
    expect(malformed.code).toBe(2);
    // A usage error is one line, naming the help.
    expect(malformed.stderr).toBe(
      'bourdon: a note id is <agent>:<n>, like codex:2 (`bourdon list-notes` shows them) (see `bourdon note show --help`)\n',
    );
  });
});

describe('query: what one agent knows', () => {
  it("leads with the agent's own summary and names the others without quoting them", async () => {
    const result = await cli(['query', 'codex', 'sync engine']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('Sync Engine (module)');
    expect(lines[1]).toBe('  codex: Rewrote the merge step; tiebreak by device id is in review.');
    expect(result.stdout).not.toContain('CRDT-based sync');
    expect(result.stdout).toContain("also known by claude-code: bourdon find 'Sync Engine'");
  });

  it('--json stays the tool payload, every agent summary included', async () => {
    const result = await cli(['query', 'codex', 'sync engine', '--json']);
    const payload = JSON.parse(result.stdout) as { matches: { summaries: Record<string, string> }[] };
    expect(Object.keys(at(payload.matches, 0).summaries).sort()).toEqual(['claude-code', 'codex']);
  });
});
