/**
 * One `--since` grammar on every command that has the flag, exports included (dates.ts
 * `parseSince`): `7d`, `2w`, `today`, `yesterday`, a day or an ISO time, and one refusal, in
 * the same words, for anything else.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { FIXTURE_LIBRARY, tempDir } from './helpers/fixtures.js';

/** 2026-05-01T12:00:00Z: the export's clock (SOURCE_DATE_EPOCH), so `7d` is 2026-04-24. */
const EPOCH = String(Date.UTC(2026, 4, 1, 12) / 1000);

/** A Codex home with one thread before the week and one inside it. */
function codexHome(): string {
  const home = path.join(tempDir('since-home-'), 'home');
  const codex = path.join(home, '.codex');
  fs.mkdirSync(path.join(codex, 'memories'), { recursive: true });
  fs.writeFileSync(
    path.join(codex, 'session_index.jsonl'),
    [
      JSON.stringify({ id: 'old', thread_name: 'Old harbour work', updated_at: '2026-04-20T10:00:00Z' }),
      JSON.stringify({ id: 'new', thread_name: 'New harbour work', updated_at: '2026-04-28T10:00:00Z' }),
    ].join('\n'),
  );
  // Distilled memory present, so the fallback memory (which would name every thread) is not built.
  fs.writeFileSync(path.join(codex, 'memories', 'MEMORY.md'), '# Task Group: harbour upkeep\n');
  return home;
}

/** The YAML `codex export` would write for `since`, by the frozen clock, in UTC. */
async function codexExport(home: string, since: string): Promise<{ code: number | null; yaml: string }> {
  const library = path.join(tempDir('since-lib-'), 'lib');
  const result = await runCli(
    ['codex', 'export', '--since', since, '--dry-run', '--print', '--json', '--library', library],
    { env: { HOME: home, SOURCE_DATE_EPOCH: EPOCH, TZ: 'UTC' } },
  );
  expect(result.stderr).toBe('');
  expect(fs.existsSync(library), 'a dry run creates nothing').toBe(false);
  return { code: result.code, yaml: (JSON.parse(result.stdout) as { yaml: string }).yaml };
}

/** The error line without the `(see \`bourdon <command> --help\`)` that names each command's help. */
function message(stderr: string): string {
  expect(stderr.trim().split('\n')).toHaveLength(1);
  return stderr.trim().replace(/ \(see `bourdon [a-z -]+ --help`\)$/, '');
}

describe('--since: one grammar, reads and exports alike', () => {
  it('codex export --since 7d cuts a week before the export clock, as the day it names does', async () => {
    const home = codexHome();
    const week = await codexExport(home, '7d');
    expect(week.code).toBe(0);
    expect(week.yaml).toContain('New harbour work');
    expect(week.yaml).not.toContain('Old harbour work');
    // The relative form is the day it names: the engine's own cut-off, unchanged.
    expect(week.yaml).toBe((await codexExport(home, '2026-04-24')).yaml);
    // A wider window keeps the older thread: the flag is applied, not ignored.
    expect((await codexExport(home, '2w')).yaml).toContain('Old harbour work');
  });

  it('the same bad value is the same one-line usage error on a read, an export and export-all', async () => {
    const library = path.join(tempDir('since-bad-'), 'lib');
    const home = codexHome();
    const env = { HOME: home };
    const [read, exported, all] = await Promise.all([
      runCli(['recent', '--since', 'last tuesday', '--library', FIXTURE_LIBRARY], { env }),
      runCli(['codex', 'export', '--since', 'last tuesday', '--library', library], { env }),
      runCli(['export-all', '--since', 'last tuesday', '--library', library], { env }),
    ]);
    for (const result of [read, exported, all]) {
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('--since');
    }
    expect(message(read.stderr)).toBe(
      'bourdon: Parsing --since: expected YYYY-MM-DD, an ISO datetime, today, yesterday, 7d (days ago) or 2w (weeks ago), not "last tuesday"',
    );
    expect(message(exported.stderr)).toBe(message(read.stderr));
    expect(message(all.stderr)).toBe(message(read.stderr));
    expect(fs.existsSync(library), 'a refused export creates nothing').toBe(false);

    const [readJson, exportJson] = await Promise.all([
      runCli(['recent', '--since', 'last tuesday', '--library', FIXTURE_LIBRARY, '--json'], { env }),
      runCli(['codex', 'export', '--since', 'last tuesday', '--library', library, '--json'], { env }),
    ]);
    expect(readJson.code).toBe(2);
    expect(exportJson.code).toBe(2);
    expect(JSON.parse(exportJson.stdout)).toEqual(JSON.parse(readJson.stdout));
  });
});
