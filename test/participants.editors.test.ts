/**
 * The conformance README's cascade, copilot and copilot_vscode rules beyond the recorded cases
 * (each rule as stated, not its example), and what users' disks really hold: malformed YAML and
 * JSON, invalid UTF-8, values of the wrong type, a folder where a file belongs, a link loop, a
 * very large transcript. The bad item is skipped with one line naming the file; the rest exports.
 * Then a few runs of the real binary: --out, and into the library (a version; rollback undoes it).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { cascadeParticipant } from '../src/participants/cascade/index.js';
import { copilotParticipant } from '../src/participants/copilot/index.js';
import { exportCopilotVscode, copilotVscodeParticipant } from '../src/participants/copilot-vscode/index.js';
import { SourceReader } from '../src/participants/kit/source-reader.js';
import type { ExportEnvironment, Participant } from '../src/participants/kit/participant.js';
import { sinceInstant, sinceOf } from '../src/participants/kit/since.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';
import { exportEnvironment } from './helpers/participant-cases.js';
import { at } from './helpers/items.js';

type Row = Record<string, unknown>;
interface Exported {
  manifest: Row & { recent_sessions?: Row[]; known_entities?: Row[] };
  warnings: readonly string[];
}

function write(home: string, relative: string, content: string | Buffer): string {
  const file = path.join(home, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
}

async function run(participant: Participant, home: string, extra: Partial<ExportEnvironment> = {}): Promise<Exported> {
  const result = await participant.export(exportEnvironment(home, extra));
  return { manifest: result.manifest as Exported['manifest'], warnings: result.warnings };
}

const names = (rows: Row[] | undefined) => (rows ?? []).map((row) => row.name);
const dates = (rows: Row[] | undefined) => (rows ?? []).map((row) => row.date);

describe('cascade rules', () => {
  const cascade = (home: string, text: string | Buffer, extra: Partial<ExportEnvironment> = {}) => {
    write(home, '.cascade-bourdon/memory.md', text);
    return run(cascadeParticipant, home, extra);
  };

  it('ends the front matter at the next --- anywhere, even inside a value, and parses what came before', async () => {
    const { manifest } = await cascade(tempDir(), '---\nentities:\n  - name: Quay\n    summary: a---b: c\n---\n');
    expect(manifest.known_entities).toEqual([{ name: 'Quay', summary: 'a' }]);
    // The opening line's rest already belongs to the block.
    const inline = await cascade(tempDir(), '--- {entities: [{name: Inline}]}\n---\n');
    expect(names(inline.manifest.known_entities)).toEqual(['Inline']);
  });

  it('reads nothing without an opening ---, from an empty block or a non-mapping, and says so', async () => {
    for (const text of [
      'entities: [{name: A}]\n',
      '\uFEFF---\nentities: [{name: A}]\n---\n',
      '------\n',
      '---\n- a\n---\n',
    ]) {
      const home = tempDir();
      const { manifest, warnings } = await cascade(home, text);
      expect(manifest.known_entities ?? []).toEqual([]);
      expect(warnings).toEqual([
        `${path.join(home, '.cascade-bourdon/memory.md')}: no front matter whose YAML reads as a mapping; nothing exported from it`,
      ]);
    }
  });

  it('passes values through with their YAML type and converts dates to text as Python prints them', async () => {
    const { manifest } = await cascade(
      tempDir(),
      [
        '---',
        'entities:',
        '  - name: Typed',
        '    type: 2',
        '    aliases: abc',
        '    tags: {one: 1, two: 2}',
        '    summary: 42',
        '    last_touched: 2026-03-02 08:15:00',
        '    valid_from: 2026-03-02T08:15:00.5+02:00',
        '    valid_to: 2026-03-02 00:00:00',
        '  - name: Empty summary',
        "    summary: ''",
        '    last_touched: 0',
        '  - name: Typed',
        '    type: [x]',
        '---',
      ].join('\n'),
    );
    expect(manifest.known_entities).toEqual([
      {
        name: 'Typed',
        type: 2,
        aliases: ['a', 'b', 'c'],
        summary: 42,
        last_touched: '2026-03-02 08:15:00',
        tags: ['one', 'two'],
        valid_from: '2026-03-02 08:15:00.500000+02:00',
        valid_to: '2026-03-02 00:00:00',
      },
      { name: 'Empty summary', summary: '' },
      { name: 'Typed', type: ['x'] },
    ]);
  });

  it('redacts a summary naming a credential, the word secret or an sk-test key; scrubs the rest', async () => {
    const summaries = [
      'Keep the SECRET safe',
      'A secretive plan',
      'uses SK-TEST-abc',
      'password-reset flow',
      'passwords list',
      'see http://example.com/x   and\nmore',
      'x'.repeat(200),
    ];
    const body = summaries.map((summary, i) => `  - name: E${i}\n    summary: ${JSON.stringify(summary)}`).join('\n');
    const { manifest } = await cascade(tempDir(), `---\nentities:\n${body}\n---\n`);
    expect((manifest.known_entities ?? []).map((row) => row.summary)).toEqual([
      '[redacted credential-like text]',
      'A secretive plan',
      '[redacted credential-like text]',
      '[redacted credential-like text]',
      'passwords list',
      'see [link] and more',
      `${'x'.repeat(177)}...`,
    ]);
  });

  it('drops entities tagged personal, credential, financial, secret or private (exactly), and one labelled private itself (issue 50)', async () => {
    const { manifest } = await cascade(
      tempDir(),
      '---\nentities:\n  - {name: A, tags: [secret]}\n  - {name: B, tags: [private]}\n  - {name: C, tags: [Personal]}\n  - {name: D, visibility: private}\n  - {name: E, visibility: " PRIVATE "}\n  - {name: F, visibility: team}\n  - {name: "  ", tags: []}\n  - {name: 5}\n---\n',
    );
    // A label other than private is ignored (F is written without it), as the engine ignores it.
    expect(names(manifest.known_entities)).toEqual(['C', 'F']);
    expect(manifest.visibility_policy).toBeUndefined();
    expect((manifest.agent as Row).instance).toBeUndefined();
  });

  it('keeps sessions in file order, unscrubbed, with dates cut to 10 characters', async () => {
    const { manifest } = await cascade(
      tempDir(),
      [
        '---',
        'sessions:',
        '  - {date: 20260418, cwd: 42, key_actions: abc}',
        '  - {date: 2026-04-30 09:15:00, key_actions: ["api_key rotated, see https://x.example/y"], files_touched: []}',
        '  - {date: 0, key_actions: [no]}',
        '  - {date: "2026-04-01T10:00:00Z", project_focus: {Tide: 1}}',
        '---',
      ].join('\n'),
    );
    expect(manifest.recent_sessions).toEqual([
      { date: '20260418', cwd: 42, key_actions: ['a', 'b', 'c'] },
      { date: '2026-04-30', key_actions: ['api_key rotated, see https://x.example/y'] },
      { date: '2026-04-01', project_focus: ['Tide'] },
    ]);
  });

  it('--since compares instants: a parsed date is its midnight UTC, a date that does not parse is kept', async () => {
    const text = [
      '---',
      'sessions:',
      '  - {date: "2026-04-10", key_actions: [same day, before noon]}',
      '  - {date: "2026-04-11"}',
      '  - {date: "2026-W15-1"}',
      '  - {date: "20260418"}',
      '  - {date: "2026-02-30"}',
      '  - {date: "week 15"}',
      '---',
    ].join('\n');
    const noon = await cascade(tempDir(), text, {
      since: sinceOf('2026-04-10T12:00:00Z'),
    });
    expect(dates(noon.manifest.recent_sessions)).toEqual(['2026-04-11', '20260418', '2026-02-30', 'week 15']);
    const midnight = await cascade(tempDir(), text, {
      since: sinceOf('2026-04-10T00:00:00Z'),
    });
    expect(dates(midnight.manifest.recent_sessions)).toEqual([
      '2026-04-10',
      '2026-04-11',
      '20260418',
      '2026-02-30',
      'week 15',
    ]);
  });

  it('skips what the engine cannot read, one line each: a list tag, a number where a list belongs', async () => {
    const home = tempDir();
    const { manifest, warnings } = await cascade(
      home,
      '---\nentities:\n  - {name: Bad, tags: [[nested]]}\n  - {name: Odd, aliases: 7}\n  - {name: Good}\nsessions: true\n---\n',
    );
    const file = path.join(home, '.cascade-bourdon/memory.md');
    expect(names(manifest.known_entities)).toEqual(['Odd', 'Good']);
    expect(warnings).toEqual([
      `${file}: entity "Bad" skipped: a tag is a list or mapping`,
      `${file}: entities[1].aliases is 7, not a list; skipped`,
      `${file}: sessions is True, not a list; skipped`,
    ]);
  });

  it("reads invalid UTF-8 with U+FFFD, says so, and skips a folder or an outside link in the file's place", async () => {
    const home = tempDir();
    const bytes = Buffer.concat([
      Buffer.from('---\nentities:\n  - name: Caf'),
      Buffer.from([0xe9]),
      Buffer.from('\n---\n'),
    ]);
    const invalid = await cascade(home, bytes);
    expect(names(invalid.manifest.known_entities)).toEqual(['Caf\uFFFD']);
    expect(invalid.warnings).toEqual([
      `${path.join(home, '.cascade-bourdon/memory.md')}: invalid UTF-8, read with the bad bytes replaced by U+FFFD`,
    ]);

    const folder = tempDir();
    fs.mkdirSync(path.join(folder, '.cascade-bourdon/memory.md'), { recursive: true });
    const asFolder = await run(cascadeParticipant, folder);
    expect(asFolder.manifest.known_entities ?? []).toEqual([]);
    expect(asFolder.warnings).toEqual([
      `${path.join(folder, '.cascade-bourdon/memory.md')}: skipped, not a regular file`,
    ]);

    const linked = tempDir();
    const outside = write(tempDir(), 'memory.md', '---\nentities: [{name: Outside}]\n---\n');
    fs.mkdirSync(path.join(linked, '.cascade-bourdon'));
    fs.symlinkSync(outside, path.join(linked, '.cascade-bourdon/memory.md'));
    // The memory file is its own source root, and a root may itself be a link (a file kept in a
    // synced folder): it is read (docs/security.md, "What an export reads").
    const viaLink = await run(cascadeParticipant, linked);
    expect(viaLink.manifest.known_entities).toEqual([{ name: 'Outside' }]);
    expect(viaLink.warnings).toEqual([]);
  });

  it('reports its one source, found or not', async () => {
    const home = tempDir();
    const file = path.join(home, '.cascade-bourdon/memory.md');
    expect(await cascadeParticipant.sources(exportEnvironment(home))).toEqual([
      { name: 'memory_md', path: file, found: false },
    ]);
    write(home, '.cascade-bourdon/memory.md', '---\n---\n');
    expect((await cascadeParticipant.sources(exportEnvironment(home)))[0]).toMatchObject({ found: true, path: file });
  });
});

describe('shared reading rules', () => {
  it('--since as an instant: a date is its midnight UTC, a time without an offset is UTC, an offset counts', () => {
    expect(sinceInstant('2026-04-10')?.toISOString()).toBe('2026-04-10T00:00:00.000Z');
    expect(sinceInstant('2026-04-10T08:30')?.toISOString()).toBe('2026-04-10T08:30:00.000Z');
    expect(sinceInstant('2026-04-10 08:30:00+0200')?.toISOString()).toBe('2026-04-10T06:30:00.000Z');
    expect(sinceInstant('2026-04-10T00:00:00Z')?.toISOString()).toBe('2026-04-10T00:00:00.000Z');
    expect(sinceInstant('next week')).toBeUndefined();
    expect(sinceInstant(undefined)).toBeUndefined();
  });

  it('strippedLines is strip().splitlines(): leading and trailing blank lines go, the last line is right-stripped', () => {
    const home = tempDir();
    const file = write(home, 'a.txt', ' \n\n first \r\nsecond\u2028third\x85\n\u00a0\nlast\u00a0 \n \n\n');
    const reader = new SourceReader([home]);
    expect([...reader.strippedLines(file)]).toEqual(['first ', 'second', 'third', '', '\u00a0', 'last']);
    expect([...reader.strippedLines(file, 2)]).toEqual(['first ', 'second']);
    expect([...reader.strippedLines(write(home, 'b.txt', ' \n\t\n'))]).toEqual([]);
    // strip() cuts the whole text's ends: the last line keeps its leading space.
    expect([...reader.strippedLines(write(home, 'c.txt', 'a\n b \n'))]).toEqual(['a', ' b']);
    expect(reader.warnings).toEqual([]);
  });
});

describe('front matter YAML, as PyYAML reads it', () => {
  it('keeps 1e3, E0, -.5 and 2026-4-2 as text, reads 1.5e+3 and .5 as floats, and refuses a date that does not exist', async () => {
    const home = tempDir();
    write(
      home,
      '.copilot-bourdon/memory.md',
      '---\nentities:\n  - {name: E0, type: 1e3, summary: -.5, aliases: [2026-4-2, 1.5e+3, .5]}\n---\n',
    );
    const { manifest } = await run(copilotParticipant, home);
    expect(manifest.known_entities).toEqual([{ name: 'E0', type: '1e3', summary: '-.5', aliases: ['2026-4-2'] }]);
    write(home, '.copilot-bourdon/memory.md', '---\nentities: [{name: A, last_touched: 2026-02-30}]\n---\n');
    expect((await run(copilotParticipant, home)).manifest.known_entities ?? []).toEqual([]);
  });
});

describe('copilot rules', () => {
  const copilot = (home: string, text: string, extra: Partial<ExportEnvironment> = {}) => {
    write(home, '.copilot-bourdon/memory.md', text);
    return run(copilotParticipant, home, extra);
  };

  it('needs a closing line that is exactly --- followed by a newline; CRLF reads like LF', async () => {
    // A --- on the second line does not close: it is YAML's document start, and the block still loads.
    const second = await copilot(tempDir(), '---\n---\nentities: [{name: A}]\n---\n');
    expect(names(second.manifest.known_entities)).toEqual(['A']);
    expect((await copilot(tempDir(), '---\n---\n')).manifest.known_entities ?? []).toEqual([]);
    expect((await copilot(tempDir(), '---\nentities: [{name: A}]\n---')).manifest.known_entities ?? []).toEqual([]);
    expect((await copilot(tempDir(), '---\nentities: [{name: A}]\n--- \n')).manifest.known_entities ?? []).toEqual([]);
    const crlf = await copilot(tempDir(), '---\r\n# a comment\r\nentities: [{name: A}]\r\n---\r\nbody\r\n');
    expect(names(crlf.manifest.known_entities)).toEqual(['A']);
  });

  it('converts values to text, keeps non-blank string items untrimmed, and drops privately tagged entities', async () => {
    const { manifest } = await copilot(
      tempDir(),
      [
        '---',
        'entities:',
        '  - name: " Ledger "',
        '    type: 2',
        '    summary: [a, b]',
        '    aliases: "a b"',
        '    tags: [" x ", "", 7, true]',
        '    valid_to: 2026-04-30T10:00:00Z',
        '  - {name: Zero, type: 0, summary: 0, aliases: {k: 1}}',
        '  - {name: Health, tags: [health]}',
        '  - {name: Pw, summary: "password   here"}',
        '---',
        '',
      ].join('\n'),
    );
    expect(manifest.known_entities).toEqual([
      {
        name: 'Ledger',
        type: '2',
        aliases: ['a', 'b'],
        summary: "['a', 'b']",
        tags: [' x '],
        valid_to: '2026-04-30 10:00:00+00:00',
      },
      { name: 'Zero', aliases: ['k'] },
      { name: 'Pw', summary: '[redacted credential-like text]' },
    ]);
  });

  it('sessions: cwd as text, string actions unscrubbed, --since compared as text', async () => {
    const { manifest } = await copilot(
      tempDir(),
      [
        '---',
        'sessions:',
        '  - {date: 2026-04-20, cwd: 5173, key_actions: ["Rotated the access_token", "  ", 12], files_touched: x}',
        '  - {date: 2026-04-01, key_actions: [old]}',
        '  - {date: "2026-4-2", key_actions: [text order]}',
        '  - {date: "", key_actions: [undated]}',
        '  - plain',
        '---',
        '',
      ].join('\n'),
      { since: sinceOf('2026-04-15') },
    );
    expect(manifest.recent_sessions).toEqual([
      { date: '2026-04-20', cwd: '5173', key_actions: ['Rotated the access_token'], files_touched: ['x'] },
      { date: '2026-4-2', key_actions: ['text order'] },
    ]);
  });

  it('reads $COPILOT_BOURDON_HOME as given (relative to the working folder), and then not the default', async () => {
    const home = tempDir();
    write(home, '.copilot-bourdon/memory.md', '---\nentities: [{name: Default}]\n---\n');
    write(home, 'work/mem/memory.md', '---\nentities: [{name: Named}]\n---\n');
    const env = { HOME: home, COPILOT_BOURDON_HOME: 'mem' };
    const { manifest } = await run(copilotParticipant, home, { env, cwd: path.join(home, 'work') });
    expect(names(manifest.known_entities)).toEqual(['Named']);
    const missing = await run(copilotParticipant, home, {
      env: { HOME: home, COPILOT_BOURDON_HOME: path.join(home, 'none') },
    });
    expect(missing.manifest.known_entities ?? []).toEqual([]);
    expect(missing.manifest.visibility_policy).toMatchObject({ default: 'team' });
  });

  it('invalid YAML and a non-list field: one warning each, the rest still read', async () => {
    const home = tempDir();
    const file = path.join(home, '.copilot-bourdon/memory.md');
    expect((await copilot(home, '---\nentities: [\n---\n')).warnings).toEqual([
      `${file}: no front matter whose YAML reads as a mapping; nothing exported from it`,
    ]);
    const { manifest, warnings } = await copilot(home, '---\nentities: [{name: A}]\nsessions: 7\n---\n');
    expect(names(manifest.known_entities)).toEqual(['A']);
    expect(warnings).toEqual([`${file}: sessions is 7, not a list; skipped`]);
  });
});

/** A folder's names in the file system's listing order, as Python's os.listdir gives them (the engine's iterdir and glob). */
const listed = (dir: string): string[] =>
  JSON.parse(
    execFileSync('python3', ['-c', 'import json, os, sys; print(json.dumps(os.listdir(sys.argv[1])))', dir], {
      encoding: 'utf8',
    }),
  ) as string[];

