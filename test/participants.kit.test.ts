/**
 * The participant kit (src/participants/kit/README.md): every participant — codex included, no
 * exemption — assembles its manifest, reads its files and parses JSON through it, and its rules — the typed manifest, the `--since` rules, the stamp,
 * Python's text order — behave as the participants relied on when each wrote its own.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from './helpers/fixtures.js';
import { jsonRecordsOf } from '../src/participants/kit/line-streams.js';
import { SourceReader } from '../src/participants/kit/source-reader.js';
import { assembleManifest, type Entity, type Session } from '../src/participants/kit/manifest-shape.js';
import { sinceOf, sinceRules } from '../src/participants/kit/since.js';
import { lastUpdated } from '../src/participants/kit/stamp.js';
import { compareCodePoints, pyStrip, pySplitLines } from '../src/core/native/python-text.js';

const PARTICIPANTS = path.join(REPO_ROOT, 'src', 'participants');

/** The source files of every participant folder (not the kit), with their text. */
function participantFiles(): { file: string; text: string }[] {
  const walk = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return walk(full);
      return entry.name.endsWith('.ts') ? [full] : [];
    });
  return fs
    .readdirSync(PARTICIPANTS, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== 'kit')
    .flatMap((entry) => walk(path.join(PARTICIPANTS, entry.name)))
    .map((file) => ({ file: path.relative(REPO_ROOT, file), text: fs.readFileSync(file, 'utf8') }));
}

/**
 * What reading by hand looks like, each a test on a source file's text: opening or listing files
 * itself (Node's fs readers, readline) instead of SourceReader; confinement of its own (the rule's
 * parts in core/native/confined-reads.ts, realpath); JSON parsed per line of a text it split.
 */
