/**
 * An operation's handler is typed from its schema: it takes exactly what the schema produces
 * (`z.output`, defaults filled in) and answers the operation's named output. Checked by the
 * compiler (`npm run typecheck` covers test/): each `@ts-expect-error` below is a declaration
 * that must not compile, and fails the typecheck the day it does.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import type { OperationContext } from '../src/core/context.js';
import { OPERATIONS } from '../src/core/operations/catalog.js';
import { optionalInteger } from '../src/core/lax-input.js';
import { LOCAL_READ, defineOperation, type AnyOperation } from '../src/core/operations/operation.js';
import {
  findEntityOperation,
  listNotesOperation,
  listRecentWorkOperation,
} from '../src/core/operations/read-operations.js';
import type { FindEntityOutput } from '../src/core/operations/reads.js';
import {
  type commitToFederationOperation,
  type explainMemoryChangeOperation,
  type listMemoryVersionsOperation,
  rollbackAgentMemoryOperation,
} from '../src/core/operations/write-operations.js';
import { commitToFederation } from '../src/core/writes/commit.js';
import { explainMemoryChange, listMemoryVersions, rollbackAgentMemory } from '../src/core/writes/versions.js';

const input = () => z.object({ name: z.string(), limit: optionalInteger() });

/** The title, hints and (any) output schema every declaration carries; these tests are about inputs. */
const TOOL_FACE = { title: 'test', annotations: LOCAL_READ, output: () => z.looseObject({}) };

describe('operations are typed from their schemas', () => {
  it('a handler taking what the schema produces compiles, and so does one taking less', () => {
    const exact = defineOperation({
      name: 'exact',
      description: 'takes the whole parsed input',
      ...TOOL_FACE,
      input,
      run: async (_ctx, args: { name: string; limit: number | null }) => ({ name: args.name, limit: args.limit }),
    });
    const narrower = defineOperation({
      name: 'narrower',
      description: 'reads only the name',
      ...TOOL_FACE,
      input,
      run: async (_ctx, args: { name: string }) => args.name,
    });
    expect([exact.name, narrower.name]).toEqual(['exact', 'narrower']);
  });

  it('a handler needing a field the schema never produces does not compile', () => {
    const mismatched = defineOperation({
      name: 'mismatched',
      description: 'asks for topic, which the schema has not got',
      ...TOOL_FACE,
      input,
      // @ts-expect-error `topic` is not in the schema's output
      run: async (_ctx: OperationContext, args: { name: string; limit: number | null; topic: string }) => args.topic,
    });
    const tooStrict = defineOperation({
      name: 'too-strict',
      description: 'wants a number where the schema may give null',
      ...TOOL_FACE,
      input,
      // @ts-expect-error the schema's `limit` may be null (its default)
      run: async (_ctx: OperationContext, args: { name: string; limit: number }) => args.limit,
    });
    const badNamespace = defineOperation({
      name: 'bad-namespace',
      description: 'names its namespace from a field the schema has not got',
      ...TOOL_FACE,
      input,
      // @ts-expect-error `agent` is not in the schema's output
      namespace: (args: { agent: string }) => args.agent,
      run: async () => null,
    });
    expect([mismatched, tooStrict, badNamespace]).toHaveLength(3);
  });

  it('a handler answering other than the named output does not compile', () => {
    const wrongOutput = defineOperation<ReturnType<typeof input>, FindEntityOutput>({
      name: 'wrong-output',
      description: 'answers a shape that is not a FindEntityOutput',
      ...TOOL_FACE,
      input,
      // @ts-expect-error `{ found: true }` is not a FindEntityOutput
      run: async () => ({ found: true }),
    });
    expect(wrongOutput.name).toBe('wrong-output');
  });

  it("the declared operations' handlers take their schema's output and answer their named type", () => {
    expectTypeOf(findEntityOperation.run).parameter(1).toEqualTypeOf<z.output<typeof findEntityOperation.input>>();
    expectTypeOf(findEntityOperation.run).returns.resolves.toEqualTypeOf<FindEntityOutput>();
    expectTypeOf(listRecentWorkOperation.run)
      .parameter(1)
      .toEqualTypeOf<z.output<typeof listRecentWorkOperation.input>>();
    expectTypeOf(listNotesOperation.run).parameter(1).toEqualTypeOf<z.output<typeof listNotesOperation.input>>();
    // The catalog holds every declaration as an AnyOperation, without a cast.
    const all: AnyOperation[] = [findEntityOperation, rollbackAgentMemoryOperation];
    expect(OPERATIONS).toEqual(expect.arrayContaining(all));
  });

  it("the write handlers (in writes, below operations) take exactly their schema's output, declared once", () => {
    expectTypeOf(commitToFederation).parameter(1).toEqualTypeOf<z.output<typeof commitToFederationOperation.input>>();
    expectTypeOf(listMemoryVersions).parameter(1).toEqualTypeOf<z.output<typeof listMemoryVersionsOperation.input>>();
    expectTypeOf(explainMemoryChange).parameter(1).toEqualTypeOf<z.output<typeof explainMemoryChangeOperation.input>>();
    expectTypeOf(rollbackAgentMemory).parameter(1).toEqualTypeOf<z.output<typeof rollbackAgentMemoryOperation.input>>();
    // A commit without the defaults the schema fills in is not a handler's input.
    // @ts-expect-error `mode`, `instance` and the other defaults are missing
    const partial: Parameters<typeof commitToFederation>[1] = { agent_id: 'a', entities: [] };
    expect(partial.agent_id).toBe('a');
  });
});
