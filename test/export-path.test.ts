/**
 * The export path (src/cli/export-path.ts): `bourdon <participant> export` run without oclif,
 * loading only the participant named. It must answer exactly as the export command does, or
 * leave the call to oclif.
 *
 * - Its loaders name the registry's participants, each loading the registry's own object.
 * - The real binary, over a matrix of plain, edge and bad argvs, prints the same stdout and
 *   stderr, exits with the same code and writes the same manifest with the export path on and
 *   forced off (BOURDON_NO_FAST_PATH=1).
 * - The plain rows of that matrix are the ones the export path runs itself (so the comparison
 *   is not oclif against oclif); the rest fall back.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type vm from 'node:vm';
import { beforeAll, describe, expect, it } from 'vitest';
import { exportCall, PARTICIPANT_LOADERS } from '../src/cli/export-path.js';
import { PARTICIPANTS } from '../src/participants/registry.js';
import { runExportCli } from './helpers/export-cli.js';
import { REPO_ROOT, tempDir } from './helpers/fixtures.js';

/** bin/run.js, which loads the export path (its code runs only when it is the main module). */
const binRun = createRequire(import.meta.url)('../bin/run.js') as {
  bundleScript(file: string, cachedData?: Buffer): vm.Script;
  exportFlags(): void;
};

