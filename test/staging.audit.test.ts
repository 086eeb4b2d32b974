/**
 * Promoting and rejecting staged writes are audited before they happen (op `promote` / `reject`,
 * the reviewer as caller, the agent as namespace), as a rollback is: when the audit record cannot
 * be written nothing is promoted or deleted. The CLI commands audit through the same code.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createContext, type OperationContext } from '../src/core/context.js';
import { LibraryStore } from '../src/core/store/library.js';
import { readAudit } from '../src/core/trust/audit.js';
import { OPERATOR } from '../src/core/trust/caller.js';
import { callerFor } from '../src/core/trust/registry.js';
import { promoteStaged, rejectStaged, stageCommit } from '../src/core/writes/staging.js';
import { runCli } from './helpers/cli.js';
import { copyFixtureLibrary, tempDir } from './helpers/fixtures.js';

const MEMBER = callerFor('openclaw', { tier: 'quarantined', grants: [] });
const cleanup: string[] = [];
afterEach(() => {
  for (const dir of cleanup.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function setup(auditPath: string) {
  const library = copyFixtureLibrary();
  const home = tempDir('bourdon-staging-audit-');
  cleanup.push(library, home);
  const store = new LibraryStore(library, { warn: () => {} });
  const config = { home, registry: path.join(home, 'federation.yaml'), audit: auditPath, peers: path.join(home, 'p') };
  const ctx = (caller = OPERATOR): OperationContext =>
    createContext(store, { caller, warn: () => {}, env: {}, config });
  return { library, home, store, ctx };
}

async function stage(ctx: OperationContext, name: string) {
  const result = await stageCommit(ctx, { agent_id: 'openclaw', agent_type: 'other', entities: [{ name }] });
  expect(result).toMatchObject({ staged: true });
}

const stagedFile = (library: string) => path.join(library, 'staging', 'openclaw', 'openclaw.l5.yaml');

describe('promote and reject are audited', () => {
  it('each writes one record: who, which agent, how many writes from whom', async () => {
    const home = tempDir('bourdon-staging-audit-log-');
    cleanup.push(home);
    const audit = path.join(home, 'audit.jsonl');
    const { library, store, ctx } = setup(audit);
    await stage(ctx(MEMBER), 'Promoted Thing');
    await promoteStaged(ctx(), 'openclaw');
    await stage(ctx(MEMBER), 'Rejected Thing');
    await rejectStaged(store, 'openclaw', { auditPath: audit, actor: 'operator' });
    expect(fs.existsSync(stagedFile(library))).toBe(false);
    expect(
      readAudit(audit).map(({ agent, op, namespace, decision, detail }) => ({
        agent,
        op,
        namespace,
        decision,
        detail,
      })),
    ).toEqual([
      {
        agent: 'operator',
        op: 'promote',
        namespace: 'openclaw',
        decision: 'allow',
        detail: '1 staged write(s) from openclaw',
      },
      {
        agent: 'operator',
        op: 'reject',
        namespace: 'openclaw',
        decision: 'allow',
        detail: '1 staged write(s) from openclaw',
      },
    ]);
  });

  it('when the record cannot be written, nothing is promoted or deleted', async () => {
    const blocked = tempDir('bourdon-staging-audit-blocked-');
    cleanup.push(blocked);
    const audit = path.join(blocked, 'audit.jsonl');
    fs.mkdirSync(audit); // a folder where the log should be: appending fails
    const { library, store, ctx } = setup(audit);
    await stage(ctx(MEMBER), 'Held Thing');
    const staged = fs.readFileSync(stagedFile(library), 'utf8');
    const live = fs.readFileSync(path.join(library, 'agents', 'codex.l5.yaml'), 'utf8');
    await expect(promoteStaged(ctx(), 'openclaw')).rejects.toThrow(
      /^promote refused: the audit record could not be written .*; nothing was changed$/,
    );
    await expect(rejectStaged(store, 'openclaw', { auditPath: audit, actor: 'operator' })).rejects.toThrow(
      /^reject refused: the audit record could not be written .*; nothing was changed$/,
    );
    expect(fs.readFileSync(stagedFile(library), 'utf8')).toBe(staged);
    expect(fs.existsSync(path.join(library, 'agents', 'openclaw.l5.yaml'))).toBe(false);
    expect(fs.readFileSync(path.join(library, 'agents', 'codex.l5.yaml'), 'utf8')).toBe(live);
  });

  it('bourdon staging reject and promote record the operator in the audit log', async () => {
    const home = tempDir('bourdon-staging-audit-cli-');
    cleanup.push(home);
    const { library, ctx } = setup(path.join(home, 'audit.jsonl'));
    const env = { BOURDON_HOME: home };
    await stage(ctx(MEMBER), 'CLI Rejected');
    const reject = await runCli(['staging', 'reject', 'openclaw', '--library', library], { env });
    expect(reject.code, reject.stderr).toBe(0);
    await stage(ctx(MEMBER), 'CLI Promoted');
    const promote = await runCli(['staging', 'promote', 'openclaw', '--yes', '--library', library], { env });
    expect(promote.code, promote.stderr).toBe(0);
    const records = readAudit(path.join(home, 'audit.jsonl'));
    expect(records.map((r) => [r.agent, r.op, r.namespace])).toEqual([
      ['operator', 'reject', 'openclaw'],
      ['operator', 'promote', 'openclaw'],
    ]);
  });
});
