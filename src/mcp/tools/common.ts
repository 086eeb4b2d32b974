/**
 * What a tool is: a name, a zod schema with the Python server's argument names and
 * defaults, and the core operation it adapts. Tier checks and audit are not here: they
 * wrap every tool once, at registration (../register.ts).
 */
import * as z from 'zod';
import type { OperationContext } from '../../core/context.js';
import type { Payload } from '../../core/payload.js';

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

/*
 * Arguments are coerced the way the engine's validator (pydantic, lax mode) coerces them:
 * hosts and models send `"5"` for 5 and `"true"` for true, and an agent that works with the
 * engine must work here. Only the coercions pydantic makes; anything else is still refused.
 * The coercion runs before validation, so tools/list shows the plain types the engine shows.
 */

/** pydantic's lax int: an integer, or a string of one (surrounding spaces allowed). */
export function laxInteger(value: unknown): unknown {
  return typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value) ? Number(value.trim()) : value;
}

const TRUE_WORDS = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const FALSE_WORDS = new Set(['0', 'off', 'f', 'false', 'n', 'no']);

/** pydantic's lax bool: a boolean, 0 or 1, or one of its true/false words in any case. */
export function laxBoolean(value: unknown): unknown {
  if (value === 0 || value === 1) return value === 1;
  if (typeof value !== 'string') return value;
  const word = value.trim().toLowerCase();
  return TRUE_WORDS.has(word) ? true : FALSE_WORDS.has(word) ? false : value;
}

/** An integer argument, lax as the engine's; `default: null` in tools/list, as the engine's. */
export function optionalInteger(description?: string) {
  const inner = z.number().int().nullable().default(null);
  return z.preprocess(laxInteger, description ? inner.describe(description) : inner);
}

/** A required integer argument, lax as the engine's. */
export function requiredInteger() {
  return z.preprocess(laxInteger, z.number().int());
}

/** An integer argument with a default, lax as the engine's. */
export function integerWithDefault(fallback: number) {
  return z.preprocess(laxInteger, z.number().int().default(fallback));
}

/** A boolean argument with a default, lax as the engine's. */
export function laxFlag(fallback: boolean, description: string) {
  return z.preprocess(laxBoolean, z.boolean().default(fallback).describe(description));
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
    include_private: laxFlag(false, 'Same as access_level private.'),
  };
}

/** A hop below 0 is read as 0 (the engine's reading), not refused. */
export const federationHop = z.preprocess(
  laxInteger,
  z
    .number()
    .int()
    .default(0)
    .transform((hop) => Math.max(0, hop))
    .describe('Set by peers: a value above 0 answers from the local store only.'),
);

/** An optional text argument; `default: null` in tools/list, as the engine declares it. */
export const optionalText = z.string().nullable().default(null);

/** The namespace of tools that take an optional `agent` filter. */
export const agentFilterNamespace = (args: { agent?: string | null }) => args.agent ?? '*';
