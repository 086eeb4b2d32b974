/**
 * The audit log rotates by size: a bounded number of files, the current one never lost (only
 * renamed), and every reader — `readAudit`, `queryAudit`, `bourdon audit` — reads across the
 * rotations, oldest first.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { appendAudit, auditFiles, queryAudit, readAudit, type AuditRecord } from '../src/core/trust/audit.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const record = (n: number): AuditRecord => ({
  ts: `2026-06-05T10:00:${String(n % 60).padStart(2, '0')}.000Z`,
  agent: 'flooder',
  op: 'list_recent_work',
  namespace: '*',
  decision: 'allow',
  detail: `call ${n}`,
});

describe('audit rotation', () => {
  it('keeps at most keep+1 files, loses only the oldest rotated ones, and reads across them in order', async () => {
    const home = tempDir('bourdon-audit-rot-');
    dirs.push(home);
    const log = path.join(home, 'audit.jsonl');
    const rotation = { maxBytes: 2_000, keep: 3 };
    for (let n = 0; n < 400; n++) {
      appendAudit(log, record(n), rotation);
      // The newest record is always readable: rotation renames, it never drops the current file.
      expect(readAudit(log).at(-1)?.detail).toBe(`call ${n}`);
    }
    const files = auditFiles(log).filter((file) => fs.existsSync(file));
    expect(files.length).toBeLessThanOrEqual(rotation.keep + 1);
    expect(fs.readdirSync(home).sort()).toEqual(['audit.jsonl.1', 'audit.jsonl.2', 'audit.jsonl.3']);
    for (const file of files) expect(fs.statSync(file).size).toBeLessThan(rotation.maxBytes + 200);
    // What is kept is a contiguous run ending at the newest record, oldest first.
    const numbers = readAudit(log).map((r) => Number(r.detail!.slice(5)));
    expect(numbers.at(-1)).toBe(399);
    expect(numbers).toEqual(numbers.map((_, i) => numbers[0]! + i));
    expect(numbers.length).toBeGreaterThan(30);
    const newest = await queryAudit(log, { limit: 5 });
    expect(newest.records.map((r) => r.detail)).toEqual(['call 395', 'call 396', 'call 397', 'call 398', 'call 399']);
    expect(newest.matched).toBe(numbers.length);
  });

  it('bourdon audit reads the rotated files too', async () => {
    const home = tempDir('bourdon-audit-rot-');
    dirs.push(home);
    const log = path.join(home, 'audit.jsonl');
    fs.writeFileSync(`${log}.2`, JSON.stringify(record(1)) + '\n', { mode: 0o600 });
    fs.writeFileSync(`${log}.1`, JSON.stringify(record(2)) + '\n', { mode: 0o600 });
    fs.writeFileSync(log, JSON.stringify(record(3)) + '\n', { mode: 0o600 });
    const result = await runCli(['audit', '--json'], { env: { BOURDON_HOME: home } });
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as AuditRecord[]).map((r) => r.detail)).toEqual(['call 1', 'call 2', 'call 3']);
  });
});
