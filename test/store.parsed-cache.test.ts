/**
 * The CLI's parsed-library cache (per-manifest entries and entity lookup indexes) never serves
 * what is no longer on disk: every kind of change to the library, and every kind of damage to
 * the cache, gives the answer a process without a cache gives.
 */
import fs from 'node:fs';
import { runDoctor } from '../src/core/admin/doctor.js';
import { configPaths } from '../src/core/store/config.js';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LibraryStore, type LibrarySnapshot } from '../src/core/store/library.js';
import { PartialLibraryStore } from '../src/core/store/partial-store.js';
import { newestFirst } from '../src/core/store/manifest.js';
import { parsedLibraryCachePath } from '../src/core/store/config.js';
import { ParsedCache, contentHash } from '../src/core/store/parsed-cache.js';
import { NameLookup } from '../src/core/store/lookup.js';
import { ManifestLoader } from '../src/core/store/loader.js';
import { findEntityMatches } from '../src/core/operations/queries.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';

const silent = () => {};

function manifest(entities: { name: string; summary: string; aliases?: string[] }[]): string {
  const rows = entities
    .map(
      (e) =>
        `- name: ${e.name}\n  type: project\n  summary: ${e.summary}\n` +
        (e.aliases ? `  aliases:\n${e.aliases.map((a) => `  - ${a}`).join('\n')}\n` : ''),
    )
    .join('');
  return `spec_version: '0.1'\nknown_entities:\n${rows}recent_sessions:\n- date: '2026-06-01'\n  cwd: /work\n`;
}

let root: string;
let home: string;
let agentsDir: string;
let cacheDir: string;

beforeEach(() => {
  root = tempDir('bourdon-cache-lib-');
  home = tempDir('bourdon-cache-home-');
  agentsDir = path.join(root, 'agents');
  cacheDir = path.join(home, 'cache', 'library-test');
  fs.mkdirSync(agentsDir);
  write('alpha', manifest([{ name: 'Widget', summary: 'alpha knows widgets', aliases: ['wdg'] }]));
  write(
    'beta',
    manifest([
      { name: 'Widget', summary: 'beta knows widgets' },
      { name: 'Gadget', summary: 'g' },
    ]),
  );
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
});

/** The per-manifest entry folders of the cache (beside them: the library-wide lookup's files). */
function entryNames(): string[] {
  return fs.readdirSync(cacheDir).filter((name) => fs.statSync(path.join(cacheDir, name)).isDirectory());
}

function write(id: string, text: string): void {
  fs.writeFileSync(path.join(agentsDir, `${id}.l5.yaml`), text);
}

/** What a process with the cache answers, next to what one without it answers. */
function lookups(name: string) {
  const cached = new PartialLibraryStore(root, { entity: name }, { warn: silent, cachePath: cacheDir }).snapshot();
  const full = new LibraryStore(root, { warn: silent, cachePath: cacheDir }).snapshot();
  const truth = new LibraryStore(root, { warn: silent }).snapshot();
  const matches = (snapshot: LibrarySnapshot) => findEntityMatches(snapshot.agents, name, 'private');
  return { lookup: matches(cached), full: matches(full), truth: matches(truth), ids: full.agents.map((a) => a.id) };
}

/** Each agent's id and sessions newest first, as a view of the library sees them. */
function sessionsOf(snapshot: LibrarySnapshot) {
  return snapshot.agents.map((agent) => ({ id: agent.id, sessions: [...agent.sessions].sort(newestFirst) }));
}

/** The view `bourdon recent` reads: sessions back to a day (null: all of them). */
const sessionsView = (sessionsSince: string | null = null) => ({ sessionsSince });

