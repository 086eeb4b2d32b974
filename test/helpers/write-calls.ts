/**
 * The write and history operations as a test calls them: through `invoke`, the way the CLI and
 * the page do, so the schema fills in what a call leaves out (the handlers take exactly the
 * schema's output). Named as the handlers are, so a test reads as a call to the operation.
 */
import type * as z from 'zod';
import type { OperationContext } from '../../src/core/context.js';
import { invoke } from '../../src/core/operations/invoke.js';
import {
  commitToFederationOperation,
  explainMemoryChangeOperation,
  listMemoryVersionsOperation,
  rollbackAgentMemoryOperation,
} from '../../src/core/operations/write-operations.js';

type Request<O extends { readonly input: z.ZodObject }> = z.input<O['input']>;

export const commitToFederation = (ctx: OperationContext, input: Request<typeof commitToFederationOperation>) =>
  invoke(commitToFederationOperation, ctx, input);

export const listMemoryVersions = (ctx: OperationContext, input: Request<typeof listMemoryVersionsOperation>) =>
  invoke(listMemoryVersionsOperation, ctx, input);

export const explainMemoryChange = (ctx: OperationContext, input: Request<typeof explainMemoryChangeOperation>) =>
  invoke(explainMemoryChangeOperation, ctx, input);

export const rollbackAgentMemory = (ctx: OperationContext, input: Request<typeof rollbackAgentMemoryOperation>) =>
  invoke(rollbackAgentMemoryOperation, ctx, input);
