/**
 * A commit from a caller capped at team (issue 50, D19): rows its manifest's visibility_policy
 * makes private are neither matched, changed nor replaced, and a replace keeps the policy, so
 * the rows it keeps stay at the level the policy gave them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../src/core/context.js';
import { LibraryStore } from '../src/core/store/library.js';
import { parseYaml } from '../src/core/store/yaml.js';
import type { Caller } from '../src/core/trust/caller.js';
import { tempDir } from './helpers/fixtures.js';
import { commitToFederation } from './helpers/write-calls.js';

const MANIFEST = `spec_version: '0.1'
agent: {id: vault, type: code-assistant}
last_updated: '2026-06-01T10:00:00+00:00'
visibility_policy: {default: private, team_tags: [shared]}
known_entities:
  - {name: Payroll, summary: salary 200k}
  - {name: Roadmap, summary: next quarter, tags: [shared]}
recent_sessions: []
`;

const REMOTE: Caller = { agent_id: 'desk', tier: 'trusted', grants: [], ceiling: 'team' };

let root: string;
let file: string;

beforeAll(() => {
  root = tempDir('privacy-policy-writes-');
  fs.mkdirSync(path.join(root, 'agents'));
  file = path.join(root, 'agents', 'vault.l5.yaml');
  fs.writeFileSync(file, MANIFEST);
});

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const live = () =>
  parseYaml(fs.readFileSync(file, 'utf8')) as Record<string, unknown> & {
    known_entities: Record<string, unknown>[];
  };

describe('a capped writer and a manifest whose policy makes its unlabelled rows private', () => {
  it('merge: the private-by-policy row is not matched; the team-tagged one is', async () => {
    const store = new LibraryStore(root, { warn: () => {} });
    const ctx = createContext(store, { caller: REMOTE, warn: () => {} });
    const result = await commitToFederation(ctx, {
      agent_id: 'vault',
      entities: [
        { name: 'Payroll', summary: 'overwritten' },
        { name: 'Roadmap', summary: 'next year' },
      ],
    });
    // The new 'Payroll' row has no label either: it takes the policy's default (private), so the
    // writer counts only the team-tagged row it updated.
    expect(result).toMatchObject({ entities_added: 1, entities_updated: 1, total_entities: 1 });
    const payroll = live().known_entities.filter((row) => row.name === 'Payroll');
    expect(payroll[0]).toEqual({ name: 'Payroll', summary: 'salary 200k' });
  });

  it('replace: the rows it cannot see are kept, and so is the policy that hides them', async () => {
    const store = new LibraryStore(root, { warn: () => {} });
    const ctx = createContext(store, { caller: REMOTE, warn: () => {} });
    const result = await commitToFederation(ctx, {
      agent_id: 'vault',
      agent_type: 'code-assistant',
      mode: 'replace',
      entities: [{ name: 'Fresh', visibility: 'team' }],
    });
    expect(result).not.toHaveProperty('error');
    const doc = live();
    expect(doc.visibility_policy).toEqual({ default: 'private', team_tags: ['shared'] });
    expect(doc.known_entities.map((row) => row.name)).toEqual(expect.arrayContaining(['Fresh', 'Payroll']));
    expect(doc.known_entities.find((row) => row.name === 'Payroll')).toEqual({
      name: 'Payroll',
      summary: 'salary 200k',
    });
    // Read back, the kept row is still private: the capped writer's next read does not see it.
    const found = (await import('../src/core/operations/queries.js')).findEntityMatches(
      new LibraryStore(root, { warn: () => {} }).snapshot().agents,
      'Payroll',
      'team',
    );
    expect(found).toEqual([]);
  });
});