describe('the export path', () => {
  it('loads every registered participant by its topic, and no other', async () => {
    expect(Object.keys(PARTICIPANT_LOADERS).sort()).toEqual(PARTICIPANTS.map((p) => p.topic).sort());
    for (const participant of PARTICIPANTS) expect(await PARTICIPANT_LOADERS[participant.topic]!()).toBe(participant);
  });

  /** One row: the argv, whether the export path runs it, and an environment to add. */
  interface Row {
    argv: string[];
    taken: boolean;
    env?: Record<string, string>;
  }
  let source = '';
  const rows = (): Row[] => {
    const out = ['--out', 'out.yaml'];
    const graph = ['--file', 'graph.jsonl'];
    return [
      { argv: ['cascade', 'export', ...out], taken: true },
      { argv: ['cascade', 'export', ...out, '--print'], taken: true },
      { argv: ['cascade', 'export', '--print', '--dry-run'], taken: true },
      { argv: ['cascade', 'export', '--since', '2026-04-10', '--access-level', 'public', ...out], taken: true },
      { argv: ['cascade', 'export'], taken: true },
      { argv: ['cascade', 'export', '--library', 'new-library'], taken: true },
      { argv: ['mcp-memory', 'export', ...graph, ...out], taken: true },
      { argv: ['claude-desktop-code', 'export', ...out], taken: true },
      { argv: ['cascade', 'export', ...out], taken: true, env: { SOURCE_DATE_EPOCH: 'yesterday' } },
      { argv: ['cascade', 'export', ...out, '--json'], taken: false },
      { argv: ['cascade', 'export', '--help'], taken: false },
      { argv: ['cascade', 'export', '--out=out.yaml'], taken: false },
      { argv: ['cascade', 'export', ...out, ...out], taken: false },
      { argv: ['cascade', 'export', '--since', 'someday', ...out], taken: false },
      { argv: ['cascade', 'export', '--access-level', 'secret', ...out], taken: false },
      { argv: ['cascade', 'export', 'extra', ...out], taken: false },
      { argv: ['cascade', 'export', '--bogus', ...out], taken: false },
      { argv: ['cascade', 'export', '--out'], taken: false },
      { argv: ['mcp-memory', 'export', '--file', 'missing.jsonl', ...out], taken: false },
      { argv: ['cascade', 'export', '--file', 'graph.jsonl', ...out], taken: false },
    ];
  };

  beforeAll(() => {
    source = tempDir('bourdon-export-path-');
    const memory = [
      '---',
      'entities:',
      '  - name: "Billing parser"',
      '    type: project',
      '    summary: "Parses invoices; token=abc123secret kept out"',
      '    tags: [billing]',
      '    last_touched: 2026-04-20',
      '  - name: "Private note"',
      '    type: note',
      '    tags: [private]',
      'sessions:',
      '  - date: 2026-04-21',
      '    cwd: /home/dev/billing',
      '    key_actions: [fixed the parser]',
      '  - date: 2026-04-02',
      '    cwd: /home/dev/old',
      '---',
      '',
    ].join('\n');
    fs.mkdirSync(path.join(source, 'home', '.cascade-bourdon'), { recursive: true });
    fs.writeFileSync(path.join(source, 'home', '.cascade-bourdon', 'memory.md'), memory);
    fs.writeFileSync(
      path.join(source, 'home', 'graph.jsonl'),
      JSON.stringify({ type: 'entity', name: 'Billing', entityType: 'service', observations: ['parses invoices'] }) +
        '\n',
    );
  });

  /** A fresh copy of the home, run once: what it printed and wrote, its folder named `<root>`. */
  async function run(row: Row, exportPath: boolean, env: Record<string, string> = {}) {
    const root = tempDir('bourdon-export-path-run-');
    fs.cpSync(source, root, { recursive: true, preserveTimestamps: true });
    const home = path.join(root, 'home');
    const folders = { home, bourdonHome: path.join(root, 'config'), library: path.join(root, 'library') };
    const result = await runExportCli(folders, row.argv, {
      ...row.env,
      ...env,
      BOURDON_NO_FAST_PATH: exportPath ? undefined : '1',
    });
    const written = ['out.yaml', 'new-library/agents/cascade.l5.yaml'].map((file) => path.join(home, file));
    written.push(path.join(folders.library, 'agents', `${row.argv[0]}.l5.yaml`));
    const files = written.map((file) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null));
    const named = (text: string) => text.replaceAll(root, '<root>');
    return { code: result.code, stdout: named(result.stdout), stderr: named(result.stderr), files };
  }

  it('answers every row as the export command does, and runs the plain ones itself', async () => {
    const differ: string[] = [];
    const wrong: string[] = [];
    for (const row of rows()) {
      const [fast, oclif] = [await run(row, true), await run(row, false)];
      if (JSON.stringify(fast) !== JSON.stringify(oclif))
        differ.push(
          `${row.argv.join(' ')}:\n  export path ${JSON.stringify(fast)}\n  oclif       ${JSON.stringify(oclif)}`,
        );
      const [topic, , ...words] = row.argv;
      const participant = await PARTICIPANT_LOADERS[topic!]!();
      // The source flags' files, as the binary finds them in its home.
      const absolute = words.map((word) => (word.endsWith('.jsonl') ? path.join(source, 'home', word) : word));
      const taken = exportCall(participant, absolute) !== null;
      if (taken !== row.taken) wrong.push(`${row.argv.join(' ')}: ${taken ? 'taken' : 'left to oclif'}`);
    }
    expect(differ).toEqual([]);
    expect(wrong).toEqual([]);
  }, 300_000);

  it('ships a V8 code cache that the Node which built it accepts, with the functions an export runs', () => {
    // Before Node 22.1, bin/run.js runs dist/bundle/export-path.cjs from this cache, under the
    // export path's V8 flags: a rejected cache (made under other flags, or for another build)
    // would silently cost every export the compiles again.
    const file = path.join(REPO_ROOT, 'dist', 'bundle', 'export-path.cjs');
    const cache = fs.readFileSync(`${file}.cache`);
    binRun.exportFlags();
    expect(binRun.bundleScript(file, cache).cachedDataRejected).toBe(false);
    // Made after an export of every participant (scripts/export-path-cache.mjs), it holds more
    // than the module's top level, which is all a cache made right after compiling holds.
    const topLevelOnly = binRun.bundleScript(file).createCachedData();
    expect(cache.length).toBeGreaterThan(topLevelOnly.length * 1.5);
  });

  it('holds the YAML packages, so an export loads no module from node_modules', async () => {
    const row: Row = { argv: ['cascade', 'export', '--out', 'out.yaml'], taken: true };
    const hook = path.join(tempDir('bourdon-export-path-hook-'), 'modules.cjs');
    const listed = `${hook}.txt`;
    fs.writeFileSync(
      hook,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(listed)}, Object.keys(require.cache).join('\\n')));`,
    );
    const result = await run(row, true, { NODE_OPTIONS: `--require ${hook}` });
    expect(result.code).toBe(0);
    expect(result.files[0]).toContain('Billing parser');
    const loaded = fs.readFileSync(listed, 'utf8').split('\n');
    expect(loaded.filter((file) => file.includes('node_modules'))).toEqual([]);
  });
});
