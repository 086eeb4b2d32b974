/**
 * The parsed cache keeps the rows the L5 model read (rows.json), so a warm full read builds every
 * record without reading the cached document through the model again, and gives the records a
 * read of the manifests gives. What the model left out is kept with them: each CLI call that
 * reads the manifest whole says its one warning again, a long-lived store says it once per
 * change of the file, and a changed file is read through the model again (src/core/store/README.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PyFloat } from '../src/core/python-str.js';
import { LibraryStore } from '../src/core/store/library.js';
import { parseDocument } from '../src/core/store/manifest-file.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';

const GOOD = `spec_version: '0.1'
agent: {id: alpha, type: code-assistant, instance: laptop}
last_updated: '2026-06-01T10:00:00Z'
capabilities: [search, {tool: grep, weight: 2}]
known_entities:
  - {name: Widget, type: project, aliases: [wdg], tags: [t], summary: alpha knows widgets}
recent_sessions:
  - {date: '2026-06-01', cwd: /work, project_focus: [Orbit], key_actions: [shipped]}
  - {date: soon, cwd: /later}
notes:
  - {date: '2026-06-02', text: remember the widget, title: widgets}
`;

/** One entity keeps its row but loses a summary that is a mapping, another an alias that is a list. */
const MISFIT = `spec_version: '0.1'
agent: {id: beta, type: other}
known_entities:
  - {name: Gadget, summary: {not: text}}
  - {name: Gizmo, aliases: [g, [nested]]}
recent_sessions:
  - {date: '2026-06-01', project_focus: [Orbit]}
`;

const SUMMARY_WARNING = 'known_entities[0].summary: expected text, found a mapping';

let root: string;
let home: string;
let agentsDir: string;
let cacheDir: string;

beforeEach(() => {
  root = tempDir('bourdon-rows-lib-');
  home = tempDir('bourdon-rows-home-');
  agentsDir = path.join(root, 'agents');
  cacheDir = path.join(home, 'cache', 'library-test');
  fs.mkdirSync(agentsDir);
  fs.writeFileSync(path.join(agentsDir, 'alpha.l5.yaml'), GOOD);
  fs.writeFileSync(path.join(agentsDir, 'beta.l5.yaml'), MISFIT);
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
});

function entries(): string[] {
  return fs
    .readdirSync(cacheDir)
    .map((name) => path.join(cacheDir, name))
    .filter((dir) => fs.statSync(dir).isDirectory());
}

/** A one-shot full read with the cache, its records and what it warned. */
function cachedRead() {
  const warnings: string[] = [];
  const snapshot = new LibraryStore(root, { warn: (line) => warnings.push(line), cachePath: cacheDir }).snapshot();
  return { agents: snapshot.agents, warnings };
}

describe('the parsed cache keeps the rows the model read', () => {
  it('a warm full read builds the records from rows.json alone, equal to a read of the manifests', () => {
    const truth = new LibraryStore(root, { warn: () => {} }).snapshot().agents;
    expect(cachedRead().agents).toEqual(truth); // cold: writes the entries
    // Without the cached documents the model could not run: the records come from rows.json.
    for (const entry of entries()) fs.rmSync(path.join(entry, 'doc.json'));
    const warm = cachedRead();
    expect(warm.agents).toEqual(truth);
    expect(warm.agents.find((agent) => agent.id === 'alpha')!.capabilities).toEqual([
      'search',
      { tool: 'grep', weight: 2 },
    ]);
    // Answered from the entry, not by parsing the manifest and writing the entry again.
    for (const entry of entries()) expect(fs.existsSync(path.join(entry, 'doc.json'))).toBe(false);
  });

  it('a rows.json of another write, or of the wrong shape, is a miss: the document is read again', () => {
    const truth = new LibraryStore(root, { warn: () => {} }).snapshot().agents;
    cachedRead();
    const [first, second] = entries().map((entry) => path.join(entry, 'rows.json')) as [string, string];
    const forged = JSON.parse(fs.readFileSync(first, 'utf8')) as Record<string, unknown>;
    forged.token = 'someone-else';
    forged.entities = [{ name: 'FORGED' }];
    fs.writeFileSync(first, JSON.stringify(forged));
    const wrongShape = JSON.parse(fs.readFileSync(second, 'utf8')) as Record<string, unknown>;
    wrongShape.agent = { type: 7 };
    fs.writeFileSync(second, JSON.stringify(wrongShape));
    const warm = cachedRead();
    expect(warm.agents).toEqual(truth);
    expect(JSON.stringify(warm.agents)).not.toContain('FORGED');
  });

  it('capabilities JSON cannot carry (.inf) are not kept: the full read still gives them', () => {
    fs.writeFileSync(path.join(agentsDir, 'alpha.l5.yaml'), GOOD.replace('weight: 2', 'weight: .inf'));
    cachedRead();
    const alphaEntry = entries().find((entry) =>
      fs.readFileSync(path.join(entry, 'meta.json'), 'utf8').includes('"alpha"'),
    )!;
    expect(fs.existsSync(path.join(alphaEntry, 'rows.json'))).toBe(false);
    const warm = cachedRead();
    expect(warm.agents.find((agent) => agent.id === 'alpha')!.capabilities).toEqual([
      'search',
      { tool: 'grep', weight: new PyFloat(Infinity) },
    ]);
  });
});