/** `items` ordered by where their key stands in `order`, stably. */
const inOrder = <T>(items: T[], key: (item: T) => string, order: string[]): T[] =>
  [...items].sort((a, b) => order.indexOf(key(a)) - order.indexOf(key(b)));

describe('copilot-vscode rules', () => {
  const storage = (home: string) => path.join(home, '.config/Code/User/workspaceStorage');
  const jsonl = (...records: unknown[]) => records.map((record) => JSON.stringify(record)).join('\n') + '\n';
  const start = (startTime: unknown, extra: Row = {}) => ({ type: 'session.start', data: { startTime, ...extra } });
  const message = (content: unknown) => ({ type: 'user.message', data: { content } });
  const turnEnd = { type: 'assistant.turn_end', data: {} };
  const transcript = (home: string, workspace: string, name: string, content: string | Buffer) =>
    write(storage(home), `${workspace}/GitHub.copilot-chat/transcripts/${name}`, content);
  const memory = (home: string, workspace: string, relative: string, content: string) =>
    write(storage(home), `${workspace}/GitHub.copilot-chat/memory-tool/memories/${relative}`, content);
  const vscode = (home: string, extra: Partial<ExportEnvironment> = {}, wslUsers?: string) =>
    exportCopilotVscode(exportEnvironment(home, extra), wslUsers ?? path.join(home, 'no-wsl')).then((result) => ({
      manifest: result.manifest as Exported['manifest'],
      warnings: result.warnings,
      sources: result.sources,
    }));

  it('finds the storage: the override, then WSL, then XDG_CONFIG_HOME, then ~/.config; macOS its own', async () => {
    const home = tempDir();
    transcript(home, 'w', 'a.jsonl', jsonl(message('default')));
    write(home, 'xdg/Code/User/workspaceStorage/w/GitHub.copilot-chat/transcripts/a.jsonl', jsonl(message('xdg')));
    write(
      home,
      'wsl/Ann/AppData/Roaming/Code/User/workspaceStorage/w/GitHub.copilot-chat/transcripts/a.jsonl',
      jsonl(message('wsl')),
    );
    fs.mkdirSync(path.join(home, 'wsl/Aaron'));
    write(
      home,
      'mac/Library/Application Support/Code/User/workspaceStorage/w/GitHub.copilot-chat/transcripts/a.jsonl',
      jsonl(message('mac')),
    );
    const first = async (extra: Partial<ExportEnvironment>, wsl?: string) =>
      ((await vscode(home, extra, wsl)).manifest.recent_sessions?.[0]?.key_actions as string[])[0];
    expect(await first({})).toBe('default');
    expect(await first({ env: { HOME: home, XDG_CONFIG_HOME: path.join(home, 'xdg') } })).toBe('xdg');
    expect(await first({ env: { HOME: home, XDG_CONFIG_HOME: path.join(home, 'xdg') } }, path.join(home, 'wsl'))).toBe(
      'wsl',
    );
    expect(await first({ env: { HOME: home, COPILOT_VSCODE_STORAGE: storage(home) } }, path.join(home, 'wsl'))).toBe(
      'default',
    );
    expect(await first({ home: path.join(home, 'mac'), platform: 'darwin' })).toBe('mac');
  });

  it('reads transcripts: the last session.start wins whole, the first message cut to 200, turns counted', async () => {
    const home = tempDir();
    transcript(
      home,
      'w',
      'a.jsonl',
      jsonl(
        start('2026-04-01T00:00:00Z', { producer: 'old', copilotVersion: '1' }),
        message(''),
        message(`${'m'.repeat(250)}`),
        message('second message is never read'),
        { type: 'assistant.message', data: { content: 'never read' } },
        turnEnd,
        start('2026-04-20T09:00:00Z', { producer: 'copilot-plan' }),
        turnEnd,
      ),
    );
    transcript(home, 'w', 'notes.txt', jsonl(message('not a transcript')));
    transcript(home, 'w', 'nested/b.jsonl', jsonl(message('not read: not at the top')));
    const { manifest } = await vscode(home);
    expect(manifest.recent_sessions).toEqual([
      {
        date: '2026-04-20',
        key_actions: [`${'m'.repeat(177)}...`, 'turns: 2', 'mode: copilot-plan'],
        visibility: 'team',
      },
    ]);
  });

  it('reads a type spelled with a JSON escape, and a reply that quotes a type is still only a reply', async () => {
    const home = tempDir();
    transcript(
      home,
      'w',
      'a.jsonl',
      '{"type": "assistant.turn\\u005fend"}\n' +
        jsonl({ type: 'assistant.message', data: { content: 'then user.message and session.start' } }, message('hi')),
    );
    const { manifest } = await vscode(home);
    expect(manifest.recent_sessions).toEqual([{ date: '', key_actions: ['hi', 'turns: 1'], visibility: 'team' }]);
  });

  it('splits lines as Python does and reads only the first 500 after the leading blank ones', async () => {
    const home = tempDir();
    const filler = Array.from({ length: 497 }, () => '{"type": "noise"}').join('\r\n');
    transcript(
      home,
      'w',
      'a.jsonl',
      `\n\n  \r\n${JSON.stringify(start('2026-04-02'))}\r\n{"type": "user.message", "data": {"content": "broken\u2028line"}}\r\n${filler}\r\n${JSON.stringify(turnEnd)}\r\n${JSON.stringify(turnEnd)}\n`,
    );
    const { manifest } = await vscode(home);
    // Line 1 the start, 2–3 the message split in two invalid halves, 4–500 noise, 501 the first turn end.
    expect(manifest.recent_sessions).toEqual([{ date: '2026-04-02', visibility: 'team' }]);
  });

  it('orders sessions by start time, newest first (ties in listing order, undated last); --since keeps undated ones', async () => {
    const home = tempDir();
    transcript(home, 'a', '1.jsonl', jsonl(start('2026-04-20T10:00:00Z'), message('a1')));
    transcript(home, 'a', '2.jsonl', jsonl(message('a2 undated')));
    transcript(home, 'b', '1.jsonl', jsonl(start('2026-04-20T10:00:00Z'), message('b1 tie')));
    transcript(home, 'b', '2.jsonl', jsonl(start('2026-04-25'), message('b2')));
    transcript(home, 'b', '3.jsonl', jsonl(start('2026-04-01'), message('b3 old')));
    transcript(home, 'b', '4.jsonl', '  \n\n');
    const all = await vscode(home);
    // The two sessions of one start time keep the order their workspaces are listed in.
    const ties = inOrder(['a1', 'b1 tie'], (action) => at(action, 0), listed(storage(home)));
    expect((all.manifest.recent_sessions ?? []).map((row) => (row.key_actions as string[])[0])).toEqual([
      'b2',
      ...ties,
      'b3 old',
      'a2 undated',
    ]);
    const since = await vscode(home, { since: sinceOf('2026-04-20') });
    expect(dates(since.manifest.recent_sessions)).toEqual(['2026-04-25', '2026-04-20', '2026-04-20', '']);
  });

  it('memory notes: named by path without the last extension, summarised by their first three bullets, per workspace', async () => {
    const home = tempDir();
    memory(home, 'a', 'repo/web/app.v1.md', '- one\n  - two (nested)\n-no space\n- three\n- four\n');
    memory(home, 'a', 'secrets.md', '- the password is in the vault\n');
    memory(home, 'a', 'blank.md', ' \n\n');
    memory(home, 'b', 'repo/web/app.v1.md', 'prose only\n');
    memory(home, 'b', 'notes.txt', '- not markdown\n');
    const { manifest } = await vscode(home);
    const memories = (manifest.known_entities ?? []).map(({ name, summary }) => ({ name, summary }));
    // Workspace by workspace, in the order the storage folder lists them.
    const byWorkspace: Record<string, { name: string; summary: unknown }[]> = {
      a: [
        { name: 'repo/web/app.v1', summary: 'one; two (nested); three' },
        { name: 'secrets', summary: '[redacted credential-like text]' },
      ],
      b: [{ name: 'repo/web/app.v1', summary: undefined }],
    };
    expect(memories).toEqual(listed(storage(home)).flatMap((workspace) => byWorkspace[workspace] ?? []));
  });

  it('command entities: the 10 most used slash commands over all transcripts, ties by first appearance, --since aside', async () => {
    const home = tempDir();
    const commands = ['/c', '/a', '/b', '/a', '/c', '/d', '/e', '/f', '/g', '/h', '/i', '/j', '/k', '/ spaced', '//x'];
    commands.forEach((command, i) =>
      transcript(
        home,
        'w',
        `${String(i).padStart(2, '0')}.jsonl`,
        jsonl(start(`2026-01-${String(30 - i).padStart(2, '0')}`), message(`${command} go`)),
      ),
    );
    const { manifest } = await vscode(home, { since: sinceOf('2026-04-01') });
    expect(manifest.recent_sessions ?? []).toEqual([]);
    const entities = manifest.known_entities ?? [];
    expect(names(entities)).toEqual(
      ['c', 'a', 'b', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].map((command) => `copilot-command:${command}`),
    );
    expect(entities[0]).toEqual({
      name: 'copilot-command:c',
      type: 'vscode-capability',
      summary: 'VS Code Copilot command used 2 time(s).',
      tags: ['copilot-vscode', 'capability'],
      visibility: 'team',
    });
    // The command is read in the first 100 characters only.
    const other = tempDir();
    transcript(other, 'w', 'long.jsonl', jsonl(message(`/${'x'.repeat(150)}`)));
    expect(names((await vscode(other)).manifest.known_entities)).toEqual([`copilot-command:${'x'.repeat(99)}`]);
  });

  it('skips lines, fields and files of the wrong kind with one line each, and exports the rest', async () => {
    const home = tempDir();
    const file = transcript(
      home,
      'w',
      'a.jsonl',
      jsonl(
        [1, 2],
        { type: 'session.start', data: 'x' },
        { type: 'session.start', data: { startTime: 20260401 } },
        message(42),
        start('2026-04-03'),
        message('kept'),
      ),
    );
    fs.mkdirSync(path.join(path.dirname(file), 'folder.jsonl'));
    const bad = transcript(
      home,
      'w',
      'b.jsonl',
      Buffer.concat([Buffer.from(JSON.stringify(message('caf'))), Buffer.from([0xc3, 0x28])]),
    );
    const utf8 = transcript(
      home,
      'w',
      'c.jsonl',
      Buffer.concat([
        Buffer.from('{"type": "user.message", "data": {"content": "caf'),
        Buffer.from([0xe9]),
        Buffer.from('"}}\n'),
      ]),
    );
    const { manifest, warnings } = await vscode(home);
    // File by file, in the order the transcripts folder lists them.
    const byFile: Record<string, string[]> = {
      'a.jsonl': [
        `${file}: line 1 is JSON but not an object; that line is skipped`,
        `${file}: line 2 has a session.start whose data is not an object; that line is skipped`,
        `${file}: line 3 has a startTime that is not text; that line is skipped`,
        `${file}: line 4 has a message whose content is not text; that line is skipped`,
      ],
      'b.jsonl': [`${bad}: invalid UTF-8, read with the bad bytes replaced by U+FFFD`],
      'c.jsonl': [`${utf8}: invalid UTF-8, read with the bad bytes replaced by U+FFFD`],
      'folder.jsonl': [`${path.join(path.dirname(file), 'folder.jsonl')}: skipped, not a regular file`],
    };
    const files = listed(path.dirname(file));
    expect(warnings).toEqual(files.flatMap((name) => byFile[name] ?? []));
    // The two undated sessions keep the order their files are listed in.
    const undated = inOrder(
      [
        { name: 'b.jsonl', row: { date: '', visibility: 'team' } },
        { name: 'c.jsonl', row: { date: '', key_actions: ['caf\uFFFD'], visibility: 'team' } },
      ],
      (item) => item.name,
      files,
    ).map((item) => item.row);
    expect(manifest.recent_sessions).toEqual([
      { date: '2026-04-03', key_actions: ['kept'], visibility: 'team' },
      ...undated,
    ]);
  });

  it('does not follow a link loop among the memory notes, and reads the linked notes that stay inside', async () => {
    const home = tempDir();
    const note = memory(home, 'w', 'repo/a.md', '- fact\n');
    fs.symlinkSync(path.dirname(path.dirname(note)), path.join(path.dirname(note), 'loop'));
    fs.symlinkSync(note, path.join(path.dirname(note), 'alias.md'));
    const { manifest } = await vscode(home);
    expect(names(manifest.known_entities)).toEqual(['repo/a', 'repo/alias']);
  });

  it('reads only the start of a very large transcript, and skips an over-long line', async () => {
    const home = tempDir();
    const big = path.join(storage(home), 'w/GitHub.copilot-chat/transcripts/big.jsonl');
    fs.mkdirSync(path.dirname(big), { recursive: true });
    const fd = fs.openSync(big, 'w');
    fs.writeSync(fd, `{"type": "huge", "data": "${'z'.repeat(5 * 1024 * 1024)}"}\n`);
    fs.writeSync(fd, jsonl(start('2026-04-05'), message('after the long line'), turnEnd));
    const block = Buffer.from(jsonl({ type: 'assistant.message', data: { content: 'y'.repeat(1000) } }).repeat(1000));
    for (let i = 0; i < 60; i++) fs.writeSync(fd, block); // ~60 MB of replies after the first lines
    fs.closeSync(fd);
    const { manifest, warnings } = await vscode(home);
    expect(manifest.recent_sessions).toEqual([
      { date: '2026-04-05', key_actions: ['after the long line', 'turns: 1'], visibility: 'team' },
    ]);
    expect(warnings).toEqual([`${big}: a line longer than 4194304 characters was skipped`]);
  });

  it('reports the storage folder and each chat folder as its sources', async () => {
    const home = tempDir();
    expect(await copilotVscodeParticipant.sources(exportEnvironment(home))).toEqual([
      { name: 'workspace_storage', path: storage(home), found: false },
    ]);
    transcript(home, 'w', 'a.jsonl', jsonl(message('x')));
    const sources = await copilotVscodeParticipant.sources(exportEnvironment(home));
    expect(sources.map(({ name, path: where, found }) => ({ name, where, found }))).toEqual([
      { name: 'workspace_storage', where: storage(home), found: true },
      { name: 'copilot_chat', where: path.join(storage(home), 'w', 'GitHub.copilot-chat'), found: true },
    ]);
  });
});

