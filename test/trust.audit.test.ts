/**
 * The audit trail (spec §4): one JSON line per call; concurrent processes never interleave
 * within a line; a torn last line never breaks `bourdon audit`; the command's filters.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  appendAudit,
  auditRecord,
  parseAuditLine,
  queryAudit,
  readAudit,
  type AuditRecord,
} from '../src/core/trust/audit.js';
import { runCli } from './helpers/cli.js';
import { copyFixtureLibrary, REPO_ROOT, tempDir } from './helpers/fixtures.js';
import { callJson, linkedClient } from './helpers/mcp.js';
import { at } from './helpers/items.js';

let home: string;
let auditPath: string;

beforeEach(() => {
  home = tempDir('bourdon-audit-');
  auditPath = path.join(home, 'audit.jsonl');
});
afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

function record(agent: string, op: string, namespace: string, allowed: boolean, detail?: string): AuditRecord {
  return auditRecord(agent, op, namespace, allowed, detail);
}

describe('records', () => {
  it('have the spec keys in order, detail only when there is one', () => {
    appendAudit(auditPath, record('openclaw', 'find_entity', '*', true));
    appendAudit(auditPath, record('openclaw', 'query_agent_memory', 'codex', false, "namespace 'codex' not granted"));
    const lines = fs.readFileSync(auditPath, 'utf8').split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('');
    const records = lines.slice(0, 2).map((line) => JSON.parse(line) as Record<string, unknown>);
    const [allow, deny] = [at(records, 0), at(records, 1)];
    expect(Object.keys(allow)).toEqual(['ts', 'agent', 'op', 'namespace', 'decision']);
    expect(Object.keys(deny)).toEqual(['ts', 'agent', 'op', 'namespace', 'decision', 'detail']);
    expect(allow.ts).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(fs.statSync(auditPath).mode & 0o777).toBe(0o600);
  });

  it('mask token-shaped text and cap caller-supplied fields', () => {
    const token = 'bdn_' + 'ab'.repeat(24);
    const masked = record('openclaw', 'query_agent_memory', token, false, `namespace '${token}' not granted`);
    expect(JSON.stringify(masked)).not.toContain('abababab');
    expect(masked.namespace).toBe('bdn_[masked]');
    expect(record('x', 'list_recent_work', 'n'.repeat(5000), true).namespace.length).toBeLessThanOrEqual(200);
  });
});

describe('reading a damaged log', () => {
  it('skips a torn last line and keeps every whole record', () => {
    for (let i = 0; i < 3; i++) appendAudit(auditPath, record('a', 'list_agents', '*', true));
    fs.appendFileSync(auditPath, '{"ts":"2026-06-01T00:00:00.000Z","agent":"a","op":"find_ent');
    expect(readAudit(auditPath)).toHaveLength(3);
  });

  it('recovers the record appended after a torn line (the crash costs one record, not two)', () => {
    appendAudit(auditPath, record('a', 'list_agents', '*', true));
    fs.appendFileSync(auditPath, '{"ts":"2026-06-01T00:00:00.000Z","agent":"a","op":"find_ent');
    appendAudit(auditPath, record('b', 'find_entity', '*', true));
    const records = readAudit(auditPath);
    expect(records.map((r) => r.agent)).toEqual(['a', 'b']);
  });

  it('ignores blank lines, garbage and JSON that is not a record', () => {
    fs.writeFileSync(auditPath, '\n\nnot json\n[1,2]\n{"x":1}\n');
    appendAudit(auditPath, record('a', 'list_agents', '*', true));
    expect(readAudit(auditPath)).toHaveLength(1);
    expect(parseAuditLine('')).toBeNull();
    expect(readAudit(path.join(home, 'missing.jsonl'))).toEqual([]);
  });

  it('queries with filters and a limit that keeps the newest, oldest first', async () => {
    for (let i = 0; i < 10; i++)
      appendAudit(
        auditPath,
        record(i % 2 ? 'odd' : 'even', `op${i}`, '*', i % 3 !== 0, i % 3 === 0 ? 'no' : undefined),
      );
    const all = await queryAudit(auditPath);
    expect(all.records.map((r) => r.op)).toEqual([
      'op0',
      'op1',
      'op2',
      'op3',
      'op4',
      'op5',
      'op6',
      'op7',
      'op8',
      'op9',
    ]);
    expect((await queryAudit(auditPath, { limit: 3 })).records.map((r) => r.op)).toEqual(['op7', 'op8', 'op9']);
    expect((await queryAudit(auditPath, { denials: true })).records.map((r) => r.op)).toEqual([
      'op0',
      'op3',
      'op6',
      'op9',
    ]);
    expect((await queryAudit(auditPath, { agent: 'odd', denials: true })).records.map((r) => r.op)).toEqual([
      'op3',
      'op9',
    ]);
    expect(await queryAudit(auditPath, { agent: 'odd', limit: 0 })).toEqual({ records: [], matched: 5 });
    expect(await queryAudit(path.join(home, 'none.jsonl'))).toEqual({ records: [], matched: 0 });
  });
});

describe('an audit log that cannot be written', () => {
  it('never fails a read, and is reported on stderr once, not per call', async () => {
    fs.writeFileSync(path.join(home, 'not-a-dir'), '');
    const warnings: string[] = [];
    const library = copyFixtureLibrary();
    const linked = await linkedClient(library, {
      auditPath: path.join(home, 'not-a-dir', 'audit.jsonl'),
      warn: (m) => warnings.push(m),
    });
    try {
      for (let i = 0; i < 3; i++)
        expect(await callJson(linked.client, 'list_agents')).toMatchObject({ agents: expect.any(Array) });
    } finally {
      await linked.close();
      fs.rmSync(library, { recursive: true, force: true });
    }
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^audit log not written \(/);
  });
});

describe('concurrent writers', () => {
  it('never interleave within a line: four processes appending at once', async () => {
    const moduleUrl = pathToFileURL(path.join(REPO_ROOT, 'dist', 'core', 'trust', 'audit.js')).href;
    const perProcess = 400;
    const script = (agent: string) => `
      const { appendAudit, auditRecord } = await import(${JSON.stringify(moduleUrl)});
      for (let i = 0; i < ${perProcess}; i++) {
        appendAudit(${JSON.stringify(auditPath)}, auditRecord('${agent}', 'find_entity', 'n'.repeat(150) + i, i % 2 === 0, 'd'.repeat(150)));
      }
    `;
    const agents = ['w1', 'w2', 'w3', 'w4'];
    const codes = await Promise.all(
      agents.map(
        (agent) =>
          new Promise<number | null>((resolve, reject) => {
            const child = spawn(process.execPath, ['--input-type=module', '-e', script(agent)], {
              stdio: ['ignore', 'ignore', 'inherit'],
            });
            child.on('error', reject);
            child.on('close', resolve);
          }),
      ),
    );
    expect(codes).toEqual([0, 0, 0, 0]);
    const lines = fs.readFileSync(auditPath, 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(agents.length * perProcess);
    for (const line of lines) {
      const parsed = JSON.parse(line) as AuditRecord; // throws on any interleaving
      expect(agents).toContain(parsed.agent);
    }
    for (const agent of agents) {
      const mine = lines.map((line) => JSON.parse(line) as AuditRecord).filter((r) => r.agent === agent);
      expect(mine.map((r) => r.namespace.slice(150))).toEqual(Array.from({ length: perProcess }, (_, i) => String(i)));
    }
  });
});

describe('bourdon audit', () => {
  const env = () => ({ BOURDON_HOME: home });

  beforeEach(() => {
    appendAudit(auditPath, record('openclaw', 'list_agents', '*', true));
    appendAudit(auditPath, record('openclaw', 'query_agent_memory', 'codex', false, "namespace 'codex' not granted"));
    appendAudit(auditPath, record('laptop', 'find_entity', '*', true));
    appendAudit(
      auditPath,
      record('openclaw', 'get_cross_agent_summary', '*', false, "tier 'quarantined' may not call this tool"),
    );
    fs.appendFileSync(auditPath, '{"ts":"2026-06-01T00:00:00.000Z","agent":"openc'); // torn last line
  });

  it('reads a log with a torn last line: a table, exit 0, nothing on stderr', async () => {
    const result = await runCli(['audit'], { env: env() });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^TIME\s+AGENT\s+OP\s+NAMESPACE\s+DECISION\s+DETAIL$/);
    expect(lines).toHaveLength(5);
    // Newest first, as the review page lists it; --oldest-first for the log's order.
    expect(lines[1]).toMatch(/get_cross_agent_summary/);
    expect(lines[4]).toMatch(/list_agents/);
    expect(lines[3]).toContain("namespace 'codex' not granted");
    const oldest = (await runCli(['audit', '--oldest-first'], { env: env() })).stdout.trim().split('\n');
    expect(oldest.slice(1)).toEqual(lines.slice(1).reverse());
  });

  it('--json prints the records as an array; --denials, --agent and --limit filter', async () => {
    const all = await runCli(['audit', '--json'], { env: env() });
    expect(all.code).toBe(0);
    expect((JSON.parse(all.stdout) as AuditRecord[]).map((r) => r.op)).toEqual([
      'list_agents',
      'query_agent_memory',
      'find_entity',
      'get_cross_agent_summary',
    ]);
    const denials = JSON.parse(
      (await runCli(['audit', '--json', '--denials', '--agent', 'openclaw'], { env: env() })).stdout,
    ) as AuditRecord[];
    expect(denials.map((r) => r.op)).toEqual(['query_agent_memory', 'get_cross_agent_summary']);
    const newest = JSON.parse(
      (await runCli(['audit', '--json', '--limit', '1'], { env: env() })).stdout,
    ) as AuditRecord[];
    expect(newest.map((r) => r.op)).toEqual(['get_cross_agent_summary']);
  });

  it('--export prints JSON lines, one record each, and --export --json one array', async () => {
    const lines = await runCli(['audit', '--export', '--agent', 'laptop'], { env: env() });
    expect(lines.code).toBe(0);
    expect(
      lines.stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as AuditRecord).op),
    ).toEqual(['find_entity']);
    const array = await runCli(['audit', '--export', '--json', '--denials'], { env: env() });
    expect((JSON.parse(array.stdout) as AuditRecord[]).length).toBe(2);
  });

  it('says so when nothing matches, and when there is no log yet', async () => {
    expect((await runCli(['audit', '--agent', 'nobody'], { env: env() })).stdout.trim()).toBe(
      'No audit records match.',
    );
    fs.rmSync(auditPath);
    const none = await runCli(['audit', '--json'], { env: env() });
    expect(none.code).toBe(0);
    expect(JSON.parse(none.stdout)).toEqual([]);
  });

  it('shows caller-supplied control characters escaped, never raw', async () => {
    appendAudit(auditPath, record('openclaw', 'query_agent_memory', 'x\u001b[2Jy', false, 'no'));
    const result = await runCli(['audit', '--limit', '1'], { env: env() });
    expect(result.stdout).not.toContain('\u001b');
    expect(result.stdout).toContain('x\\u001b[2Jy');
  });

  it('refuses a bad --limit as a usage error', async () => {
    const result = await runCli(['audit', '--limit', '-1'], { env: env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^bourdon: /);
  });
});