function expectFresh(name: string) {
  const { lookup, full, truth, ids } = lookups(name);
  expect(lookup).toEqual(truth);
  expect(full).toEqual(truth);
  const uncached = new LibraryStore(root, { warn: silent }).snapshot();
  expect(ids).toEqual(uncached.agents.map((a) => a.id));
  // The other partial views (bourdon recent, bourdon agents --json) see the same library.
  const options = { warn: silent, cachePath: cacheDir };
  expect(sessionsOf(new PartialLibraryStore(root, sessionsView(), options).snapshot())).toEqual(sessionsOf(uncached));
  expect(new PartialLibraryStore(root, 'ids', options).snapshot().agents.map((a) => a.id)).toEqual(ids);
  return truth;
}

describe('parsed-library cache', () => {
  it('answers from the cache once warm, and the lookup matches the uncached answer', () => {
    const first = expectFresh('widget');
    expect(first[0]!.agents).toEqual(['alpha', 'beta']);
    expect(entryNames()).toHaveLength(2);
    expect(expectFresh('WDG')[0]!.summaries).toEqual({ alpha: 'alpha knows widgets' });
  });

  it('is invalidated by an edit', () => {
    expectFresh('widget');
    write('alpha', manifest([{ name: 'Widget', summary: 'alpha changed its mind about widgets entirely' }]));
    expect(expectFresh('widget')[0]!.summaries.alpha).toBe('alpha changed its mind about widgets entirely');
    expect(expectFresh('wdg')).toEqual([]);
  });

  it('is invalidated by a delete', () => {
    expectFresh('widget');
    fs.rmSync(path.join(agentsDir, 'alpha.l5.yaml'));
    expect(expectFresh('widget')[0]!.agents).toEqual(['beta']);
    write('gamma', manifest([{ name: 'Gadget', summary: 'g' }])); // a parse prunes the deleted entry
    expectFresh('widget');
    expect(entryNames()).toHaveLength(2);
  });

  it('is invalidated by an add', () => {
    expectFresh('widget');
    write('gamma', manifest([{ name: 'Widget', summary: 'gamma too' }]));
    expect(expectFresh('widget')[0]!.agents).toEqual(['alpha', 'beta', 'gamma']);
  });

  it('is invalidated by a rename', () => {
    expectFresh('widget');
    fs.renameSync(path.join(agentsDir, 'alpha.l5.yaml'), path.join(agentsDir, 'delta.l5.yaml'));
    expect(expectFresh('widget')[0]!.agents).toEqual(['beta', 'delta']);
  });

  it('is invalidated by a same-size edit within the same second (mtime put back)', () => {
    expectFresh('widget');
    const file = path.join(agentsDir, 'alpha.l5.yaml');
    const before = fs.statSync(file);
    const text = fs.readFileSync(file, 'utf8');
    const edited = text.replace('alpha knows widgets', 'ALPHA KNOWS WIDGETS');
    expect(edited.length).toBe(text.length);
    fs.writeFileSync(file, edited);
    fs.utimesSync(file, before.atime, before.mtime);
    expect(fs.statSync(file).size).toBe(before.size);
    expect(expectFresh('widget')[0]!.summaries.alpha).toBe('ALPHA KNOWS WIDGETS');
  });

  it('is invalidated for the sessions view by a same-size session edit within the same second', () => {
    expectFresh('widget');
    const file = path.join(agentsDir, 'beta.l5.yaml');
    const before = fs.statSync(file);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('cwd: /work', 'cwd: /play'));
    fs.utimesSync(file, before.atime, before.mtime);
    expect(fs.statSync(file).size).toBe(before.size);
    const view = new PartialLibraryStore(root, sessionsView(), { warn: silent, cachePath: cacheDir }).snapshot();
    expect(view.byId.get('beta')!.sessions.map((s) => s.cwd)).toEqual(['/play']);
    expectFresh('widget');
  });

  it('reads only the sessions part for the sessions view once warm, and rebuilds it when missing', () => {
    expectFresh('widget');
    const entries = entryNames().map((dir) => path.join(cacheDir, dir));
    for (const entry of entries) fs.rmSync(path.join(entry, 'doc.json'));
    // Without the documents, the warm view still answers, from the sessions parts alone.
    const options = { warn: silent, cachePath: cacheDir };
    const warm = new PartialLibraryStore(root, sessionsView(), options).snapshot();
    expect(warm.agents.map((a) => a.sessions.length)).toEqual([1, 1]);
    for (const entry of entries) expect(fs.existsSync(path.join(entry, 'doc.json'))).toBe(false);
    // A missing or foreign sessions part is a miss: the manifest is read again.
    fs.rmSync(path.join(entries[0]!, 'sessions-2026-06.json'));
    fs.writeFileSync(path.join(entries[1]!, 'sessions-2026-06.json'), JSON.stringify({ token: 'x', sessions: [] }));
    expectFresh('widget');
    for (const entry of entries) expect(fs.existsSync(path.join(entry, 'sessions-2026-06.json'))).toBe(true);
  });

  it('reads the sessions of the months a window reaches, and only those', () => {
    const dates = ['2026-11-20', '2026-09-02T08:00:00Z', 'soon', '2026-11-03', '2026-10-31', '2026-11-20'];
    write(
      'alpha',
      `spec_version: '0.1'\nrecent_sessions:\n${dates.map((d, i) => `- date: '${d}'\n  cwd: /w${i}\n`).join('')}`,
    );
    const options = { warn: silent, cachePath: cacheDir };
    new PartialLibraryStore(root, sessionsView(), options).snapshot(); // parses, writes the entry
    const all = new PartialLibraryStore(root, sessionsView(), options).snapshot().byId.get('alpha')!.sessions;
    // From the cache: newest first, equal dates in file order, the undated row last.
    expect(all.map((s) => s.cwd)).toEqual(['/w0', '/w5', '/w3', '/w4', '/w1', '/w2']);
    const entry = path.join(
      cacheDir,
      entryNames().find((dir) => fs.existsSync(path.join(cacheDir, dir, 'sessions-2026-09.json')))!,
    );
    expect(
      fs
        .readdirSync(entry)
        .filter((name) => name.startsWith('sessions-'))
        .sort(),
    ).toEqual(['sessions-2026-09.json', 'sessions-2026-10.json', 'sessions-2026-11.json', 'sessions-undated.json']);
    // With the months before the window gone, a window from November still answers from the
    // cache (the manifest is not read again, so nothing is rewritten)…
    fs.rmSync(path.join(entry, 'sessions-2026-09.json'));
    fs.rmSync(path.join(entry, 'sessions-2026-10.json'));
    fs.rmSync(path.join(entry, 'sessions-undated.json'));
    const november = new PartialLibraryStore(root, sessionsView('2026-11-05'), options).snapshot();
    expect(november.byId.get('alpha')!.sessions.map((s) => s.cwd)).toEqual(['/w0', '/w5', '/w3']);
    expect(fs.existsSync(path.join(entry, 'sessions-2026-10.json'))).toBe(false);
    // …and a window that reaches a missing month is a miss: the manifest is read again.
    const october = new PartialLibraryStore(root, sessionsView('2026-10-31'), options).snapshot();
    expect([...october.byId.get('alpha')!.sessions].sort(newestFirst).map((s) => s.cwd)).toEqual([
      '/w0',
      '/w5',
      '/w3',
      '/w4',
      '/w1',
      '/w2',
    ]);
    expect(fs.existsSync(path.join(entry, 'sessions-2026-10.json'))).toBe(true);
    // A month whose sessions are all gone loses its part when the entry is written again.
    write('alpha', `spec_version: '0.1'\nrecent_sessions:\n- date: '2026-11-20'\n  cwd: /w0\n`);
    new PartialLibraryStore(root, sessionsView(), options).snapshot();
    expect(fs.readdirSync(entry).filter((name) => name.startsWith('sessions-'))).toEqual(['sessions-2026-11.json']);
  });

  it('checks an entry by content when its stamp could hide an edit (same stamp, new bytes)', () => {
    const file = 'alpha.l5.yaml';
    const text = fs.readFileSync(path.join(agentsDir, file));
    const cache = new ParsedCache(cacheDir, agentsDir);
    // A stamp taken now: within the racy window, so the entry records the content's hash.
    const stamp = { key: 'file:1:2:3:4', changedMs: Date.now(), kind: 'file' as const };
    cache.write(file, stamp, contentHash(text), {
      id: 'alpha',
      doc: { known_entities: [] },
      entities: [],
      sessions: [],
    });
    expect(cache.meta(file, stamp)).not.toBeNull();
    fs.writeFileSync(path.join(agentsDir, file), text.toString('utf8').replace('alpha', 'omega'));
    expect(cache.meta(file, stamp)).toBeNull();
  });

  it('settles a content-checked entry once its change is old: the hash is dropped, later edits still show', () => {
    const file = 'alpha.l5.yaml';
    const text = fs.readFileSync(path.join(agentsDir, file));
    const cache = new ParsedCache(cacheDir, agentsDir);
    const entry = { id: 'alpha', doc: { known_entities: [] }, entities: [], sessions: [] };
    const metaFile = () => path.join(cacheDir, entryNames()[0]!, 'meta.json');
    const recorded = () => (JSON.parse(fs.readFileSync(metaFile(), 'utf8')) as { sha: string | null }).sha;
    // Changed just now: the entry records the hash, and a check this soon keeps it.
    const fresh = { key: 'file:1:2:3:4', changedMs: Date.now(), kind: 'file' as const };
    cache.write(file, fresh, contentHash(text), entry);
    expect(cache.meta(file, fresh)).not.toBeNull();
    expect(recorded()).toBe(contentHash(text));
    // The same stamp seen once the change is older than the window: verified, then settled.
    const old = { ...fresh, changedMs: Date.now() - 10_000 };
    expect(cache.meta(file, old)?.sha).toBeNull();
    expect(recorded()).toBeNull();
    // A real edit moves the stamp (ctime at least), so the settled entry is not used for it.
    expectFresh('widget');
    const manifestPath = path.join(agentsDir, file);
    const before = fs.statSync(manifestPath);
    fs.writeFileSync(
      manifestPath,
      fs.readFileSync(manifestPath, 'utf8').replace('alpha knows widgets', 'ALPHA KNOWS WIDGETS'),
    );
    fs.utimesSync(manifestPath, before.atime, before.mtime);
    expect(expectFresh('widget')[0]!.summaries.alpha).toBe('ALPHA KNOWS WIDGETS');
  });

  it('rebuilds corrupt, torn or mismatched cache files instead of trusting them', () => {
    expectFresh('widget');
    const entries = entryNames().map((dir) => path.join(cacheDir, dir));
    // Garbage meta in one entry; a bucket and a document from another write in the other.
    fs.writeFileSync(path.join(entries[0]!, 'meta.json'), '{"format": 2, "agen');
    const forge = (text: string, name: string) => {
      const data = JSON.parse(text);
      data.token = 'someone-else';
      if (name === 'doc.json') data.doc = { known_entities: [{ name: 'Widget', summary: 'forged' }] };
      else if (name === 'entities.jsonl')
        data.keys = { widget: [{ name: 'Widget', summary: 'forged', aliases: [], tags: [], visibility: 'public' }] };
      else data.sessions = [];
      return JSON.stringify(data);
    };
    for (const name of fs.readdirSync(entries[1]!).filter((n) => n !== 'meta.json')) {
      const text = fs.readFileSync(path.join(entries[1]!, name), 'utf8');
      const forged = name.endsWith('.jsonl')
        ? text
            .split('\n')
            .map((line) => (line ? forge(line, name) : line))
            .join('\n')
        : forge(text, name);
      fs.writeFileSync(path.join(entries[1]!, name), forged);
    }
    const answer = expectFresh('widget');
    expect(JSON.stringify(answer)).not.toContain('forged');
    // Rebuilt: the damaged meta is valid JSON again.
    expect(() => JSON.parse(fs.readFileSync(path.join(entries[0]!, 'meta.json'), 'utf8'))).not.toThrow();
  });

  it('refuses entries another user could have written: group/other-writable, or owned by someone else', () => {
    expectFresh('widget');
    const files = entryNames()
      .flatMap((dir) => fs.readdirSync(path.join(cacheDir, dir)).map((name) => path.join(cacheDir, dir, name)))
      .filter((file) => /(doc\.json|entities\.jsonl)$/.test(file));
    // A consistent forgery: same token, same offsets, another summary.
    for (const file of files)
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replaceAll('alpha knows widgets', 'FORGED knows widget'));
    const served = () => {
      const { lookup, full } = lookups('widget');
      return JSON.stringify([lookup, full]);
    };
    expect(served()).toContain('FORGED'); // the forgery is what an entry this user wrote would serve
    // Each case starts from a fresh entry, forged again, then given the mode or owner.
    const forgeAgain = (mode: number, owner: number | null) => {
      fs.rmSync(cacheDir, { recursive: true, force: true });
      expectFresh('widget');
      for (const file of entryNames().flatMap((dir) =>
        fs.readdirSync(path.join(cacheDir, dir)).map((name) => path.join(cacheDir, dir, name)),
      ))
        if (/(doc\.json|entities\.jsonl)$/.test(file)) {
          fs.writeFileSync(
            file,
            fs.readFileSync(file, 'utf8').replaceAll('alpha knows widgets', 'FORGED knows widget'),
          );
          fs.chmodSync(file, mode);
          if (owner !== null) fs.chownSync(file, owner, owner);
        }
    };
    for (const mode of [0o620, 0o602, 0o666]) {
      forgeAgain(mode, null);
      expect(served(), mode.toString(8)).not.toContain('FORGED');
    }
    // A folder others may write to: its files could be renamed in from anywhere.
    forgeAgain(0o600, null);
    fs.chmodSync(cacheDir, 0o777);
    expect(served()).not.toContain('FORGED');
    fs.chmodSync(cacheDir, 0o700);
    if (typeof process.getuid === 'function' && process.getuid() === 0) {
      forgeAgain(0o600, 4242);
      expect(served()).not.toContain('FORGED');
    }
  });

  it("doctor fails the parsed-cache check, naming the files, when one could be another user's", async () => {
    expectFresh('widget');
    const config = configPaths({ BOURDON_HOME: home });
    const cacheCheck = async () =>
      (await runDoctor({ libraryRoot: root, config, env: { BOURDON_HOME: home } })).checks.find(
        (c) => c.id === 'cache',
      )!;
    expect((await cacheCheck()).verdict).toBe('ok');
    const entry = path.join(cacheDir, entryNames()[0]!, 'doc.json');
    fs.chmodSync(entry, 0o622);
    const failed = await cacheCheck();
    expect(failed.verdict).toBe('fail');
    expect(failed.summary).toMatch(
      /^1 cache file not owned by you or writable by others \(ignored by queries\); remove /,
    );
    expect(failed.details).toEqual([entry]);
  });

  it('reads a month of more sessions than a call takes arguments (150,000 in one part)', () => {
    const rows = "- date: '2026-11-02'\n".repeat(150_000);
    write('alpha', `spec_version: '0.1'\nrecent_sessions:\n${rows}`);
    const options = { warn: silent, cachePath: cacheDir };
    new PartialLibraryStore(root, sessionsView('2026-11-01'), options).snapshot(); // writes the entry
    const view = new PartialLibraryStore(root, sessionsView('2026-11-01'), options).snapshot();
    expect(view.byId.get('alpha')!.sessions).toHaveLength(150_000);
  });

  it('treats a truncated or regrown lookup file as a miss, not as a bucket', () => {
    expectFresh('widget');
    const entries = entryNames().map((dir) => path.join(cacheDir, dir, 'entities.jsonl'));
    const [first, second] = entries as [string, string];
    fs.truncateSync(first, Math.floor(fs.statSync(first).size / 2));
    // Longer, with the same token: every line now starts elsewhere than meta.json says.
    fs.writeFileSync(second, 'x'.repeat(7) + fs.readFileSync(second, 'utf8'));
    expect(expectFresh('widget')[0]!.agents).toEqual(['alpha', 'beta']);
    expect(expectFresh('wdg')[0]!.agents).toEqual(['alpha']);
  });

  it('treats a meta.json of the wrong shape (valid JSON, a field missing or of another type) as a miss', () => {
    const file = 'alpha.l5.yaml';
    const cache = new ParsedCache(cacheDir, agentsDir);
    const stamp = { key: 'file:1:2:3:4', changedMs: 0, kind: 'file' as const };
    cache.write(file, stamp, null, { id: 'alpha', doc: { known_entities: [] }, entities: [], sessions: [] });
    const metaFile = path.join(cacheDir, entryNames()[0]!, 'meta.json');
    const good = JSON.parse(fs.readFileSync(metaFile, 'utf8')) as Record<string, unknown>;
    expect(cache.meta(file, stamp)).toMatchObject({ id: 'alpha', file });
    for (const [field, value] of [
      ['format', '3'],
      ['stamp', 1],
      ['token', null],
      ['id', 7],
      ['error', false],
      ['doc', 'yes'],
      ['sha', undefined],
      ['entityOffsets', [0, 1]],
      ['entityOffsets', Array.from({ length: 17 }, (_, i) => 17 - i)],
      ['months', ['soon']],
    ] as const) {
      const bad: Record<string, unknown> = { ...good, [field]: value };
      if (value === undefined) delete bad[field];
      fs.writeFileSync(metaFile, JSON.stringify(bad));
      expect(cache.meta(file, stamp), `${field}: ${JSON.stringify(value)}`).toBeNull();
    }
    fs.writeFileSync(metaFile, JSON.stringify([good]));
    expect(cache.meta(file, stamp)).toBeNull();
  });

  it('keeps broken manifests broken, with their warning, when answered from the cache', () => {
    write('broken', 'known_entities: [\n  - {');
    const warnings: string[] = [];
    const warn = (message: string) => warnings.push(message);
    new PartialLibraryStore(root, { entity: 'widget' }, { warn, cachePath: cacheDir }).snapshot();
    const again = new PartialLibraryStore(root, { entity: 'widget' }, { warn, cachePath: cacheDir }).snapshot();
    expect(again.broken.map((b) => b.id)).toEqual(['broken']);
    expect(warnings.filter((w) => w.includes('broken.l5.yaml'))).toHaveLength(2);
  });

  it("answers a warm lookup from the library-wide lookup, without any agent's meta.json", () => {
    expectFresh('widget');
    expect(fs.existsSync(path.join(cacheDir, 'lookup.json'))).toBe(true);
    const metas = entryNames().map((dir) => path.join(cacheDir, dir, 'meta.json'));
    for (const meta of metas) fs.rmSync(meta);
    const options = { warn: silent, cachePath: cacheDir };
    const warm = new PartialLibraryStore(root, { entity: 'wdg' }, options).snapshot();
    expect(findEntityMatches(warm.agents, 'wdg', 'private')[0]!.agents).toEqual(['alpha']);
    expect(new PartialLibraryStore(root, 'ids', options).snapshot().agents.map((a) => a.id)).toEqual(['alpha', 'beta']);
    // Answered from the lookup alone: no entry was read, so none was written again.
    for (const meta of metas) expect(fs.existsSync(meta)).toBe(false);
    // A manifest added since: read from its own entry beside the lookup, which still serves the others.
    const header = fs.readFileSync(path.join(cacheDir, 'lookup.json'));
    write('gamma', manifest([{ name: 'Widget', summary: 'gamma says wdg', aliases: ['wdg'] }]));
    const found = new PartialLibraryStore(root, { entity: 'wdg' }, options).snapshot();
    const truth = new LibraryStore(root, { warn: silent }).snapshot();
    expect(findEntityMatches(found.agents, 'wdg', 'private')).toEqual(
      findEntityMatches(truth.agents, 'wdg', 'private'),
    );
    expect(findEntityMatches(found.agents, 'wdg', 'private')[0]!.agents).toEqual(['alpha', 'gamma']);
    for (const meta of metas) expect(fs.existsSync(meta)).toBe(false);
    expect(fs.readFileSync(path.join(cacheDir, 'lookup.json'))).toEqual(header);
    // More stale files than the lookup serves beside itself (8 in a small library): the entries
    // answer, and the lookup is written afresh from them.
    for (let i = 0; i < 8; i++) write(`extra-${i}`, manifest([{ name: 'Widget', summary: `extra ${i}` }]));
    expect(expectFresh('wdg')[0]!.agents).toEqual(['alpha', 'gamma']);
    expect(expectFresh('widget')[0]!.agents).toHaveLength(11);
    for (const meta of metas) expect(fs.existsSync(meta)).toBe(true);
    expect(fs.readFileSync(path.join(cacheDir, 'lookup.json'))).not.toEqual(header);
  });

  it('sees an in-place edit that keeps the size and mtime through the lookup', () => {
    expectFresh('wdg');
    const file = path.join(agentsDir, 'alpha.l5.yaml');
    const before = fs.statSync(file);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('- wdg', '- wdx'));
    fs.utimesSync(file, before.atime, before.mtime);
    expect(expectFresh('wdg')).toEqual([]);
    expect(expectFresh('wdx')[0]!.agents).toEqual(['alpha']);
  });

  it('refuses a lookup another user could have written, or one that is corrupt or forged', () => {
    expectFresh('gadget');
    const header = path.join(cacheDir, 'lookup.json');
    const buckets = path.join(cacheDir, 'lookup.jsonl');
    // A forgery this user could have written is what the lookup serves: alpha named for gadget.
    const forge = () => {
      const text = fs.readFileSync(buckets, 'utf8');
      fs.writeFileSync(buckets, text.replace(/"gadget":\[1\]/, '"gadget":[0,1]'));
      expect(fs.readFileSync(buckets, 'utf8')).toContain('"gadget":[0,1]');
    };
    const served = () =>
      findEntityMatches(
        new PartialLibraryStore(root, { entity: 'gadget' }, { warn: silent, cachePath: cacheDir }).snapshot().agents,
        'gadget',
        'private',
      );
    forge();
    // alpha has no gadget in its own bucket: a holder without the name is no match, never a row.
    expect(served()[0]!.agents).toEqual(['beta']);
    for (const [target, mode] of [
      [buckets, 0o622],
      [header, 0o606],
      [cacheDir, 0o777],
    ] as const) {
      fs.chmodSync(target, mode);
      expect(served(), `${target} ${mode.toString(8)}`).toEqual(expectFresh('gadget'));
      fs.chmodSync(target, target === cacheDir ? 0o700 : 0o600);
    }
    for (const damage of ['{"format":1,"agen', JSON.stringify({ format: 1, agents: agentsDir, token: 't' })]) {
      fs.writeFileSync(header, damage);
      expect(served()).toEqual(expectFresh('gadget'));
    }
    // A header of another library is not this one's.
    const data = JSON.parse(fs.readFileSync(header, 'utf8'));
    fs.writeFileSync(header, JSON.stringify({ ...data, agents: '/elsewhere/agents' }));
    expect(served()).toEqual(expectFresh('gadget'));
  });

  it('keeps the lookup when it prunes entries, and drops a temp file a killed writer left', () => {
    expectFresh('widget');
    const leftover = path.join(cacheDir, 'lookup.jsonl.99999.tmp');
    fs.writeFileSync(leftover, 'half', { mode: 0o600 });
    fs.rmSync(path.join(agentsDir, 'alpha.l5.yaml'));
    write('gamma', manifest([{ name: 'Widget', summary: 'gamma' }])); // a parse: the entries are pruned
    expect(expectFresh('widget')[0]!.agents).toEqual(['beta', 'gamma']);
    expect(fs.existsSync(leftover)).toBe(false);
    expect(entryNames()).toHaveLength(2);
    for (const name of ['lookup.json', 'lookup.jsonl']) expect(fs.existsSync(path.join(cacheDir, name))).toBe(true);
  });

  it('is owner-only on disk', () => {
    expectFresh('widget');
    const entry = path.join(cacheDir, entryNames()[0]!);
    expect(fs.statSync(entry).mode & 0o777).toBe(0o700);
    for (const name of fs.readdirSync(entry)) expect(fs.statSync(path.join(entry, name)).mode & 0o777).toBe(0o600);
    for (const name of ['lookup.json', 'lookup.jsonl'])
      expect(fs.statSync(path.join(cacheDir, name)).mode & 0o777).toBe(0o600);
  });
});

