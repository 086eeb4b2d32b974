/**
 * Issue 14, "no private text or metadata out": the attack run against `serve --transport http`
 * off loopback, replayed through the real HTTP transport and a real MCP client. The caller is
 * the legacy operator token arriving from a non-loopback address, so it is trusted but capped
 * at team: it must neither read nor change nor detect private rows, and nothing it sends or
 * receives may carry a credential into a payload, the audit log or stderr.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../src/core/context.js';
import { LibraryStore } from '../src/core/store/library.js';
import { parseYaml } from '../src/core/store/yaml.js';
import type { Caller } from '../src/core/trust/caller.js';
import { commitToFederation } from './helpers/write-calls.js';
import { promoteStaged } from '../src/core/writes/staging.js';
import { runHttpServer, type HttpServerHandle } from '../src/mcp/http.js';
import { createMcpServer } from '../src/mcp/server.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';
import { callJson, httpClient } from './helpers/http.js';
import { callJson as callLinked, linkedClient } from './helpers/mcp.js';
import { at } from './helpers/items.js';

const TOKEN = 'legacy-operator-token-0123456789abcdefghij';
const SECRET_NOTE = 'rotate DB_PASSWORD=hunter2 before Friday';
const SECRET_ACTION = 'export OPENAI_API_KEY=sk-proj-Ab3dEfGhIjKlMnOpQrStUvWxYz0123456789';

const VAULT = `agent:
  id: vault
  type: code-assistant
last_updated: '2026-06-01T10:00:00+00:00'
known_entities:
  - {name: Zeta Private, type: person, summary: salary 200k, visibility: private}
  - {name: Team Thing, type: project, summary: team work, visibility: team}
  - {name: Public Thing, type: project, summary: public work}
recent_sessions:
  - {date: '2026-06-01', cwd: /vault, key_actions: [private payroll review], visibility: private}
  - {date: '2026-06-02', cwd: /work, key_actions: ['${SECRET_ACTION}'], project_focus: [Ops], visibility: team}
notes:
  - {date: '2026-06-01', text: private salary note, visibility: private}
  - {date: '2026-06-02', text: '${SECRET_NOTE}', project_focus: [Ops], visibility: team}
`;

/** Bad indentation on line 10, right after a private row: the parser's frame would quote it. */
const BROKEN = `agent:
  id: broken
  type: other
known_entities:
  - name: Payroll
    visibility: private
    summary: salary 123456 for the CFO
  - name: Other
    summary: fine
  bad: indentation
`;

let root: string;
let library: string;
let auditPath: string;
let handle: HttpServerHandle;
let client: Client;
const warnings: string[] = [];
const bodies: string[] = [];

async function call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const payload = await callJson(client, name, args);
  bodies.push(JSON.stringify(payload));
  return payload;
}

function liveDoc(agentId: string): Record<string, unknown> {
  return parseYaml(fs.readFileSync(path.join(library, 'agents', `${agentId}.l5.yaml`), 'utf8')) as Record<
    string,
    unknown
  >;
}

beforeAll(async () => {
  root = tempDir('bourdon-private-text-');
  library = path.join(root, 'library');
  fs.mkdirSync(path.join(library, 'agents'), { recursive: true });
  fs.writeFileSync(path.join(library, 'agents', 'vault.l5.yaml'), VAULT);
  fs.writeFileSync(path.join(library, 'agents', 'broken.l5.yaml'), BROKEN);
  auditPath = path.join(root, 'audit.jsonl');
  const store = new LibraryStore(library, { warn: () => {} });
  const warn = (message: string) => warnings.push(message);
  handle = await runHttpServer(() => createMcpServer(store, { warn, auditPath }), {
    port: 0,
    legacyToken: TOKEN,
    warn,
    // The attack came from another machine: its caller is capped at team.
    isRemote: () => true,
  });
  client = await httpClient(handle.url, 'auto', TOKEN);
});

