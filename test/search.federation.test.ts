/**
 * search_memory across machines, real servers on loopback ports: A asks B (a Bourdon with
 * search_memory) and merges its results with provenance; the engine stand-in E has only
 * find_entity, so it is asked that for the words as a name; C is dead and said so. A peer only
 * ever gets the level this caller reads at, and a quarantined caller never fans out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LibraryStore } from '../src/core/store/library.js';
import type { PeerConfig } from '../src/core/federation/peers-config.js';
import { runHttpServer, type HttpServerHandle } from '../src/mcp/http.js';
import { McpPeerFanout } from '../src/mcp/peer-client.js';
import { createMcpServer } from '../src/mcp/server.js';
import { standInServer } from './helpers/peer-stand-in.js';
import { callOverHttp, deadPort } from './helpers/http.js';
import { libraryOf } from './helpers/fixtures.js';

const TOKEN = 'search-federation-token';
const silent = () => {};

type Result = { kind: string; name?: string; agent?: string; agents?: string[]; key_actions?: string[] };

describe('search_memory across peers', () => {
  const handles: HttpServerHandle[] = [];
  const fanouts: McpPeerFanout[] = [];
  const engineAsked: unknown[] = [];
  let a: HttpServerHandle;

  beforeAll(async () => {
    const libA = libraryOf({
      codex: 'known_entities:\n  - {name: Tidewater, type: project, summary: Harbour scheduling app.}\n',
    });
    const libB = libraryOf({
      cursor:
        "known_entities:\n  - {name: tidewater, type: project, summary: The laptop's harbour app.}\n  - {name: Hidden harbour, visibility: private, summary: tidewater secrets}\nrecent_sessions:\n  - {date: '2026-06-03', cwd: /b, project_focus: [Tidewater], key_actions: [Fixed the tidewater berth import]}\n",
    });
    const storeB = new LibraryStore(libB, { warn: silent });
    const b = await runHttpServer(() => createMcpServer(storeB, { warn: silent, auditPath: null }), {
      port: 0,
      legacyToken: TOKEN,
      warn: silent,
    });
    // The engine: find_entity only, answering an exact name as the engine does.
    const engine = () =>
      standInServer('engine', {
        find_entity: () => {
          engineAsked.push('find_entity');
          return {
            name: 'tidewater',
            access_level: 'public',
            include_private: false,
            matches: [{ name: 'Tidewater', agents: ['claude-code'], types: ['project'], summaries: {}, tags: [] }],
          };
        },
      });
    const e = await runHttpServer(engine, { port: 0, allowUnauthenticated: true, warn: silent });
    handles.push(b, e);
    const env = { BOURDON_PEER_TOKEN_S: TOKEN };
    const peers: PeerConfig[] = [
      { name: 'b', url: b.url, token_env: 'BOURDON_PEER_TOKEN_S' },
      { name: 'c', url: `http://127.0.0.1:${await deadPort()}/mcp`, token_env: 'BOURDON_PEER_TOKEN_S' },
      { name: 'e', url: e.url, token_env: 'BOURDON_PEER_TOKEN_S' },
    ];
    const fanout = new McpPeerFanout(peers, env, 30_000);
    fanouts.push(fanout);
    const storeA = new LibraryStore(libA, { warn: silent });
    a = await runHttpServer(() => createMcpServer(storeA, { warn: silent, auditPath: null, peers: fanout }), {
      port: 0,
      legacyToken: TOKEN,
      warn: silent,
    });
    handles.push(a);
  });

  afterAll(async () => {
    await Promise.all(fanouts.map((fanout) => fanout.close()));
    await Promise.all(handles.map((handle) => handle.close()));
  });

  it('merges a search peer’s results and an engine’s find_entity matches, with provenance, and names the dead peer', async () => {
    const payload = await callOverHttp(a.url, TOKEN, 'search_memory', { query: 'tidewater', access_level: 'team' });
    const results = payload.results as Result[];
    const entity = results.find((result) => result.kind === 'entity' && result.name === 'Tidewater')!;
    expect(entity.agents).toEqual(['codex', 'peer:b:cursor', 'peer:e:claude-code']);
    const session = results.find((result) => result.kind === 'session')!;
    expect(session).toMatchObject({ agent: 'peer:b:cursor', key_actions: ['Fixed the tidewater berth import'] });
    expect(engineAsked.length).toBeGreaterThan(0);
    const missing = payload.peers_unreachable as { peer: string }[];
    expect(missing.map((peer) => peer.peer)).toEqual(['c']);
    // B was asked at team: its private row never came back.
    expect(results.some((result) => result.name === 'Hidden harbour')).toBe(false);
  });

  it('with --agent naming a peer’s agent, keeps only that agent’s rows', async () => {
    const payload = await callOverHttp(a.url, TOKEN, 'search_memory', {
      query: 'tidewater',
      agent: 'peer:b:cursor',
      access_level: 'team',
    });
    const results = payload.results as Result[];
    expect(results.length).toBeGreaterThan(0);
    for (const result of results) expect(result.agents ?? [result.agent]).toContain('peer:b:cursor');
  });
});
