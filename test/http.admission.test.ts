// Fair admission (src/mcp/http/admission.ts), driven without a clock: calls enter, leave and
// step aside in a chosen order, and the test reads which calls were admitted, in what order.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { FederationRegistry } from '../src/core/trust/registry.js';
import { runHttpServer, type HttpServerHandle } from '../src/mcp/http.js';
import { tempDir } from './helpers/fixtures.js';
import { mcpHeaders } from './helpers/http.js';
import { FairAdmission, peersAwayFromSlot, runAdmitted, type AdmissionTicket } from '../src/mcp/http/admission.js';
import type { PeerFanout } from '../src/core/peers.js';
import { at } from './helpers/items.js';

/** Lets every settled promise's callbacks run (event-loop order only, no time). */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Enters calls and records the order in which they are admitted. */
function driver(slots: number) {
  const admission = new FairAdmission(slots);
  const admitted: string[] = [];
  const tickets = new Map<string, AdmissionTicket>();
  const enter = (member: string, call: string) => {
    const ticket = admission.enter(member);
    tickets.set(call, ticket);
    void ticket.ready.then(() => admitted.push(call));
    return ticket;
  };
  const leave = async (call: string) => {
    tickets.get(call)!.leave();
    await flush();
  };
  return { admission, admitted, enter, leave };
}

describe('fair admission', () => {
  it('admits up to its slots at once; the next call waits until one leaves', async () => {
    const { admission, admitted, enter, leave } = driver(2);
    enter('a', 'a1');
    enter('b', 'b1');
    enter('c', 'c1');
    await flush();
    expect(admitted).toEqual(['a1', 'b1']);
    expect(admission.load()).toEqual({ inside: 2, waiting: 1 });
    await leave('b1');
    expect(admitted).toEqual(['a1', 'b1', 'c1']);
    expect(admission.load()).toEqual({ inside: 2, waiting: 0 });
  });

  it('serves waiting members in turn, each member’s calls oldest first', async () => {
    const { admitted, enter, leave } = driver(1);
    enter('x', 'x1'); // holds the slot
    for (const call of ['a1', 'a2', 'a3']) enter('a', call);
    enter('b', 'b1');
    enter('c', 'c1');
    enter('b', 'b2');
    await flush();
    for (const call of ['x1', 'a1', 'b1', 'c1', 'a2', 'b2']) await leave(call);
    expect(admitted).toEqual(['x1', 'a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
  });

  it('a member flooding the queue delays another member by one call, not by its backlog', async () => {
    const { admitted, enter, leave } = driver(1);
    enter('flood', 'f0');
    for (let i = 1; i <= 20; i++) enter('flood', `f${i}`);
    enter('quiet', 'q1');
    await flush();
    await leave('f0');
    await leave('f1');
    expect(admitted).toEqual(['f0', 'f1', 'q1']);
  });

  it('a call admitted when a slot frees runs on a later turn, after what was already pending', async () => {
    const admission = new FairAdmission(1);
    const order: string[] = [];
    const first = admission.enter('a');
    const second = admission.enter('b');
    void second.ready.then(() => order.push('admitted'));
    await flush();
    setImmediate(() => order.push('pending step'));
    first.leave();
    await second.ready;
    expect(order).toEqual(['pending step', 'admitted']);
    second.leave();
  });

  it('a call that gives up while waiting is skipped and takes no slot', async () => {
    const { admission, admitted, enter, leave } = driver(1);
    enter('a', 'a1');
    enter('b', 'b1');
    enter('c', 'c1');
    await flush();
    await leave('b1'); // gives up before its turn
    expect(admission.load()).toEqual({ inside: 1, waiting: 1 });
    await leave('a1');
    expect(admitted).toEqual(['a1', 'c1']);
    await leave('c1');
    await leave('c1'); // idempotent
    expect(admission.load()).toEqual({ inside: 0, waiting: 0 });
  });

  it('a call awaiting its peers gives its slot to a waiting call, and is back first when they answer', async () => {
    const { admission, admitted, enter, leave } = driver(1);
    const holder = enter('fed', 'fed1');
    enter('local', 'l1');
    enter('local2', 'l2');
    await flush();
    let answerPeers!: (value: string) => void;
    const peerWait = holder.stepAside(() => new Promise<string>((resolve) => (answerPeers = resolve)));
    await flush();
    expect(admitted).toEqual(['fed1', 'l1']); // l1 runs while fed1 waits on its peers
    let resumed = false;
    void peerWait.then(() => (resumed = true));
    answerPeers('answers');
    await flush();
    expect(resumed).toBe(false); // the slot is l1's until it leaves
    await leave('l1');
    expect(resumed).toBe(true); // back ahead of l2, which waited in the queue
    expect(admitted).toEqual(['fed1', 'l1']);
    await leave('fed1');
    expect(admitted).toEqual(['fed1', 'l1', 'l2']);
    await leave('l2');
    expect(admission.load()).toEqual({ inside: 0, waiting: 0 });
  });

  it('a call given up while away at its peers takes no slot when they answer', async () => {
    const { admission, enter, leave } = driver(1);
    const holder = enter('fed', 'fed1');
    await flush();
    let answerPeers!: () => void;
    const peerWait = holder.stepAside(() => new Promise<void>((resolve) => (answerPeers = resolve)));
    enter('local', 'l1');
    await flush();
    await leave('fed1'); // the deadline passed while the peers were being asked
    answerPeers();
    await peerWait;
    expect(admission.load()).toEqual({ inside: 1, waiting: 0 }); // l1 only
    await leave('l1');
    expect(admission.load()).toEqual({ inside: 0, waiting: 0 });
  });

  it('a call given up while waiting to come back from its peers passes the slot on', async () => {
    const { admission, admitted, enter, leave } = driver(1);
    const holder = enter('fed', 'fed1');
    await flush();
    let answerPeers!: () => void;
    const peerWait = holder.stepAside(() => new Promise<void>((resolve) => (answerPeers = resolve)));
    enter('local', 'l1');
    enter('local2', 'l2');
    await flush();
    answerPeers(); // fed1 now waits to come back, first in line
    await flush();
    await leave('fed1'); // and is given up there
    await leave('l1');
    await peerWait;
    expect(admitted).toEqual(['fed1', 'l1', 'l2']);
    expect(admission.load()).toEqual({ inside: 1, waiting: 0 });
  });

  it('a fan-out wrapped with peersAwayFromSlot steps aside for the call that makes it', async () => {
    const { admitted, enter, leave } = driver(1);
    let answer!: () => void;
    const peers: PeerFanout = {
      names: ['peer'],
      call: () => new Promise((resolve) => (answer = () => resolve([]))),
    };
    const holder = enter('fed', 'fed1');
    enter('local', 'l1');
    await flush();
    const call = runAdmitted(holder, () => peersAwayFromSlot(peers).call('find_entity', { name: 'x' }));
    await flush();
    expect(admitted).toEqual(['fed1', 'l1']);
    await leave('l1');
    answer();
    await expect(call).resolves.toEqual([]);
    await leave('fed1');
  });

  it('never holds more than its slots, never leaves a slot idle while calls wait, and admits every call', () =>
    fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.array(
          fc.oneof(
            fc.constantFrom('a', 'b', 'c', 'd').map((m) => ({ enter: m })),
            fc.nat(30).map((n) => ({ leave: n })),
          ),
          {
            maxLength: 60,
          },
        ),
        async (slots, steps) => {
          const admission = new FairAdmission(slots);
          const tickets: { ticket: AdmissionTicket; admitted: boolean; left: boolean }[] = [];
          const check = () => {
            const { inside, waiting } = admission.load();
            const running = tickets.filter((t) => t.admitted && !t.left).length;
            expect(inside).toBe(running);
            expect(inside).toBeLessThanOrEqual(slots);
            if (waiting > 0) expect(inside).toBe(slots);
          };
          for (const step of steps) {
            if ('enter' in step) {
              const entry = { ticket: admission.enter(step.enter), admitted: false, left: false };
              void entry.ticket.ready.then(() => (entry.admitted = true));
              tickets.push(entry);
            } else if (tickets.length > 0) {
              const entry = at(tickets, step.leave % tickets.length);
              entry.ticket.leave();
              entry.left = true;
            }
            await flush();
            check();
          }
          // Draining: every call still present is admitted in turn.
          while (tickets.some((t) => !t.left)) {
            const admittedNow = tickets.find((t) => t.admitted && !t.left);
            if (!admittedNow) throw new Error('calls wait but none is admitted');
            admittedNow.ticket.leave();
            admittedNow.left = true;
            await flush();
            check();
          }
          expect(admission.load()).toEqual({ inside: 0, waiting: 0 });
        },
      ),
      { numRuns: 200 },
    ));
});

