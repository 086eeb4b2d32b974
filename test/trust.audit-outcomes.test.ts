/**
 * Issue 41: the audit log says what happened. Every write and every refusal leaves one line
 * with its outcome — allow, deny, or fail with the reason — over MCP and from the CLI's write
 * commands (commit, note add, sync push, sync pull), and the review page shows a failure as
 * one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readAudit, type AuditRecord } from '../src/core/trust/audit.js';
import { auditView } from '../src/ui/views/audit.js';
import { createContext } from '../src/core/context.js';
import { LibraryStore } from '../src/core/store/library.js';
import { OPERATOR } from '../src/core/trust/caller.js';
import { runCli } from './helpers/cli.js';
import { copyFixtureLibrary, tempDir } from './helpers/fixtures.js';
import { foreignLock } from './helpers/foreign-lock.js';
import { at } from './helpers/items.js';
import { callJson, linkedClient } from './helpers/mcp.js';
import { bareRemote, makeMachine, simpleManifest } from './helpers/sync.js';

let home: string;
let auditPath: string;

beforeEach(() => {
  home = tempDir('bourdon-audit-outcomes-');
  auditPath = path.join(home, 'audit.jsonl');
});
afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

const lines = (records: AuditRecord[]) => records.map(({ op, namespace, decision }) => ({ op, namespace, decision }));

describe('over MCP', () => {
  it('a failed call is logged as fail with its reason, once; a good one as allow', async () => {
    const library = copyFixtureLibrary();
    const linked = await linkedClient(library, { auditPath });
    try {
      const bad = (await callJson(linked.client, 'commit_to_federation', {
        agent_id: 'Bad Id!',
        entities: [{ name: 'X' }],
      })) as { error?: string };
      expect(bad.error).toBeTruthy();
      const traversal = (await callJson(linked.client, 'list_memory_versions', { agent_id: '../etc' })) as {
        error?: string;
      };
      expect(traversal.error).toBeTruthy();
      const agent = fs.readdirSync(path.join(library, 'agents'))[0]!.replace(/\.l5\.yaml$/, '');
      const rollback = (await callJson(linked.client, 'rollback_agent_memory', {
        agent_id: agent,
        version: 99,
      })) as { error?: string };
      expect(rollback.error).toMatch(/99/);
      await callJson(linked.client, 'list_agents');
    } finally {
      await linked.close();
    }
    const records = readAudit(auditPath);
    expect(lines(records)).toEqual([
      { op: 'commit_to_federation', namespace: 'Bad Id!', decision: 'fail' },
      { op: 'list_memory_versions', namespace: '../etc', decision: 'fail' },
      { op: 'rollback_agent_memory', namespace: expect.any(String), decision: 'fail' },
      { op: 'list_agents', namespace: '*', decision: 'allow' },
    ]);
    for (const record of records.slice(0, 3)) expect(record.detail, JSON.stringify(record)).toBeTruthy();
    expect(at(records, 2).detail).toMatch(/99/);
    expect(at(records, 3).detail).toBeUndefined();

    // The review page shows them as failed, not allowed.
    const store = new LibraryStore(library, { warn: () => {} });
    const ctx = createContext(store, { caller: OPERATOR, warn: () => {}, env: {} });
    const page = await auditView({ ctx, params: new URLSearchParams(), now: new Date(), csrf: 'unused', auditPath });
    const body = String(page.body);
    expect(body.match(/class="badge warn"\s*>fail</g) ?? []).toHaveLength(3);
    expect(body.match(/class="badge ok"\s*>allow</g) ?? []).toHaveLength(1);
  });
});

describe('from the CLI', () => {
  it('commit and note add leave one line each, with the outcome; a refused commit says why', async () => {
    const library = copyFixtureLibrary();
    const env = { BOURDON_AUDIT_PATH: auditPath, BOURDON_HOME: home };
    const input = path.join(home, 'commit.json');
    fs.writeFileSync(input, JSON.stringify({ entities: [{ name: 'Audited', type: 'concept' }] }));
    const commit = await runCli(
      ['commit', 'audited', '--agent-type', 'code-assistant', '--file', input, '--library', library],
      {
        env,
      },
    );
    expect(commit.code, commit.stderr).toBe(0);
    const note = await runCli(['note', 'add', 'audited', 'a note', '--library', library], { env });
    expect(note.code, note.stderr).toBe(0);
    const refused = await runCli(['commit', 'Bad Id!', '--file', input, '--library', library], { env });
    expect(refused.code).not.toBe(0);
    const records = readAudit(auditPath);
    expect(lines(records)).toEqual([
      { op: 'commit_to_federation', namespace: 'audited', decision: 'allow' },
      { op: 'note add', namespace: 'audited', decision: 'allow' },
      { op: 'commit_to_federation', namespace: 'Bad Id!', decision: 'fail' },
    ]);
    expect(at(records, 0).detail).toMatch(/^version \d+$/);
    expect(at(records, 2).detail).toBeTruthy();
    expect(records.every((record) => record.agent === 'operator')).toBe(true);
  });

  it('a rollback keeps its own trail: audited, then busy (a fail line follows), then done', async () => {
    const library = copyFixtureLibrary();
    const env = { BOURDON_AUDIT_PATH: auditPath, BOURDON_HOME: home, BOURDON_LOCK_WAIT: '0' };
    const agent = 'codex';
    const note = await runCli(['note', 'add', agent, 'a second version', '--library', library], { env });
    expect(note.code, note.stderr).toBe(0);
    const rollback = (version: string) => runCli(['rollback', agent, version, '--yes', '--library', library], { env });
    // Refused before anything is asked of the library (the prompt needs the version): no line.
    expect((await rollback('99')).code).toBe(4);
    // Another writer holds the library: the rollback was audited (allow), then could not happen.
    const release = foreignLock(library, { host: 'elsewhere' });
    expect((await rollback('1')).code).toBe(8);
    release();
    expect((await rollback('1')).code).toBe(0);
    const records = readAudit(auditPath).filter((record) => record.op === 'rollback_agent_memory');
    expect(records.map(({ decision, detail }) => ({ decision, detail }))).toEqual([
      { decision: 'allow', detail: 'restore version 1' },
      { decision: 'fail', detail: expect.stringMatching(/^busy: the library is busy: pid 1 on elsewhere/) },
      { decision: 'allow', detail: 'restore version 1' },
    ]);
  });

  it('sync push and sync pull leave one line each; a refused push says why', async () => {
    const remote = bareRemote();
    const laptop = makeMachine('laptop');
    const desk = makeMachine('desk');
    laptop.writeManifest('codex', simpleManifest('codex', 'Orbit'));
    const audit = { BOURDON_AUDIT_PATH: auditPath };
    for (const machine of [laptop, desk]) expect((await machine.run(['sync', 'init', remote], audit)).code).toBe(0);
    expect((await laptop.run(['sync', 'push'], audit)).code).toBe(0);
    expect((await desk.run(['sync', 'pull'], audit)).code).toBe(0);
    const twin = makeMachine('laptop');
    twin.writeManifest('cursor', simpleManifest('cursor', 'Twin'));
    expect((await twin.run(['sync', 'init', remote], audit)).code).toBe(0);
    expect((await twin.run(['sync', 'push'], audit)).code).not.toBe(0);
    const records = readAudit(auditPath);
    expect(lines(records)).toEqual([
      { op: 'sync push', namespace: '*', decision: 'allow' },
      { op: 'sync pull', namespace: '*', decision: 'allow' },
      { op: 'sync push', namespace: '*', decision: 'fail' },
    ]);
    expect(at(records, 0).detail).toMatch(/published 1 agent as laptop at public/);
    expect(at(records, 1).detail).toMatch(/1 machine/);
    expect(at(records, 2).detail).toMatch(/BOURDON_LOCAL_NAME/);
  });
});