afterAll(async () => {
  await client?.close();
  await handle?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('parse errors', () => {
  it('reach a remote caller as a short reason with a position, never the manifest’s lines', async () => {
    const envelope = await call('export_agents', {});
    const broken = (envelope.agents as { id: string; parse_error: string | null }[]).find((a) => a.id === 'broken');
    expect(broken?.parse_error).toMatch(/^[a-z][^\n|]* at line 10, column \d+$/);
    expect(broken?.parse_error).not.toMatch(/salary|Payroll|CFO|indentation$/);
  });

  it('show the same line-free reason in `bourdon agents`', async () => {
    const env = { BOURDON_LIBRARY: library, BOURDON_HOME: path.join(root, 'home') };
    for (const args of [['agents'], ['agents', '--export', '--json']]) {
      const result = await runCli(args, { env });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('broken');
      expect(result.stdout).not.toMatch(/salary|Payroll|CFO/);
      expect(result.stderr).not.toMatch(/salary|Payroll|CFO/);
    }
  });
});

describe('a remote write naming a private row', () => {
  it('lands as a row of its own: the private row keeps its visibility and summary', async () => {
    const answer = await call('commit_to_federation', {
      agent_id: 'vault',
      entities: [{ name: 'zeta private', visibility: 'team' }],
    });
    expect(answer).toMatchObject({ entities_added: 1, entities_updated: 0, total_entities: 3 });
    const zetas = (liveDoc('vault').known_entities as Record<string, unknown>[]).filter(
      (row) => String(row.name).toLowerCase() === 'zeta private',
    );
    expect(zetas).toEqual([
      { name: 'Zeta Private', type: 'person', summary: 'salary 200k', visibility: 'private' },
      { name: 'zeta private', visibility: 'team' },
    ]);
    const found = await call('find_entity', { name: 'zeta private', access_level: 'team' });
    expect(JSON.stringify(found)).not.toContain('salary');
  });

  it('answers exactly as for a name no row has: the counts reveal nothing', async () => {
    const hidden = await call('commit_to_federation', {
      agent_id: 'vault',
      sessions: [{ date: '2026-06-01', cwd: '/vault', visibility: 'team', key_actions: ['probe'] }],
      notes: [{ date: '2026-06-01', text: 'private salary note', visibility: 'team' }],
    });
    const fresh = await call('commit_to_federation', {
      agent_id: 'vault',
      sessions: [{ date: '2026-06-01', cwd: '/nowhere', visibility: 'team', key_actions: ['probe'] }],
      notes: [{ date: '2026-06-01', text: 'no such note', visibility: 'team' }],
    });
    const counts = (answer: Record<string, unknown>) => ({
      sessions_added: answer.sessions_added,
      sessions_updated: answer.sessions_updated,
      notes_added: answer.notes_added,
    });
    expect(counts(hidden)).toEqual({ sessions_added: 1, sessions_updated: 0, notes_added: 1 });
    expect(counts(fresh)).toEqual(counts(hidden));
    // Totals count what the caller may see: one more of each, private rows never included.
    expect((fresh.total_sessions as number) - (hidden.total_sessions as number)).toBe(1);
    expect(hidden.total_sessions).toBe(2);
    expect(hidden.total_notes).toBe(2);
    const doc = liveDoc('vault');
    const privateSession = (doc.recent_sessions as Record<string, unknown>[]).find((row) => row.cwd === '/vault');
    expect(privateSession).toMatchObject({ visibility: 'private', key_actions: ['private payroll review'] });
  });

  it('in replace mode replaces only what the caller can see: private rows are kept as they were', async () => {
    const answer = await call('commit_to_federation', {
      agent_id: 'vault',
      agent_type: 'code-assistant',
      mode: 'replace',
      entities: [{ name: 'Only Visible', visibility: 'team' }],
      notes: [{ date: '2026-06-02', text: SECRET_NOTE, project_focus: ['Ops'], visibility: 'team' }],
      sessions: [
        { date: '2026-06-02', cwd: '/work', key_actions: [SECRET_ACTION], project_focus: ['Ops'], visibility: 'team' },
      ],
    });
    expect(answer).toMatchObject({ total_entities: 1, total_sessions: 1, total_notes: 1 });
    const doc = liveDoc('vault');
    const names = (doc.known_entities as Record<string, unknown>[]).map((row) => row.name);
    expect(names).toEqual(['Zeta Private', 'Only Visible']);
    expect((doc.notes as Record<string, unknown>[]).map((row) => row.text)).toContain('private salary note');
  });

  it('is never rolled back over the private rows by a capped caller', async () => {
    const answer = await call('rollback_agent_memory', { agent_id: 'vault', version: 1 });
    expect(answer.error).toMatch(/needs a caller that may read them/);
    expect(liveDoc('vault').known_entities).toHaveLength(2);
  });
});

describe('version listings for a capped caller', () => {
  it('count only visible rows and carry no whole-file hash or size', async () => {
    const listed = await call('list_memory_versions', { agent_id: 'vault' });
    const versions = listed.versions as Record<string, unknown>[];
    expect(versions.length).toBeGreaterThanOrEqual(4);
    for (const version of versions) {
      expect(version.sha256).toBeNull();
      expect(version.bytes).toBeNull();
    }
    const newest = versions[0];
    expect(newest).toMatchObject({ current: true, entities: 1, sessions: 1, notes: 1 });
    const first = versions[versions.length - 1];
    // Version 1 is the file as written before any commit: 3 entities, 2 of them visible at team.
    expect(first).toMatchObject({ version: 1, entities: 2, sessions: 1, notes: 1 });
  });

  it('keep hashes, sizes and full counts for the operator on this machine', async () => {
    const local = await linkedClient(library);
    try {
      const listed = (await callLinked(local.client, 'list_memory_versions', { agent_id: 'vault' })) as {
        versions: Record<string, unknown>[];
      };
      const newest = at(listed.versions, 0);
      expect(newest.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(newest.bytes).toEqual(expect.any(Number));
      expect(newest).toMatchObject({ entities: 2, sessions: 2, notes: 2 });
    } finally {
      await local.close();
    }
  });
});

describe('redaction of environment-style secrets on every surface', () => {
  it('hides them in export_agents, list_notes, list_workstreams and explain_memory_change', async () => {
    const surfaces = [
      await call('export_agents', {}),
      await call('list_notes', { since: '2026-01-01', access_level: 'team' }),
      await call('list_workstreams', { since: '2026-01-01', access_level: 'team' }),
      await call('explain_memory_change', { agent_id: 'vault', version: 1 }),
    ];
    const text = JSON.stringify(surfaces);
    // export_agents keeps the engine's rule (a text naming a credential replaced whole); the
    // project's own surfaces keep the exports' rule: the value redacted, the sentence kept.
    expect(JSON.stringify(surfaces[0])).toContain('[redacted credential-like text]');
    expect(JSON.stringify(surfaces.slice(1))).toContain('rotate DB_PASSWORD=[redacted] before Friday');
    expect(text).not.toMatch(/hunter2|sk-proj-/);
  });
});

describe('audit and logs', () => {
  it('never write the legacy token or a bearer value passed as an argument', async () => {
    await call('list_memory_versions', { agent_id: TOKEN });
    await call('commit_to_federation', { agent_id: `Bearer ${TOKEN.toUpperCase()}` });
    const log = fs.readFileSync(auditPath, 'utf8');
    expect(log).toContain('[masked]');
    expect(log).not.toContain(TOKEN);
    expect(log).not.toContain(TOKEN.toUpperCase());
  });

  it('cap an invalid `since` echoed back, to the caller (the notice) and to stderr', async () => {
    const since = 'x'.repeat(100_000);
    warnings.length = 0;
    for (const name of ['list_recent_work', 'list_workstreams']) {
      const result = await client.callTool({ name, arguments: { since } });
      const notices = (result.content as { text: string }[]).slice(1).map((item) => item.text);
      expect(notices.some((text) => text.includes('is not a date'))).toBe(true);
      for (const text of notices) expect(text.length).toBeLessThan(400);
    }
    for (const line of warnings) expect(line.length).toBeLessThan(400);
  });

  it('no payload carried a private summary', () => {
    expect(bodies.join('\n')).not.toMatch(/salary 200k|private payroll review|salary 123456/);
  });
});

describe('promoting a quarantined member’s staged write', () => {
  it('never merges into a private row: the staged row lands beside it', async () => {
    const lib = tempDir('bourdon-promote-');
    try {
      fs.mkdirSync(path.join(lib, 'agents'));
      fs.writeFileSync(path.join(lib, 'agents', 'vault.l5.yaml'), VAULT);
      const store = new LibraryStore(lib, { warn: () => {} });
      const member: Caller = { agent_id: 'vault', tier: 'quarantined', grants: ['vault'], ceiling: 'team' };
      const staged = await commitToFederation(createContext(store, { caller: member, warn: () => {} }), {
        agent_id: 'vault',
        entities: [{ name: 'Zeta Private', visibility: 'public', summary: 'relabelled' }],
      });
      expect(staged.staged).toBe(true);
      const result = await promoteStaged(createContext(store, { warn: () => {} }), 'vault');
      expect(result.promoted[0]?.result).toMatchObject({ entities_added: 1, entities_updated: 0 });
      const doc = parseYaml(fs.readFileSync(path.join(lib, 'agents', 'vault.l5.yaml'), 'utf8')) as {
        known_entities: Record<string, unknown>[];
      };
      expect(doc.known_entities.filter((row) => row.name === 'Zeta Private')).toEqual([
        { name: 'Zeta Private', type: 'person', summary: 'salary 200k', visibility: 'private' },
        { name: 'Zeta Private', visibility: 'public', summary: 'relabelled' },
      ]);
    } finally {
      fs.rmSync(lib, { recursive: true, force: true });
    }
  });
});