describe('fair admission on a real server', () => {
  let home: string;
  let server: HttpServerHandle;
  let admission: FairAdmission;
  let tokens: { stuck: string; other: string };
  let unstick!: () => void;
  const stuck = new Promise<void>((resolve) => (unstick = resolve));

  beforeAll(async () => {
    home = tempDir('bourdon-admission-home-');
    const registry = new FederationRegistry(path.join(home, 'federation.yaml'), { warn: () => {} });
    tokens = {
      stuck: registry.add('stuck', { tier: 'trusted' }).token,
      other: registry.add('other', { tier: 'trusted' }).token,
    };
    admission = new FairAdmission(1);
    const factory = () => {
      const mcp = new McpServer({ name: 'admission-test', version: '1' });
      mcp.registerTool('hang', { inputSchema: z.object({}) }, async () => {
        await stuck;
        return { content: [{ type: 'text', text: 'late' }] };
      });
      mcp.registerTool('ping', { inputSchema: z.object({}) }, () => ({ content: [{ type: 'text', text: 'pong' }] }));
      return mcp;
    };
    server = await runHttpServer(factory, { port: 0, registry, admission, timeoutMs: 300, warn: () => {} });
  });
  afterAll(async () => {
    unstick();
    await server?.close();
    fs.rmSync(home, { recursive: true, force: true });
  });

  // A 2026-07-28 call: the SDK stops nothing of it when the request is given up (a handshake-era
  // call's transport is torn down), so only the admission can give its slot back.
  const call = (token: string, name: string) =>
    fetch(server.url, {
      method: 'POST',
      headers: mcpHeaders(token, {
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': name,
      }),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: {
          name,
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });

  it('a call answered by its deadline gives its slot back though its handler still runs', async () => {
    const late = await call(tokens.stuck, 'hang');
    expect(await late.text()).toContain('request timed out');
    // The only slot is free again: another member's call is admitted and answered.
    expect(admission.load()).toEqual({ inside: 0, waiting: 0 });
    const served = await call(tokens.other, 'ping');
    expect(served.status).toBe(200);
    expect(await served.text()).toContain('pong');
  });
});
