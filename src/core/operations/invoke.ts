/**
 * How a command calls an operation: through its declaration in core, with the input validated
 * by the same schema the MCP tool validates with — after the command's own, stricter flag
 * checks, so a value a flag lets through is one the tool accepts too — and the operation's
 * typed output returned for the command to print.
 */
import type * as z from 'zod';
import type { OperationContext } from '../context.js';
import { UsageError } from '../errors.js';
import { describeIssues, parseInput, type Operation } from './operation.js';

export async function invoke<S extends z.ZodObject, O>(
  operation: Operation<S, O>,
  ctx: OperationContext,
  input: z.input<S>,
): Promise<O> {
  const parsed = await parseInput(operation, input);
  // The flags' own checks run first, so this is a mapping bug rather than a typo: still a usage error.
  if ('issues' in parsed) throw new UsageError(`invalid input for ${operation.name}: ${describeIssues(parsed.issues)}`);
  return operation.run(ctx, parsed.value);
}

/**
 * The description the operation's schema gives an input, for the flag or argument that sets
 * it: the tool and the command then describe a shared input in the same words.
 */
export function inputDescription<S extends z.ZodObject>(
  operation: { readonly name: string; readonly input: S },
  key: keyof S['shape'] & string,
): string {
  const description = operation.input.shape[key]?.description;
  if (!description) throw new Error(`${operation.name} does not describe its input ${key}`);
  return description;
}