const BY_HAND = {
  fileReads:
    /from\s+'node:(?:fs\/promises|readline)'|\bfs\.(?:open|read|readdir|opendir|realpath|lstat|stat|createReadStream)\w*\s*\(/,
  confinement: (text: string): boolean =>
    /\brealpath(?:Sync)?(?:\.native)?\s*\(/.test(text) ||
    [...text.matchAll(/import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*'[./]*core\/native\/confined-reads\.js'/g)].some(
      ([, names]) =>
        /\b(?:confinedPath|confinedFile|confinedStat|confinedDirectory|confinedDatabaseFiles|realOrNull|brokenLink|within)\b/.test(
          names ?? '',
        ),
    ),
  jsonPerLine: (text: string): boolean =>
    /\b(?:jsonValueOf|parseJsonText)\s*\(/.test(text) &&
    /\.split\(\s*(?:'\\n'|"\\n"|\/(?:[^/\\\n]|\\.)*\\n(?:[^/\\\n]|\\.)*\/[a-z]*)\s*\)(?!\s*\[0\])|\b(?:py)?[sS]plitLines\s*\(/.test(
      text,
    ),
};

describe('the kit is the one way (src/participants/<participant>/)', () => {
  const files = participantFiles();

  it('finds every participant folder', () => {
    expect(new Set(files.map(({ file }) => file.split(path.sep)[2])).size).toBeGreaterThanOrEqual(11);
  });

  it('no participant parses JSON by hand: lines and documents go through the kit (jsonRecords, jsonValueOf)', () => {
    expect(files.filter(({ text }) => /\bJSON\.parse\s*\(/.test(text)).map(({ file }) => file)).toEqual([]);
  });

  it('no participant reads, lists or confines files itself: every read goes through SourceReader (codex too)', () => {
    expect(files.filter(({ text }) => BY_HAND.fileReads.test(text)).map(({ file }) => file)).toEqual([]);
    expect(files.filter(({ text }) => BY_HAND.confinement(text)).map(({ file }) => file)).toEqual([]);
  });

  it('no participant parses the lines of a text one by one: JSONL records come from jsonRecords / jsonRecordsOf', () => {
    expect(files.filter(({ text }) => BY_HAND.jsonPerLine(text)).map(({ file }) => file)).toEqual([]);
  });

  it('the rules above see reading by hand as the codex participant wrote it before it read through the kit', () => {
    expect(BY_HAND.fileReads.test("import { open, readdir, stat } from 'node:fs/promises';")).toBe(true);
    expect(BY_HAND.fileReads.test('const names = fs.readdirSync(dir);')).toBe(true);
    expect(
      BY_HAND.confinement(
        "import {\n  confinedDirectory,\n  confinedFile,\n  type Warn,\n} from '../../core/native/confined-reads.js';",
      ),
    ).toBe(true);
    expect(BY_HAND.confinement("import { specialKind } from '../../core/native/confined-reads.js';")).toBe(false);
    const perLine = (split: string): string =>
      `const parts = ${split};\nfor (const part of parts) records.push(jsonValueOf(strip(part)));`;
    expect(BY_HAND.jsonPerLine(perLine('text.split(/\\r\\n|\\r|\\n/)'))).toBe(true);
    expect(BY_HAND.jsonPerLine(perLine("text.split('\\n')"))).toBe(true);
    expect(BY_HAND.jsonPerLine(perLine('splitLines(text)'))).toBe(true);
    // A JSON document parsed whole, and the first line of an error message, are not JSONL by hand.
    expect(BY_HAND.jsonPerLine("const config = jsonValueOf(text);\nwarn(error.message.split('\\n')[0]);")).toBe(false);
  });

  it('no participant assembles a manifest by hand: no manifest key in an object literal, no key-ordering of its own', () => {
    const manifestKey = /^\s*(?:spec_version|last_updated|recent_sessions|known_entities|visibility_policy)\s*:/m;
    const byHand = files.filter(({ text }) => manifestKey.test(text) || /\bshaped\s*\(/.test(text));
    expect(byHand.map(({ file }) => file)).toEqual([]);
  });

  it('every participant that returns a manifest builds it with assembleManifest', () => {
    const builders = files.filter(({ text }) => /\bassembleManifest\s*\(/.test(text)).map(({ file }) => file);
    for (const folder of [
      'automations',
      'cascade',
      'claude-code',
      'claude-desktop',
      'codex',
      'copilot',
      'copilot-cli',
      'copilot-vscode',
      'cursor',
      'mcp-memory',
      'openclaw',
    ])
      expect(
        builders.some((file) => file.split(path.sep)[2] === folder),
        folder,
      ).toBe(true);
  });

  it('no participant reads --since itself: each keeps rows by a named rule of the one Since value', () => {
    const bySelf = files.filter(({ text }) => /environment\.since\b/.test(text));
    expect(bySelf.map(({ file }) => file)).toEqual([]);
  });
});

describe('assembleManifest', () => {
  const agent = { id: 'a', type: 'other', role_narrative: 'r' } as const;
  const now = new Date('2026-05-01T12:34:56.789Z');

  it("writes the engine's key order whatever order the rows were built in, leaving out empty values", () => {
    const entity: Entity = { visibility: 'team', tags: [], name: 'N', summary: 'S', type: undefined };
    const session: Session = { files_touched: ['f'], date: '2026-04-01', cwd: undefined };
    const manifest = assembleManifest({
      agent: { role_narrative: 'r', type: 'other', id: 'a' },
      now,
      policy: { team_tags: ['t'], default: 'team' },
      entities: [entity],
      sessions: [session],
      capabilities: [],
    });
    expect(JSON.stringify(manifest)).toBe(
      JSON.stringify({
        spec_version: '0.1',
        agent: { id: 'a', type: 'other', role_narrative: 'r' },
        last_updated: '2026-05-01T12:34:56+00:00',
        recent_sessions: [{ date: '2026-04-01', files_touched: ['f'] }],
        known_entities: [{ name: 'N', summary: 'S', visibility: 'team' }],
        visibility_policy: { default: 'team', team_tags: ['t'] },
      }),
    );
  });

  it('writes a list that was read even when empty under emptyLists: write, and leaves out one not given', () => {
    const manifest = assembleManifest({ agent, now, capabilities: ['x'], entities: [], emptyLists: 'write' });
    expect(Object.keys(manifest)).toEqual(['spec_version', 'agent', 'last_updated', 'capabilities', 'known_entities']);
    expect(manifest.known_entities).toEqual([]);
  });

  it('stamps with +00:00, or Z for the participant whose engine exporter does', () => {
    expect(lastUpdated(now)).toBe('2026-05-01T12:34:56+00:00');
    expect(lastUpdated(now, 'Z')).toBe('2026-05-01T12:34:56Z');
    expect(assembleManifest({ agent, now, zone: 'Z' }).last_updated).toBe('2026-05-01T12:34:56Z');
  });

  it('a misspelt key does not compile', () => {
    // @ts-expect-error -- `summery` is not an entity key
    const entity: Entity = { name: 'x', summery: 'y' };
    // @ts-expect-error -- `file_touched` is not a session key
    const session: Session = { date: '2026-01-01', file_touched: [] };
    expect([entity.name, session.date]).toEqual(['x', '2026-01-01']);
  });
});

describe('the --since rules', () => {
  it('keepDay drops rows before the day and undated ones; keepDayOrUndated keeps undated ones', () => {
    const since = sinceOf('2026-04-10')!;
    expect(['2026-04-09', '2026-04-10', '2026-04-10T00:00', '2027', ''].map((d) => since.keepDay(d))).toEqual([
      false,
      true,
      true,
      true,
      false,
    ]);
    expect(['2026-04-09', ''].map((d) => since.keepDayOrUndated(d))).toEqual([false, true]);
  });

  it("keepDayAtInstant compares the row's day at midnight UTC with the instant; a date that does not parse is kept", () => {
    const noon = sinceOf('2026-04-10T12:00:00Z')!;
    expect(['2026-04-10', '2026-04-11', 'week 15'].map((d) => noon.keepDayAtInstant(d))).toEqual([false, true, true]);
  });

  it("keepInstant compares the row's instant with the one --since names (a day: its midnight UTC)", () => {
    const day = sinceOf('2026-04-10')!;
    expect(['2026-04-09T23:59:59Z', '2026-04-10T00:00:00Z', 'soon'].map((d) => day.keepInstant(d))).toEqual([
      false,
      true,
      true,
    ]);
    const instant = sinceOf('2026-04-10T08:00:00+02:00')!;
    expect(['2026-04-10T05:59:59Z', '2026-04-10T06:00:00Z'].map((d) => instant.keepInstant(d))).toEqual([false, true]);
  });

  it("dayStart is the day's midnight as a database writes it; without --since every rule keeps every row", () => {
    expect(sinceOf('2026-04-10T08:00:00Z')?.dayStart()).toBe('2026-04-10T00:00:00+00:00');
    const none = sinceRules({});
    expect([none.keepDay(''), none.keepDayAtInstant('1999-01-01'), none.keepInstant('1999-01-01')]).toEqual([
      true,
      true,
      true,
    ]);
    expect(none.dayStart()).toBeUndefined();
  });
});

describe("Python's text semantics, once (core/native/python-text.ts)", () => {
  it('orders by code point: an astral character after U+E000–U+FFFF, a lone surrogate as its own code point', () => {
    const sorted = ['\u{1F600}', '\uFFFF', 'a', '\uE000', '\uD800'].sort(compareCodePoints);
    expect(sorted).toEqual(['a', '\uD800', '\uE000', '\uFFFF', '\u{1F600}']);
    expect(compareCodePoints('\u{1F600}', '\uD83Dx')).toBeGreaterThan(0);
    expect(compareCodePoints('ab', 'abc')).toBeLessThan(0);
    expect(compareCodePoints('same', 'same')).toBe(0);
  });

  it("strips Python's whitespace (U+001C–U+001F, U+0085, U+3000; not U+FEFF) and splits at its line breaks", () => {
    expect(pyStrip('\u001c\u0085 x \u3000\u00a0')).toBe('x');
    expect(pyStrip('\uFEFFx')).toBe('\uFEFFx');
    expect(pySplitLines('a\r\nb\rc\u2028d\x1de\n')).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
});

describe('JSONL records, read once (SourceReader.jsonRecords, jsonRecordsOf)', () => {
  const home = (): string => tempDir('bourdon-kit-');

  it("gives a text's records as its file's: universal newlines, stripped lines, what is not JSON without a value", () => {
    const dir = home();
    const text = '{"a":1}\r\n  {"b":2}  \r{"c":3}\n\nnot json\n[1]\r\n{"d":"\u00e9"}\n';
    fs.writeFileSync(path.join(dir, 'x.jsonl'), text);
    const options = { lines: 'universal', strip: true } as const;
    const fromFile = [...new SourceReader([dir]).jsonRecords(path.join(dir, 'x.jsonl'), options)];
    expect(fromFile.map(({ value }) => value)).toEqual([
      { a: 1 },
      { b: 2 },
      { c: 3 },
      undefined,
      undefined,
      [1],
      { d: 'é' },
    ]);
    expect([...jsonRecordsOf(text, options)]).toEqual(fromFile);
  });

  it("a line over the cap: skipped with a warning, or with longLines: 'record' counted as a record, unsaid", () => {
    const dir = home();
    const file = path.join(dir, 'x.jsonl');
    fs.writeFileSync(
      file,
      `  {"big":"${'y'.repeat(5 * 1024 * 1024)}"}\n[${'1,'.repeat(3 * 1024 * 1024)}1]\n{"after":true}\n`,
    );
    const warned = new SourceReader([dir]);
    expect([...warned.jsonRecords(file)].map(({ value }) => value)).toEqual([{ after: true }]);
    expect(warned.warnings).toEqual([`${file}: a line longer than ${4 * 1024 * 1024} bytes was skipped`]);
    const counted = new SourceReader([dir]);
    const records = [...counted.jsonRecords(file, { longLines: 'record' })];
    expect(records.map(({ line, tooLong }) => [line, tooLong?.objectLike])).toEqual([
      [1, true],
      [2, false],
      [3, undefined],
    ]);
    expect(counted.warnings).toEqual([]);
  });

  it("maxChars stops before the line that takes the count past it, each line counted with its end (Python's len(line))", () => {
    const text = '{"a":1}\r\n{"b":2}\n{"c":3}\n';
    expect([...jsonRecordsOf(text, { lines: 'universal', maxChars: 16 })].map(({ value }) => value)).toEqual([
      { a: 1 },
      { b: 2 },
    ]);
    expect([...jsonRecordsOf(text, { lines: 'universal', maxChars: 15 })].map(({ value }) => value)).toEqual([
      { a: 1 },
    ]);
  });

  it("namedIn: a path a store's file names is read only when its real path lies in that store", () => {
    const dir = home();
    const store = path.join(dir, 'store');
    fs.mkdirSync(store);
    fs.writeFileSync(path.join(store, 'in.jsonl'), '{"in":1}\n');
    fs.writeFileSync(path.join(dir, 'beside.jsonl'), '{"secret":1}\n');
    fs.symlinkSync(path.join(store, 'in.jsonl'), path.join(dir, 'link-in.jsonl'));
    const reader = new SourceReader([dir]);
    expect(reader.isDir(store)).toBe(true);
    expect(reader.namedIn(path.join(dir, 'link-in.jsonl'), store)).toBe(true);
    expect([...reader.jsonRecords(path.join(dir, 'link-in.jsonl'))].map(({ value }) => value)).toEqual([{ in: 1 }]);
    const beside = path.join(dir, 'beside.jsonl');
    expect(reader.namedIn(beside, store)).toBe(false);
    expect([...reader.jsonRecords(beside)]).toEqual([]);
    expect(reader.readText(beside)).toBeNull();
    expect(reader.warnings).toEqual([`${beside}: skipped, it leads outside ${store}`]);
  });
});