describe('what the model left out, warned about', () => {
  it('each one-shot full read says the warning once, a warm one from the cache as a cold one did', () => {
    const cold = cachedRead();
    expect(cold.warnings).toEqual([
      `reading ${path.join(agentsDir, 'beta.l5.yaml')}: left out 2 values that do not fit the L5 model (${SUMMARY_WARNING})`,
    ]);
    for (const entry of entries()) fs.rmSync(path.join(entry, 'doc.json'));
    expect(cachedRead().warnings).toEqual(cold.warnings);
    expect(cachedRead().warnings).toEqual(cold.warnings);
  });

  it('a long-lived store says it once, and once more only when the file changes', () => {
    const warnings: string[] = [];
    const store = new LibraryStore(root, { warn: (line) => warnings.push(line), cachePath: cacheDir });
    store.snapshot();
    store.snapshot();
    store.snapshot();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(SUMMARY_WARNING);
    // A changed file is read through the model again, and its new misfit named once.
    fs.writeFileSync(
      path.join(agentsDir, 'beta.l5.yaml'),
      MISFIT.replace('summary: {not: text}', 'summary: fine').replace('[g, [nested]]', '[g, {x: 1}]'),
    );
    store.snapshot();
    store.snapshot();
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toContain('left out a value that does not fit the L5 model (known_entities[1].aliases[1]: ');
    // The next one-shot read answers from the entry the change wrote, with that warning.
    expect(cachedRead().warnings).toEqual([warnings[1]]);
  });

  it("a writer's entry keeps the warning too: the next one-shot read says it without parsing the manifest", () => {
    const file = path.join(agentsDir, 'beta.l5.yaml');
    const bytes = fs.readFileSync(file);
    const doc = parseDocument(bytes) as Record<string, unknown>;
    // As a commit does once the file landed: its record adopted, the cache entry written from it.
    new LibraryStore(root, { warn: () => {} }).written('beta.l5.yaml', bytes, doc, cacheDir);
    const [entry] = entries() as [string];
    fs.rmSync(path.join(entry, 'doc.json'));
    const warm = cachedRead();
    expect(fs.existsSync(path.join(entry, 'doc.json'))).toBe(false); // not parsed and written again
    expect(warm.warnings).toEqual([expect.stringContaining(`beta.l5.yaml: left out 2 values`)]);
    expect(warm.warnings[0]).toContain(SUMMARY_WARNING);
    expect(warm.agents.find((agent) => agent.id === 'beta')!.entities.map((entity) => entity.name)).toEqual([
      'Gadget',
      'Gizmo',
    ]);
  });

  it('through the real binary: a warm `summary` says the warning again, once, and answers the same', async () => {
    const env = { BOURDON_HOME: home, BOURDON_LIBRARY: root };
    const cold = await runCli(['summary', 'Orbit', '--json'], { env });
    const warm = await runCli(['summary', 'Orbit', '--json'], { env });
    expect(cold.code, cold.stderr).toBe(0);
    expect(warm.code, warm.stderr).toBe(0);
    expect(warm.stdout).toBe(cold.stdout);
    for (const run of [cold, warm]) {
      const said = run.stderr.split('\n').filter((line) => line.includes('do not fit the L5 model'));
      expect(said, run.stderr).toHaveLength(1);
      expect(said[0]).toContain(`beta.l5.yaml: left out 2 values`);
      expect(said[0]).toContain(SUMMARY_WARNING);
    }
  });
});
