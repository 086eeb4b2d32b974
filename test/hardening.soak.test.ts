/**
 * A short, bounded soak (bench/soak.js for 8 s): the real HTTP server on loopback under mixed
 * reads and writes from several MCP clients (both protocol eras), a quarantined member's staged
 * writes and concurrent `bourdon commit` processes. Zero failed requests, zero lost writes (every
 * acknowledged row is on disk afterwards, histories whole), and server memory that does not run
 * away. In 8 s the heap is still warming up (RSS rises ~30–40 MB before the first major
 * collections), so the bound here is coarse — growth under 96 MB, peak under 512 MB; the trend
 * is judged on the 60 s run, whose figures are in docs/reliability.md (`npm run soak`).
 * Needs the built dist/ (`npx tsc -p tsconfig.build.json`).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/fixtures.js';

const run = promisify(execFile);

interface SoakReport {
  requests: number;
  failed: number;
  failures: string[];
  problems: string[];
  ops: Record<string, { count: number; failures: number }>;
  writes: { http_commits: number; cli_commits: number; staged: number; rows_checked: number; lost: number };
  memory: { growth_mb: number; peak_mb: number } | null;
  max_rss_growth_mb: number;
}

it('8 s of mixed load: no failed request, no lost write, bounded server memory', async () => {
  let stdout: string;
  try {
    ({ stdout } = await run(
      process.execPath,
      [
        path.join(REPO_ROOT, 'bench', 'soak.js'),
        '--seconds',
        '8',
        '--clients',
        '3',
        '--agents',
        '5',
        '--max-rss-growth-mb',
        '96',
        '--json',
      ],
      {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
        maxBuffer: 16 * 1024 * 1024,
        timeout: 50_000,
      },
    ));
  } catch (error) {
    // Exit 1 still prints the report: show it.
    const { stdout: out = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`soak failed: ${stderr}\n${out}`, { cause: error });
  }
  const report = JSON.parse(stdout) as SoakReport;
  expect(report.failures).toEqual([]);
  expect(report.problems).toEqual([]);
  expect(report.failed).toBe(0);
  expect(report.writes.lost).toBe(0);
  // It really was load, of every kind. How much of it a run gets through is a figure for
  // bench/ (npm run soak), not a floor here: a busy machine does less in the same seconds.
  expect(report.requests).toBeGreaterThan(0);
  expect(report.writes.http_commits).toBeGreaterThan(0);
  expect(report.writes.cli_commits).toBeGreaterThan(0);
  expect(report.writes.staged).toBeGreaterThan(0);
  expect(report.writes.rows_checked).toBe(
    report.writes.http_commits + report.writes.cli_commits + report.writes.staged,
  );
  for (const op of [
    'find_entity',
    'commit_to_federation',
    'list_recent_work',
    'export_agents',
    'resource:agent-memory',
    'cli:commit',
  ]) {
    expect(report.ops[op]?.count ?? 0, op).toBeGreaterThan(0);
  }
  if (report.memory) {
    expect(report.memory.growth_mb).toBeLessThan(report.max_rss_growth_mb);
    expect(report.memory.peak_mb).toBeLessThan(512);
  }
}, 60_000);
