/**
 * Parity with the Python engine for compile_codex_turn: every case recorded in
 * test/fixtures/conformance/turns, run as its README says — `bourdon serve` spawned over the
 * case's library with the case's HOME, environment and working directory and the clock frozen
 * by SOURCE_DATE_EPOCH, called through a real MCP client over stdio.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { materialiseTurnCase, TURNS_DIR, turnCaseIds, turnServer, type TurnCase } from './helpers/turn-cases.js';
import { only } from './helpers/items.js';
import { firstText } from './helpers/mcp.js';

/**
 * The case's answer from a fresh server; with `warmUp`, the same server first answers those
 * arguments (a warm server keeps per-library work between turns), and the case is asked twice.
 */
async function callTurn(
  turn: TurnCase,
  warmUp: Record<string, unknown>[] = [],
): Promise<{ isError: boolean; text: string; stderr: string }> {
  const server = await turnServer(turn, 'turn-parity');
  const { client } = server;
  try {
    for (const args of warmUp) await client.callTool({ name: 'compile_codex_turn', arguments: args });
    const result = await client.callTool({ name: 'compile_codex_turn', arguments: turn.args });
    const { text } = only(result.content as { type: string; text: string }[], 'content item');
    if (warmUp.length) {
      const again = await client.callTool({ name: 'compile_codex_turn', arguments: turn.args });
      expect(firstText(again)).toBe(text);
    }
    return { isError: result.isError === true, text, stderr: server.stderr() };
  } finally {
    await server.close();
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
      // And the engine's number forms: a whole score is written `36.0`, as json.dumps writes a float.
      const recorded = fs.readFileSync(path.join(TURNS_DIR, id, 'expected.json'), 'utf8');
      expect(numberLiterals(answer.text)).toEqual(numberLiterals(recorded));
    });
  }
});

/** Every number literal of a JSON text as written (strings skipped), sorted: forms, not order. */
function numberLiterals(json: string): string[] {
  const found: string[] = [];
  for (let i = 0; i < json.length; i++) {
    if (json[i] === '"') {
      for (i++; json[i] !== '"'; i++) if (json[i] === '\\') i++;
      continue;
    }
    const number = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(json.slice(i, i + 40));
    if (number) {
      found.push(number[0]);
      i += number[0].length - 1;
    }
  }
  return found.sort();
}

describe('compile_codex_turn: a warm server answers each recorded case as a fresh one does', () => {
  // Every case's prompt and folder first (the folder in this case's home), at this case's level:
  // what the server keeps between turns (candidates, merge groups, each repository's continuation
  // groups, threads) must not leak into the next brief.
  const specs = ids.map((id) => ({ id, ...recordedSpec(id) }));
  for (const spec of specs) {
    if (spec.expect_error) continue;
    it(spec.id, async () => {
      const turn = materialiseTurnCase(spec.id);
      const warmUp = specs
        .filter((other) => typeof other.args.prompt === 'string')
        .flatMap((other) => [
          { ...turn.args, prompt: other.args.prompt },
          { ...turn.args, ...JSON.parse(JSON.stringify(other.args).split('${HOME}').join(turn.home)) },
        ]);
      const answer = await callTurn(turn, warmUp);
      expect(answer.isError, answer.text).toBe(false);
      expect(JSON.parse(answer.text)).toEqual(turn.expected);
    });
  }
});

/** A recorded case's arguments and whether it is a refusal, as its case.json says. */
function recordedSpec(id: string): { args: Record<string, unknown>; expect_error: boolean } {
  return JSON.parse(fs.readFileSync(path.join(TURNS_DIR, id, 'case.json'), 'utf8')) as {
    args: Record<string, unknown>;
    expect_error: boolean;
  };
}
