/**
 * A session our own exporter writes undated (copilot-vscode's transcript without a start time,
 * at parity with the engine) reads back without a warning, and doctor reports it as information
 * (issue 54, item 1). A value someone else wrote that does not fit is still warned about, in
 * words that agree with the count.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LibraryStore } from '../src/core/store/library.js';
import { tempDir } from './helpers/fixtures.js';
import { runExportCli } from './helpers/export-cli.js';

function folders() {
  const home = tempDir('bourdon-undated-');
  return { home, bourdonHome: path.join(home, '.bourdon'), library: path.join(home, 'library') };
}

describe('a session exported without a date', () => {
  it('reads back with no warning on any command; doctor passes and says it as info', async () => {
    const where = folders();
    const transcripts = path.join(where.home, 'storage', 'w', 'GitHub.copilot-chat', 'transcripts');
    fs.mkdirSync(transcripts, { recursive: true });
    // No session.start: the engine, and our exporter, record the session with an empty date.
    fs.writeFileSync(
      path.join(transcripts, 'a.jsonl'),
      JSON.stringify({ type: 'user.message', data: { content: 'hello' } }) + '\n',
    );
    const env = { COPILOT_VSCODE_STORAGE: path.join(where.home, 'storage') };
    const exported = await runExportCli(where, ['copilot-vscode', 'export'], env);
    expect(exported.code, exported.stderr).toBe(0);
    const written = fs.readFileSync(path.join(where.library, 'agents', 'copilot-vscode.l5.yaml'), 'utf8');
    expect(written).toMatch(/date: ['"]{2}/);

    for (const args of [['agents'], ['workstreams'], ['list-notes'], ['copilot-vscode', 'export']]) {
      const run = await runExportCli(where, args, env);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
      expect(run.stderr, args.join(' ')).not.toMatch(/left out|do not fit|does not fit/);
    }

    const doctor = await runExportCli(where, ['doctor', '--offline', '--json'], env);
    const report = JSON.parse(doctor.stdout) as { checks: { id: string; verdict: string; details?: string[] }[] };
    expect(report.checks.find((check) => check.id === 'schema')?.verdict).toBe('ok');
    const undated = report.checks.find((check) => check.id === 'undated');
    expect(undated?.verdict).toBe('info');
    expect(undated?.details).toEqual([
      'agents/copilot-vscode.l5.yaml: recent_sessions[0] has an empty date (recorded undated): it is not listed',
    ]);
  });

  it('warns about a value someone else wrote in words that agree with the count', () => {
    const library = tempDir('bourdon-undated-lib-');
    fs.mkdirSync(path.join(library, 'agents'));
    fs.writeFileSync(
      path.join(library, 'agents', 'other.l5.yaml'),
      'spec_version: "0.1"\nagent: {id: other}\nknown_entities:\n  - name: ""\n  - name: kept\nrecent_sessions:\n  - date: "   "\n',
    );
    const warnings: string[] = [];
    new LibraryStore(library, { warn: (line) => warnings.push(line) }).snapshot();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(
      'left out 2 values that do not fit the L5 model (known_entities[0].name: expected text, found an empty text)',
    );

    fs.writeFileSync(
      path.join(library, 'agents', 'other.l5.yaml'),
      'spec_version: "0.1"\nagent: {id: other}\nrecent_sessions:\n  - date: "   "\n',
    );
    warnings.length = 0;
    new LibraryStore(library, { warn: (line) => warnings.push(line) }).snapshot();
    expect(warnings[0]).toContain(
      'left out a value that does not fit the L5 model (recent_sessions[0].date: expected text, found only spaces)',
    );
  });
});
