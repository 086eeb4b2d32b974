/**
 * Issue 41: lines on stdio that are no message are answered as JSON-RPC 2.0 says — -32700 for
 * a line that is not JSON, -32600 for JSON that is not a JSON-RPC 2.0 object — with at most one
 * stderr line each, and the server goes on serving. The real binary, raw lines on its stdin.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { baseEnv } from './helpers/cli.js';
import { BIN, copyFixtureLibrary, tempDir } from './helpers/fixtures.js';

/** Writes the lines to `bourdon serve`, waits for `answers` lines on stdout, then closes its stdin. */
async function serveLines(lines: string[], answers: number): Promise<{ out: Record<string, unknown>[]; err: string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--library', copyFixtureLibrary()], {
    env: baseEnv({ BOURDON_HOME: tempDir('bourdon-stdio-lines-') }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const answered = new Promise<void>((resolve) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.split('\n').filter(Boolean).length >= answers) resolve();
    });
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.stdin.write(lines.map((line) => line + '\n').join(''));
  await answered;
  child.stdin.end();
  await exited;
  return {
    out: out
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>),
    err,
  };
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 7,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});

describe('lines on stdio that are no message', () => {
  it('are answered -32700 / -32600 with one stderr line each, and the server still answers', async () => {
    const { out, err } = await serveLines(
      ['this is not json', '{"foo": 1, "id": 3}', '[1,2]', '42', '', initialize],
      5,
    );
    expect(out.slice(0, 4)).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
      { jsonrpc: '2.0', id: 3, error: { code: -32600, message: 'Invalid Request' } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } },
    ]);
    expect(out[4]).toMatchObject({ jsonrpc: '2.0', id: 7, result: { serverInfo: expect.any(Object) } });
    // Besides the startup lines, one line per refused message at most, and no validation dump.
    const errLines = err.split('\n').filter(Boolean);
    for (const line of errLines) expect(line).toMatch(/^bourdon: /);
    expect(errLines.filter((line) => line.startsWith('bourdon: mcp: ')).length).toBeLessThanOrEqual(4);
  });
});
