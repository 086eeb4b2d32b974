/**
 * The one way of calling another server (src/mcp/remote/) and the one token mask
 * (core/trust/token-mask.ts), on real sockets: a failure is classified by its class and code,
 * never by what its message says; an answer over the cap fails as AnswerTooLarge; a budget is
 * a typed RemoteTimeout carrying it; every credential shape is masked, whoever masks.
 */
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskTokens } from '../src/core/trust/token-mask.js';
import { maskConfiguredTokens, maskSecret } from '../src/core/trust/audit.js';
import { cappedFetch } from '../src/mcp/remote/capped-fetch.js';
import { remoteClient, withinBudget } from '../src/mcp/remote/client.js';
import { AnswerTooLarge, RemoteHttpRefusal, RemoteTimeout } from '../src/core/federation/remote-failure.js';
import { classifySdkFailure as classifyFailure, maskedReason } from '../src/mcp/remote/failure.js';

const servers: net.Server[] = [];
let closedUrl: string;
let refusingUrl: string;
let bigUrl: string;

function listen(server: net.Server): Promise<number> {
  servers.push(server);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)),
  );
}

beforeAll(async () => {
  const probe = net.createServer();
  const closedPort = await listen(probe);
  await new Promise((resolve) => probe.close(resolve));
  closedUrl = `http://127.0.0.1:${closedPort}/mcp`;
  const refusingPort = await listen(
    http.createServer((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end('{"error":"invalid token"}');
    }),
  );
  refusingUrl = `http://127.0.0.1:${refusingPort}/mcp`;
  // Three chunks of 1 KiB and no Content-Length: the cap counts them as they arrive.
  const bigPort = await listen(
    http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      for (let i = 0; i < 3; i++) res.write('x'.repeat(1024));
      res.end();
    }),
  );
  bigUrl = `http://127.0.0.1:${bigPort}/`;
});

afterAll(() => {
  for (const server of servers) server.close();
});

async function failureOf(work: Promise<unknown>): Promise<unknown> {
  try {
    await work;
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('classifyFailure: by class and code, never by message text', () => {
  it('a closed port is a refused connection (ECONNREFUSED down fetch’s cause chain)', async () => {
    const error = await failureOf(fetch(closedUrl));
    expect(classifyFailure(error, closedUrl)).toEqual({ kind: 'network', code: 'ECONNREFUSED', cause: 'refused' });
  });

  it('a port fetch blocks is named from the URL, not from fetch’s "bad port" text', async () => {
    const url = 'http://127.0.0.1:6000/mcp';
    const error = await failureOf(fetch(url));
    expect(classifyFailure(error, url)).toEqual({ kind: 'blocked-port', port: 6000 });
    // The same text on an allowed port is not taken for it.
    expect(classifyFailure(new Error('bad port'), closedUrl)).toEqual({ kind: 'unknown' });
  });

  it('the SDK client refused with 401 carries the status in its error class', async () => {
    const { client, transport } = remoteClient({ url: refusingUrl, clientName: 'test', maxResponseBytes: 1 << 20 });
    const error = await failureOf(client.connect(transport));
    await client.close().catch(() => {});
    expect(classifyFailure(error, refusingUrl)).toEqual({ kind: 'http', status: 401 });
    expect(classifyFailure(new RemoteHttpRefusal(403), refusingUrl)).toEqual({ kind: 'http', status: 403 });
  });

  it('a message that merely says "401", "no answer within" or a code is not classified by it', () => {
    for (const text of ['HTTP 401', 'no answer within 5000 ms', 'ECONNREFUSED', 'self signed certificate'])
      expect(classifyFailure(new Error(text), closedUrl)).toEqual({ kind: 'unknown' });
  });

  it('a budget that runs out is a RemoteTimeout carrying it', async () => {
    const error = await failureOf(withinBudget(new Promise(() => {}), 20));
    expect(error).toBeInstanceOf(RemoteTimeout);
    expect(error).toMatchObject({ budgetMs: 20, code: 'peer_unreachable' });
    expect(classifyFailure(error, closedUrl)).toEqual({ kind: 'timeout', budgetMs: 20, what: 'answer' });
  });

  it('an answer over the cap fails as AnswerTooLarge, whether or not its length is declared', async () => {
    const capped = cappedFetch(2048);
    const response = await capped(bigUrl);
    const error = await failureOf(response.text());
    expect(error).toBeInstanceOf(AnswerTooLarge);
    expect(classifyFailure(error, bigUrl)).toEqual({ kind: 'too-large', limit: 2048 });
    const whole = await (await cappedFetch(4096)(bigUrl)).text();
    expect(whole).toHaveLength(3072);
  });
});

describe('the one token mask', () => {
  const token = 'bdn_' + 'c0ffee'.repeat(8);

  it('masks the known token, member tokens, and header credentials, whole', () => {
    const text = `sent Authorization: Bearer s3cret-value to x; got ${token}; and mine-only-secret`;
    const masked = maskTokens(text, { known: ['mine-only-secret', '', undefined] });
    expect(masked).toBe('sent Authorization: Bearer [masked] to x; got bdn_[masked]; and [masked]');
    expect(maskTokens('Authorization: abc.def')).toBe('Authorization: [masked]');
    expect(maskTokens('bearer xyz')).toBe('bearer [masked]');
  });

  it('masks hash-shaped runs only when asked (the registry quotes its hashes)', () => {
    const hash = 'ab'.repeat(32);
    expect(maskTokens(`hash: ${hash}`)).toContain(hash);
    expect(maskTokens(`hash: ${hash}`, { hashes: true })).toBe('hash: [masked]');
  });

  it('the audit trail’s mask adds the secrets this process was configured with', () => {
    maskSecret('configured-legacy-token-value');
    expect(maskConfiguredTokens('x configured-legacy-token-value y')).toBe('x [masked] y');
  });

  it('a reported failure is one masked line', () => {
    const reason = maskedReason(new Error(`refused ${token} with Bearer abc\nsecond line`), 'abc');
    expect(reason).toBe('refused bdn_[masked] with Bearer [masked]');
  });
});
