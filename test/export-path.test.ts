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
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { exportCall, PARTICIPANT_LOADERS } from '../src/cli/export-path.js';
import { PARTICIPANTS } from '../src/participants/registry.js';
import { runExportCli } from './helpers/export-cli.js';
import { tempDir } from './helpers/fixtures.js';

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
  async function run(row: Row, exportPath: boolean) {
    const root = tempDir('bourdon-export-path-run-');
    fs.cpSync(source, root, { recursive: true, preserveTimestamps: true });
    const home = path.join(root, 'home');
    const folders = { home, bourdonHome: path.join(root, 'config'), library: path.join(root, 'library') };
    const result = await runExportCli(folders, row.argv, {
      ...row.env,
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
});
