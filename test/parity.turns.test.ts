/**
 * Parity with the Python engine for compile_codex_turn: every case recorded in
 * test/fixtures/conformance/turns, run as its README says — `bourdon serve` spawned over the
 * case's library with the case's HOME, environment and working directory and the clock frozen
 * by SOURCE_DATE_EPOCH, called through a real MCP client over stdio.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it } from 'vitest';
import { BIN } from './helpers/fixtures.js';
import { materialiseTurnCase, turnCaseIds, type TurnCase } from './helpers/turn-cases.js';

async function callTurn(turn: TurnCase): Promise<{ isError: boolean; text: string; stderr: string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve', '--library', turn.library],
    env: turn.env,
    cwd: turn.cwd,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'turn-parity', version: '1.0.0' });
  await client.connect(transport);
  try {
    const result = await client.callTool({ name: 'compile_codex_turn', arguments: turn.args });
    const content = result.content as { type: string; text: string }[];
    expect(content).toHaveLength(1);
    return { isError: result.isError === true, text: content[0].text, stderr };
  } finally {
    await client.close();
  }
}

const ids = turnCaseIds();

describe('compile_codex_turn: the recorded turn cases through a real MCP client', () => {
  it('has the recorded cases', () => {
    expect(ids.length).toBeGreaterThanOrEqual(17);
  });

  for (const id of ids) {
    it(id, async () => {
      const turn = materialiseTurnCase(id);
      const answer = await callTurn(turn);
      if (turn.expectError) {
        const { error } = turn.expected as { error: { message: string } };
        expect(answer.isError).toBe(true);
        expect(answer.text).toContain(error.message);
        return;
      }
      expect(answer.isError, answer.text).toBe(false);
      expect(JSON.parse(answer.text)).toEqual(turn.expected);
    });
  }
});
