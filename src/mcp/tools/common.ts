/**
 * What a tool is: a name, a zod schema with the Python server's argument names and
 * defaults, and the core operation it adapts. Tier checks and audit are not here: they
 * wrap every tool once, at registration (../register.ts).
 */
import * as z from 'zod';
import type { OperationContext } from '../../core/context.js';
import type { Payload } from '../../core/operations/reads.js';

/** A tool's arguments once its schema has validated them. */
export type ToolArguments = z.infer<z.ZodObject>;

/**
 * `namespace` and `run` are methods, not function-valued properties, so that a tool defined on
 * its own schema is still a `ToolDefinition` in the list of all tools (methods compare their
 * parameters bivariantly): no cast is needed to hold 15 differently-typed tools in one array.
 */
export interface ToolDefinition<S extends z.ZodObject = z.ZodObject> {
  name: string;
  description: string;
  schema: S;
  /** The agent namespace a call touches ('*' for all), for tier checks and the audit line. */
  namespace?(args: z.infer<S>): string;
  /** Keys added to a denial so a caller reading the usual envelope still finds its lists. */
  denialExtras?: Payload;
  run(ctx: OperationContext, args: z.infer<S>): Promise<Payload>;
}

export function defineTool<S extends z.ZodObject>(tool: ToolDefinition<S>): ToolDefinition<S> {
  return tool;
}

/**
 * access_level shows its default in tools/list but is not filled in by the schema, so that
 * BOURDON_DEFAULT_ACCESS_LEVEL can apply when a caller leaves it out (spec §3).
 */
export function accessShape(toolDefault: 'public' | 'team') {
  return {
    access_level: z
      .string()
      .nullable()
      .optional()
      .meta({ default: toolDefault, description: 'public, team or private' }),
    include_private: z.boolean().optional().default(false).describe('Same as access_level private.'),
  };
}

export const federationHop = z
  .number()
  .int()
  .min(0)
  .optional()
  .default(0)
  .describe('Set by peers: a value above 0 answers from the local store only.');

export const optionalText = z.string().nullable().optional();
export const optionalInt = z.number().int().nullable().optional();

/** The namespace of tools that take an optional `agent` filter. */
export const agentFilterNamespace = (args: { agent?: string | null }) => args.agent ?? '*';
