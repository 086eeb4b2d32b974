/**
 * The export write is one call into core (core/writes/export-write.ts `writeExport`): a live
 * export is a new version under the gate, audited first, with other writers' rows kept on top;
 * an export that changes nothing writes nothing; a staged one goes to staging for review; a
 * failed one leaves its audit line. The participants' own tests drive it through the runner.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers/fixtures.js';
import { createContext } from '../src/core/context.js';
import { LibraryStore } from '../src/core/store/library.js';
import { configPaths } from '../src/core/store/config.js';
import { readAudit } from '../src/core/trust/audit.js';
import { invoke } from '../src/core/operations/invoke.js';
import { commitToFederationOperation, rollbackAgentMemoryOperation } from '../src/core/operations/write-operations.js';
import { auditExportFailure, writeExport, type ExportWriteInput } from '../src/core/writes/export-write.js';
import { readHistory } from '../src/core/writes/history.js';

function setup() {
  const root = tempDir('corewrite-export-');
  fs.mkdirSync(path.join(root, 'library', 'agents'), { recursive: true });
  const store = new LibraryStore(path.join(root, 'library'), { warn: () => {} });
  const config = configPaths({ BOURDON_HOME: path.join(root, 'home') });
  const ctx = createContext(store, { warn: () => {}, env: {}, config });
  const auditPath = config.audit;
  const request = (names: string[], stage = false): ExportWriteInput => ({
    agentId: 'cursor',
    actor: 'participant:cursor',
    manifest: {
      spec_version: '0.1',
      agent: { id: 'cursor', type: 'other' },
      last_updated: '2026-05-01T12:00:00Z',
      known_entities: names.map((name) => ({ name, type: 'topic', summary: '' })),
      recent_sessions: [],
    },
    auditPath,
    detail: `${names.length} entities at team`,
    stage,
  });
  const names = (file: string) =>
    ((yaml.load(fs.readFileSync(file, 'utf8')) as { known_entities: { name: string }[] }).known_entities ?? []).map(
      (entity) => entity.name,
    );
  return { store, ctx, auditPath, request, names };
}

describe('writeExport: one call writes an export into the library', () => {
  it('writes a version (op export, the actor), audited first; the same export again writes nothing', async () => {
    const { store, ctx, auditPath, request, names } = setup();
    const first = await writeExport(ctx, request(['Alpha']));
    expect(first).toEqual({
      path: path.join(store.paths.agents, 'cursor.l5.yaml'),
      version: 1,
      written: true,
      staged: false,
      kept: { entities: 0, sessions: 0, notes: 0 },
    });
    expect(names(first.path)).toEqual(['Alpha']);
    const [record] = readHistory(store.paths, 'cursor').records;
    expect(record).toMatchObject({ version: 1, op: 'export', actor: 'participant:cursor' });
    expect(readAudit(auditPath)).toMatchObject([
      {
        agent: 'participant:cursor',
        op: 'export',
        namespace: 'cursor',
        decision: 'allow',
        detail: '1 entities at team',
      },
    ]);

    const again = await writeExport(ctx, {
      ...request(['Alpha']),
      manifest: { ...request(['Alpha']).manifest, last_updated: '2026-05-02T00:00:00Z' },
    });
    expect(again).toMatchObject({ version: 1, written: false, staged: false });
    expect(readHistory(store.paths, 'cursor').records).toHaveLength(1);
    expect(readAudit(auditPath)).toHaveLength(1);
  });

  it("keeps another writer's row on top of a fresh export, drops a row only its previous export wrote; rollback undoes it", async () => {
    const { ctx, request, names } = setup();
    await writeExport(ctx, request(['Old row']));
    await invoke(commitToFederationOperation, ctx, { agent_id: 'cursor', entities: [{ name: 'Committed' }] });
    const fresh = await writeExport(ctx, request(['New row']));
    expect(fresh).toMatchObject({ version: 3, written: true, kept: { entities: 1, sessions: 0, notes: 0 } });
    expect(names(fresh.path).sort()).toEqual(['Committed', 'New row']);
    // A version like any other: rolled back, the first export's rows are live again.
    const rolledBack = await invoke(rollbackAgentMemoryOperation, ctx, { agent_id: 'cursor', version: 1 });
    expect(rolledBack).toMatchObject({ version: 4 });
    expect(names(fresh.path)).toEqual(['Old row']);
  });

  it('stages for review when asked: the staged file, no version, an audit line with op stage', async () => {
    const { store, ctx, auditPath, request, names } = setup();
    const staged = await writeExport(ctx, request(['Review me'], true));
    expect(staged).toMatchObject({ version: null, written: true, staged: true });
    expect(staged.path).toBe(path.join(store.paths.root, 'staging', 'cursor', 'cursor.l5.yaml'));
    expect(names(staged.path)).toEqual(['Review me']);
    expect(fs.existsSync(path.join(store.paths.agents, 'cursor.l5.yaml'))).toBe(false);
    expect(readAudit(auditPath)).toMatchObject([{ op: 'stage', namespace: 'cursor', decision: 'allow' }]);
    expect(await writeExport(ctx, request(['Review me'], true))).toMatchObject({ written: false, staged: true });
  });

  it('refuses to write without its audit line, and a failed export leaves one with its code', async () => {
    const { store, ctx, request } = setup();
    fs.writeFileSync(path.join(store.paths.root, 'not-a-dir'), '');
    const unwritable = { ...request(['Alpha']), auditPath: path.join(store.paths.root, 'not-a-dir', 'audit.jsonl') };
    await expect(writeExport(ctx, unwritable)).rejects.toThrow(
      /^export refused: the audit record could not be written/,
    );
    expect(fs.existsSync(path.join(store.paths.agents, 'cursor.l5.yaml'))).toBe(false);
    const auditPath = path.join(store.paths.root, 'failures.jsonl');
    auditExportFailure(
      { agentId: 'cursor', actor: 'participant:cursor', auditPath, stage: false },
      'unavailable',
      'no instance',
    );
    expect(readAudit(auditPath)).toMatchObject([
      { agent: 'participant:cursor', op: 'export', namespace: 'cursor', detail: 'unavailable: no instance' },
    ]);
  });
});
