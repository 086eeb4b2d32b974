/**
 * What an operation is, declared once: its name, its description, a zod input schema with the
 * Python engine's argument names, defaults and lax coercions, the namespace a call touches, and
 * the handler `(context, input) → output`. The MCP tool (src/mcp/register.ts) and the CLI
 * command (src/cli/invoke.ts) both derive from the declaration; tier checks and audit are not
 * here: the MCP registration wraps every operation in them once.
 */
import * as z from 'zod';
import type { OperationContext } from '../context.js';
import { lazy } from '../lazy.js';
import { laxFlag, laxInteger } from '../lax-input.js';
import type { AnyAnswer } from '../payload.js';
import { refusal } from './answers.js';
import { ACCESS_LEVELS } from '../store/visibility.js';

/**
 * How a host should treat a tool (MCP tool annotations), said truthfully per operation:
 * hosts run read-only tools without asking and warn before destructive ones.
 */
export interface ToolHints {
  /** Changes nothing a caller can read back (the audit line aside). */
  readonly readOnlyHint: boolean;
  /** May delete or overwrite what was there (meaningful for writes only). */
  readonly destructiveHint: boolean;
  /** A second identical call changes nothing more. */
  readonly idempotentHint: boolean;
  /** Reaches beyond this machine's library: a federated read asks other machines. */
  readonly openWorldHint: boolean;
}

/** A read of this machine's library only. */
export const LOCAL_READ: ToolHints = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
/** A read that also asks the configured peers (other machines) at hop 0. */
export const FEDERATED_READ: ToolHints = { ...LOCAL_READ, openWorldHint: true };

/**
 * One operation, typed by its schema: the handler takes exactly what the schema produces
 * (`z.output`, defaults filled in) and answers the operation's named output type. `run` and
 * `namespace` are function-valued properties, so TypeScript checks their parameters strictly:
 * a handler that needs a field the schema never produces does not compile
 * (test/operations.types.test.ts).
 */
export interface Operation<S extends z.ZodObject = z.ZodObject, O = unknown> {
  /** The MCP tool name (the engine's), also named in the CLI command's help. */
  readonly name: string;
  /** Short and human, as hosts show the tool. */
  readonly title: string;
  readonly description: string;
  readonly annotations: ToolHints;
  /** The arguments, as tools/list shows them and as both adapters validate them. */
  readonly input: S;
  /** What it answers, or a refusal (answers.ts): the outputSchema, and what a peer's answer is parsed with. */
  readonly output: z.ZodType;
  /** The agent namespace a call touches ('*' for all), for tier checks and the audit line. */
  readonly namespace?: (input: z.output<S>) => string;
  /** Keys added to a denial so a caller reading the usual envelope still finds its lists. */
  readonly denialExtras?: AnyAnswer;
  /** It writes its own audit lines, its outcome included, in every adapter: they add none once it runs. */
  readonly auditsItself?: boolean;
  readonly run: (ctx: OperationContext, input: z.output<S>) => Promise<O>;
}

/**
 * Any operation, for the lists that hold all sixteen (the catalog, the MCP registration). Its
 * handler is a method here, so that every `Operation` is one (methods compare their parameters
 * bivariantly) without a cast; such a list only ever runs an operation on the value its own
 * schema produced (`parseInput`). Declarations are checked strictly, as `Operation`s.
 */
export interface AnyOperation {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly annotations: ToolHints;
  readonly input: z.ZodObject;
  readonly output: z.ZodType;
  namespace?(input: z.output<z.ZodObject>): string;
  readonly denialExtras?: AnyAnswer;
  readonly auditsItself?: boolean;
  run(ctx: OperationContext, input: z.output<z.ZodObject>): Promise<AnyAnswer>;
}

/** An operation's input once its schema has validated it. */
export type OperationInput<S extends z.ZodObject> = z.output<S>;

/**
 * An operation as declared: like `Operation`, but its schemas are given as functions that
 * build them. Building the zod schemas is most of what loading the declarations costs, and a
 * one-shot CLI call validates with one of them (bench/README.md). The output schema is the
 * answer's (answers.ts); the refusal envelope is added here, once for all.
 */
export type OperationDeclaration<S extends z.ZodObject, O> = Omit<Operation<S, O>, 'input' | 'output'> & {
  readonly input: S | (() => S);
  readonly output: z.ZodType | (() => z.ZodType);
};

/** An operation from its declaration; its schemas are built on first use, once. */
export function defineOperation<S extends z.ZodObject, O>(declaration: OperationDeclaration<S, O>): Operation<S, O> {
  const declared = declaration.input;
  const input = typeof declared === 'function' ? lazy(declared) : () => declared;
  const answer = declaration.output;
  const output = lazy(() => z.union([typeof answer === 'function' ? answer() : answer, refusal()]));
  return {
    ...declaration,
    get input() {
      return input();
    },
    get output() {
      return output();
    },
  };
}

/**
 * access_level shows its default in tools/list but is not filled in by the schema, so that
 * BOURDON_DEFAULT_ACCESS_LEVEL can apply when a caller leaves it out (spec §3). tools/list
 * shows the levels as an enum; the validator still takes any text, as the engine's does, and
 * the operation answers another value with the engine's refusal (the edge suite decides).
 */
export function accessShape(toolDefault: 'public' | 'team') {
  return {
    access_level: z
      .string()
      .nullable()
      .optional()
      .meta({ default: toolDefault, description: 'public, team or private', enum: [...ACCESS_LEVELS, null] }),
    include_private: laxFlag(false, 'Same as access_level private.'),
  };
}

/** A hop below 0 is read as 0 (the engine's reading), not refused. */
export const federationHop = lazy(() =>
  z.preprocess(
    laxInteger,
    z
      .number()
      .int()
      .default(0)
      .transform((hop) => Math.max(0, hop))
      .describe(
        'Not for models: set by a peer server forwarding the call (above 0 answers from this library only, asking no peer). Leave it out.',
      ),
  ),
);

/** The namespace of tools about one agent's manifest: the agent they name. */
export const agentIdNamespace = (input: { agent_id: string }) => input.agent_id;

/** The namespace of tools that take an optional `agent` filter. */
export const agentFilterNamespace = (args: { agent?: string | null }) => args.agent ?? '*';

/** One problem a schema found in an input, as Standard Schema validators report it. */
export interface InputIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** Input problems on one line, each as `path: message` (the wording the MCP SDK's validator uses). */
export function describeIssues(issues: readonly InputIssue[]): string {
  return issues
    .map((issue) => {
      if (!issue.path?.length) return issue.message;
      const where = issue.path.map((part) => String(typeof part === 'object' ? part.key : part)).join('.');
      return `${where}: ${issue.message}`;
    })
    .join(', ');
}

/**
 * Validates an input with the operation's schema (its Standard Schema face, as the MCP SDK
 * validates tool arguments): the parsed input, or the issues found.
 */
export async function parseInput<S extends z.ZodObject>(
  operation: { readonly input: S },
  input: unknown,
): Promise<{ value: z.output<S> } | { issues: readonly InputIssue[] }> {
  const result = await operation.input['~standard'].validate(input);
  return result.issues ? { issues: result.issues } : { value: result.value };
}