describe('bourdon find with the parsed cache', () => {
  it('answers as an uncached run does, before and after a manifest changes', async () => {
    const env = { BOURDON_HOME: home };
    const args = ['find', 'Widget', '--json', '--library', root];
    const uncached = async () => (await runCli(args, { env: { ...env, BOURDON_NO_CACHE: '1' } })).stdout;
    const cold = await runCli(args, { env });
    expect(cold.code).toBe(0);
    expect(cold.stdout).toBe(await uncached());
    const warm = await runCli(args, { env });
    expect(warm.stdout).toBe(cold.stdout);
    write('beta', manifest([{ name: 'Widget', summary: 'beta rewrote this' }]));
    const after = await runCli(args, { env });
    expect(JSON.parse(after.stdout).matches[0].summaries.beta).toBe('beta rewrote this');
    expect(after.stdout).toBe(await uncached());
  });

  it('holds a committed manifest as written, so the next read after a commit parses nothing', async () => {
    const env = { BOURDON_HOME: home };
    expect((await runCli(['find', 'Widget', '--json', '--library', root], { env })).code).toBe(0); // writes the lookup
    const input = JSON.stringify({ known_entities: [{ name: 'Sprocket', summary: 'committed just now' }] });
    const commit = await runCli(['commit', 'beta', '--agent-type', 'other', '-f', '-', '--library', root], {
      env,
      input,
    });
    expect(commit.code, commit.stderr).toBe(0);
    // The entry the commit wrote describes the file on disk now, content hash included.
    const file = 'beta.l5.yaml';
    const stat = fs.lstatSync(path.join(agentsDir, file));
    const stamp = {
      key: `file:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.ino}`,
      changedMs: Math.max(stat.mtimeMs, stat.ctimeMs),
      kind: 'file' as const,
    };
    const cache = new ParsedCache(parsedLibraryCachePath(root, env)!, agentsDir);
    const meta = cache.meta(file, stamp);
    expect(meta?.id).toBe('beta');
    expect(meta?.sha).toBe(contentHash(fs.readFileSync(path.join(agentsDir, file))));
    expect(cache.entities(meta!, 'sprocket')?.map((e) => e.summary)).toEqual(['committed just now']);
    // The library-wide lookup the first read wrote still serves the other agents; beta, changed
    // since, is read from the entry the commit wrote, which the read neither parses nor rewrites.
    const listing = new ManifestLoader(agentsDir, null, silent, null).list();
    expect(new NameLookup(cache).usable(listing)?.stale.map(([name]) => name)).toEqual([file]);
    const args = ['find', 'Sprocket', '--json', '--library', root];
    const answer = await runCli(args, { env });
    expect(JSON.parse(answer.stdout).matches[0].agents).toEqual(['beta']);
    expect(cache.meta(file, stamp)?.token).toBe(meta!.token);
    expect(answer.stdout).toBe((await runCli(args, { env: { ...env, BOURDON_NO_CACHE: '1' } })).stdout);
  });
});
