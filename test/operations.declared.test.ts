/**
 * The operations are declared once (src/core/operations) and both adapters derive from the
 * declaration: a command accepts the values the tool accepts, coerced the same way, and
 * refuses the same values; every tool a command's help names is a declared operation.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { invoke } from '../src/core/operations/invoke.js';
import { createContext } from '../src/core/context.js';
import { UsageError } from '../src/core/errors.js';
import { OPERATION_NAMES } from '../src/core/operations/catalog.js';
import { LOCAL_READ, defineOperation, parseInput } from '../src/core/operations/operation.js';
import { listRecentWorkOperation } from '../src/core/operations/read-operations.js';
import { failed } from '../src/core/payload.js';
import { LibraryStore } from '../src/core/store/library.js';
import { FIXTURE_LIBRARY, REPO_ROOT } from './helpers/fixtures.js';

const ctx = () => createContext(new LibraryStore(FIXTURE_LIBRARY, { warn: () => {} }), { warn: () => {} });

/** The title, hints and (any) output schema every declaration carries; these tests are about inputs. */
const TOOL_FACE = { title: 'test', annotations: LOCAL_READ, output: () => z.looseObject({}) };

describe('operations declared once, called by both adapters', () => {
  it("a command's input is coerced as the tool's is: the engine's lax values pass, as the tool echoes them", async () => {
    const lax = { since: '2000-01-01', limit: ' 2 ', summary: 'yes' };
    const viaCli = await invoke(listRecentWorkOperation, ctx(), lax);
    const parsed = await parseInput(listRecentWorkOperation, lax);
    if ('issues' in parsed) throw new Error('the tool refused lax input');
    const viaTool = await listRecentWorkOperation.run(ctx(), parsed.value);
    expect(failed(viaCli)).toBe(false);
    expect(viaCli).toMatchObject({ limit: 2, summary: true });
    expect(viaCli.sessions).toHaveLength(2);
    expect(viaCli).toEqual(viaTool);
  });

  it('a schema declared as a function is built on first use and only once, and validates as given', async () => {
    let built = 0;
    const echo = defineOperation({
      name: 'echo',
      description: 'echo',
      ...TOOL_FACE,
      input: () => {
        built += 1;
        return z.object({ text: z.string() });
      },
      run: async (_ctx, input) => input,
    });
    expect(built).toBe(0);
    expect(await parseInput(echo, { text: 'hi' })).toEqual({ value: { text: 'hi' } });
    expect(await parseInput(echo, { text: 1 })).toHaveProperty('issues');
    expect(echo.input).toBe(echo.input);
    expect(built).toBe(1);
  });

  it("a value the tool's schema refuses is a usage error naming the input, before the operation runs", async () => {
    const refused = invoke(listRecentWorkOperation, ctx(), { limit: 'many' });
    await expect(refused).rejects.toBeInstanceOf(UsageError);
    await expect(refused).rejects.toThrow(/^invalid input for list_recent_work: limit: /);
  });

  it('every tool a command names in its help is a declared operation', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'oclif.manifest.json'), 'utf8')) as {
      commands: Record<string, { description?: string }>;
    };
    const named = Object.values(manifest.commands).flatMap((command) =>
      [...(command.description ?? '').matchAll(/Tool: ([a-z_]+)\./g)].map((match) => match[1]!),
    );
    expect(named.length).toBeGreaterThanOrEqual(12);
    expect(named.filter((name) => !OPERATION_NAMES.has(name))).toEqual([]);
  });
});
