/**
 * `export_agents` names where the library lives (`generated_from`) only to a caller that may read
 * everything on this machine (issue 50, D20): a caller over HTTP from another address, capped at
 * team, gets '' instead of the absolute path; the local caller keeps the engine's answer.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LibraryStore } from '../src/core/store/library.js';
import { runHttpServer, type HttpServerHandle } from '../src/mcp/http.js';
import { createMcpServer } from '../src/mcp/server.js';
import { tempDir } from './helpers/fixtures.js';
import { callJson, httpClient } from './helpers/http.js';
import { callJson as callLinked, linkedClient } from './helpers/mcp.js';

const TOKEN = 'legacy-operator-token-0123456789abcdefghij';

let root: string;
let library: string;
let remote = true;
let handle: HttpServerHandle;
let client: Client;

beforeAll(async () => {
  root = tempDir('privacy-generated-from-');
  library = path.join(root, 'library');
  fs.mkdirSync(path.join(library, 'agents'), { recursive: true });
  fs.writeFileSync(
    path.join(library, 'agents', 'codex.l5.yaml'),
    "agent: {id: codex, type: code-assistant}\nrecent_sessions:\n  - {date: '2026-06-01', cwd: /w}\n",
  );
  const store = new LibraryStore(library, { warn: () => {} });
  handle = await runHttpServer(
    () => createMcpServer(store, { warn: () => {}, auditPath: path.join(root, 'a.jsonl') }),
    {
      port: 0,
      legacyToken: TOKEN,
      warn: () => {},
      isRemote: () => remote,
    },
  );
  client = await httpClient(handle.url, 'auto', TOKEN);
});

afterAll(async () => {
  await client?.close();
  await handle?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('export_agents and where the library lives', () => {
  it('a caller from another machine is not told the library’s path; its agents are listed as ever', async () => {
    remote = true;
    const envelope = (await callJson(client, 'export_agents', {})) as Record<string, unknown>;
    expect(envelope.generated_from).toBe('');
    expect(JSON.stringify(envelope)).not.toContain(root);
    expect((envelope.agents as { id: string }[]).map((agent) => agent.id)).toEqual(['codex']);
  });

  it('the operator on this machine (loopback HTTP, stdio) gets the agents folder, as the engine answers', async () => {
    remote = false;
    const envelope = (await callJson(client, 'export_agents', {})) as Record<string, unknown>;
    expect(envelope.generated_from).toBe(path.join(library, 'agents'));
    const local = await linkedClient(library);
    try {
      const stdio = (await callLinked(local.client, 'export_agents', {})) as Record<string, unknown>;
      expect(stdio.generated_from).toBe(path.join(library, 'agents'));
    } finally {
      await local.close();
    }
  });
});