describe('the real binary', () => {
  const EPOCH = String(Date.parse('2026-05-01T12:00:00Z') / 1000);
  const bourdon = (home: string, args: string[], extra: Record<string, string> = {}) =>
    runCli(args, {
      cwd: home,
      env: {
        HOME: home,
        BOURDON_HOME: path.join(home, '..', 'config'),
        BOURDON_LIBRARY: path.join(home, '..', 'library'),
        BOURDON_LOCAL_NAME: 'test-host',
        SOURCE_DATE_EPOCH: EPOCH,
        TZ: 'UTC',
        ...extra,
      },
      timeoutMs: 60_000,
    });

  it('copilot-vscode export --out writes the manifest and names a skipped line on stderr, no stack trace', async () => {
    const home = path.join(tempDir(), 'home');
    transcript(home);
    const out = path.join(home, 'out.l5.yaml');
    const result = await bourdon(home, ['copilot-vscode', 'export', '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    const written = yaml.load(fs.readFileSync(out, 'utf8')) as Exported['manifest'];
    expect(written.recent_sessions).toEqual([
      { date: '2026-04-28', key_actions: ['/explain it', 'turns: 1'], visibility: 'team' },
    ]);
    expect(result.stderr.replace(/\s+/g, ' ')).toContain(
      'a.jsonl: line 2 is JSON but not an object; that line is skipped',
    );
    expect(result.stderr).not.toMatch(/\bat .*\.js:\d+/);

    function transcript(dir: string) {
      write(
        dir,
        '.config/Code/User/workspaceStorage/w/GitHub.copilot-chat/transcripts/a.jsonl',
        '{"type": "session.start", "data": {"startTime": "2026-04-28T10:00:00Z"}}\n[]\n{"type": "user.message", "data": {"content": "/explain it"}}\n{"type": "assistant.turn_end"}\n',
      );
    }
  });

  it('cascade and copilot export into the library as versions; rollback undoes one; prose kept, a token redacted', async () => {
    const home = path.join(tempDir(), 'home');
    const library = path.join(home, '..', 'library');
    write(home, '.cascade-bourdon/memory.md', '---\nentities: [{name: Quay}]\n---\n');
    expect((await bourdon(home, ['cascade', 'export'])).code).toBe(0);
    const first = fs.readFileSync(path.join(library, 'agents', 'cascade.l5.yaml'));
    write(home, '.cascade-bourdon/memory.md', '---\nentities: [{name: Quay}, {name: Berth}]\n---\n');
    const second = JSON.parse((await bourdon(home, ['cascade', 'export', '--json'])).stdout);
    expect(second).toMatchObject({ written: true, version: 2, counts: { entities: 2 } });
    const rollback = await bourdon(home, ['rollback', 'cascade', '1', '--yes']);
    expect(rollback.code, rollback.stderr).toBe(0);
    expect(fs.readFileSync(path.join(library, 'agents', 'cascade.l5.yaml')).equals(first)).toBe(true);

    write(
      home,
      '.copilot-bourdon/memory.md',
      '---\nsessions:\n  - {date: 2026-04-29, key_actions: ["Rotated the access_token for staging", "pushed with ghp_abcdefghijklmnopqrstuvwxyz0123456789"]}\n---\n',
    );
    const copilot = await bourdon(home, ['copilot', 'export']);
    expect(copilot.code, copilot.stderr).toBe(0);
    const text = fs.readFileSync(path.join(library, 'agents', 'copilot.l5.yaml'), 'utf8');
    expect((yaml.load(text) as Exported['manifest']).recent_sessions).toEqual([
      { date: '2026-04-29', key_actions: ['Rotated the access_token for staging', 'pushed with [redacted]'] },
    ]);
    expect(text).not.toContain('ghp_');
  });
});
