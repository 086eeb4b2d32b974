/**
 * Registration with the cross-cutting concerns applied once, for every tool and resource:
 * the caller's identity, the tier check, the audit line, and the result shape (./results.ts:
 * the engine's JSON first, as a Python peer reads it, the same payload as structuredContent,
 * isError on a refusal). Each tool is an operation declared in core
 * (src/core/operations/catalog.ts): its name, title, description, hints, input and output
 * schemas and handler come from the declaration.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type McpServer,
  type RegisteredTool,
  type StandardSchemaWithJSON,
} from '@modelcontextprotocol/server';
import { failed, failureCode, isDenial } from '../core/payload.js';
import { boundedCaller, currentCaller } from '../core/trust/caller.js';
import type { OperationContext } from '../core/context.js';
import { codeOf, describeError, FAILURES } from '../core/errors.js';
import { authorize, denialPayload, QUARANTINE_ALLOWED } from '../core/trust/policy.js';
import {
  describeIssues,
  parseInput,
  type AnyOperation,
  type InputIssue,
  type OperationInput,
} from '../core/operations/operation.js';
import { checkedOutput, errorResult, jsonResult } from './results.js';
import { audit, type CallEnvironment } from './call-environment.js';

/** What a guarded call is, for its tier check and its audit line. */
export interface GuardedCall {
  op: string;
  /** The agent namespace it touches ('*' for all). */
  namespace: string;
  /** Keys added to a denial (Operation.denialExtras). */
  denialExtras?: Record<string, unknown>;
  /** The operation writes its own audit lines once it runs (Operation.auditsItself). */
  auditsItself?: boolean;
  /** It writes (commit, rollback): a quarantined member's grants do not bound what it answers. */
  writes?: boolean;
}

/**
 * Runs an operation as the current caller: decide, run, audit. Returns the payload, or the
 * denial payload when the caller may not make this call. One audit line per call, with its
 * outcome: `deny` (and why) for a refusal, `fail` with the error for a call that failed —
 * answered as data (`{error}`: an invalid id, an unknown version, a denial inside the handler)
 * or thrown —, `allow` for one that did what it was asked. What the operation tells the
 * caller besides its answer goes to `notices` when given (see OperationContext.notice).
 */
export async function guarded<T>(
  env: CallEnvironment,
  call: GuardedCall,
  run: (ctx: OperationContext) => Promise<T>,
  notices?: string[],
): Promise<T | Record<string, unknown>> {
  const { op, namespace, denialExtras } = call;
  const caller = boundedCaller(currentCaller(env.fallbackCaller));
  const decision = authorize(caller, op, namespace);
  if (!decision.allowed) {
    audit(env, caller, op, namespace, false, decision.detail);
    return Object.assign(denialPayload(caller, op, decision.detail ?? 'denied'), denialExtras);
  }
  const ctx = env.contextFor(caller);
  if (notices) ctx.notice = (message) => notices.push(message);
  if (notices && caller.tier === 'quarantined' && caller.grants.length === 0 && !call.writes)
    notices.push(ungrantedNotice(caller.agent_id));
  let payload: T;
  try {
    payload = await run(ctx);
  } catch (error) {
    const code = codeOf(error);
    audit(env, caller, op, namespace, FAILURES[code].audit, `${code}: ${describeError(error)}`);
    throw error;
  }
  // A rollback keeps its own trail, its outcome included (core/writes/versions.ts).
  if (call.auditsItself) return payload;
  const failure = payload !== null && typeof payload === 'object' && failed(payload) ? payload : null;
  // A denial's line is the policy's (`deny`, the engine's "access denied"); any other failure's
  // decision and the code leading its detail come from its code (core/errors.ts FAILURES).
  if (failure && isDenial(failure)) audit(env, caller, op, namespace, false, failure.error);
  else if (failure) {
    const code = failureCode(failure);
    audit(env, caller, op, namespace, FAILURES[code].audit, `${code}: ${failure.error}`);
  } else audit(env, caller, op, namespace, true, decision.detail);
  return payload;
}

/**
 * What a quarantined member with no grants is told beside each read's answer: its answers are
 * empty because it may read no namespace yet, not because the library is (doctor's `grants`
 * check says the same to the operator).
 */
export function ungrantedNotice(member: string): string {
  return `member ${JSON.stringify(member)} is quarantined with no grants: it may read no agent's rows, so answers are empty until an operator grants a namespace (\`bourdon grant ${member} <agent-id>\`)`;
}

/** Runs an operation on validated input: the guard, then the handler; a thrown failure is an error result. */
async function runTool(
  env: CallEnvironment,
  operation: AnyOperation,
  input: OperationInput<AnyOperation['input']>,
): Promise<CallToolResult> {
  const notices: string[] = [];
  try {
    const namespace = operation.namespace ? operation.namespace(input) : '*';
    const run = (ctx: OperationContext) => operation.run(ctx, input);
    const call = {
      op: operation.name,
      namespace,
      denialExtras: operation.denialExtras,
      auditsItself: operation.auditsItself,
      writes: !operation.annotations.readOnlyHint,
    };
    return jsonResult(await guarded(env, call, run, notices), notices);
  } catch (error) {
    // The engine answers no payload for this failure: the result names its code, for clients to branch on.
    env.warn(`${operation.name} failed: ${describeError(error)}`);
    return jsonResult({ error: describeError(error), code: codeOf(error) });
  }
}

/** The namespace an unvalidated call names, for the audit line of a call that never ran. */
function rawNamespace(args: unknown): string {
  if (!args || typeof args !== 'object') return '*';
  for (const [key, value] of Object.entries(args)) {
    if ((key === 'agent_id' || key === 'agent') && typeof value === 'string') return value;
  }
  return '*';
}

/** The SDK's wording for arguments its validator refuses (`Input validation error: …`), kept as clients see it. */
function validationErrorResult(toolName: string, issues: readonly InputIssue[]): CallToolResult {
  return errorResult(`Input validation error: Invalid arguments for tool ${toolName}: ${describeIssues(issues)}`);
}

type JsonSchemaOptions = Parameters<StandardSchemaWithJSON['~standard']['jsonSchema']['input']>[0];

/**
 * The schema with its JSON Schema conversion remembered per target. The SDK converts a tool's
 * input schema on every HTTP `tools/call` (to check `Mcp-Param-*` headers) and on every
 * `tools/list`, and its cache lives on the server, which HTTP builds per request; the
 * operations' schemas are constants, so one conversion per process serves every server.
 * Validation and the JSON Schema itself are the schema's own (the same document either way).
 */
function rememberingJsonSchema<I, O>(schema: StandardSchemaWithJSON<I, O>): StandardSchemaWithJSON<I, O> {
  const standard = schema['~standard'];
  const converted = new Map<string, Record<string, unknown>>();
  const convert = (io: 'input' | 'output') => (options: JsonSchemaOptions) => {
    if (options.libraryOptions !== undefined) return standard.jsonSchema[io](options);
    const key = `${io}:${options.target}`;
    let json = converted.get(key);
    if (!json) converted.set(key, (json = standard.jsonSchema[io](options)));
    return json;
  };
  return {
    '~standard': {
      version: standard.version,
      vendor: standard.vendor,
      validate: (value, options) => standard.validate(value, options),
      ...(standard.types ? { types: standard.types } : {}),
      jsonSchema: { input: convert('input'), output: convert('output') },
    },
  };
}
type ToolSchemas = {
  input: StandardSchemaWithJSON<unknown, OperationInput<AnyOperation['input']>>;
  output: StandardSchemaWithJSON;
};
const rememberedSchemas = new WeakMap<AnyOperation, ToolSchemas>();
/** An operation's input and output schemas, each remembering its JSON Schema (built on first use). */
function toolSchemas(operation: AnyOperation): ToolSchemas {
  let schemas = rememberedSchemas.get(operation);
  if (!schemas) {
    schemas = { input: rememberingJsonSchema(operation.input), output: rememberingJsonSchema(operation.output) };
    rememberedSchemas.set(operation, schemas);
  }
  return schemas;
}

/**
 * Registers the offered operations as tools and answers tools/call for them, through the SDK's
 * public API only: `registerTool` lists each tool (name, title, description, annotations, input
 * and output schemas), and our own
 * `tools/call` handler — the SDK's documented low-level hook, `server.server.setRequestHandler`
 * — replaces the one `registerTool` installs, because the order of checks is ours:
 * - unknown tool names fail as the MCP tools specification has it (-32602 "Unknown tool: X"),
 *   and a Bourdon tool this connection does not offer is refused as a result, not hidden
 *   behind a protocol error, so the caller learns why;
 * - a tool the caller's tier may not call is refused (and audited) before its arguments are
 *   even validated, so a quarantined caller learns nothing from the validator either;
 * - arguments are validated with the tool's schema (its Standard Schema face, as the SDK
 *   does) and a refusal is audited ("invalid arguments"): every call leaves an audit line;
 * - the result passes the SDK's output check against the registered outputSchema
 *   (./results.ts `checkedOutput`) and its projection for the negotiated protocol era.
 */
export function registerTools(
  server: McpServer,
  env: CallEnvironment,
  offered: readonly AnyOperation[],
  knownTools: ReadonlySet<string>,
): void {
  const byName = new Map<string, { operation: AnyOperation; tool: RegisteredTool }>();
  for (const operation of offered) {
    const { input, output } = toolSchemas(operation);
    const face = { title: operation.title, description: operation.description, annotations: operation.annotations };
    // Listed by the SDK; called through the handler below (the callback serves only if the SDK ever dispatches itself).
    const tool = server.registerTool(operation.name, { ...face, inputSchema: input, outputSchema: output }, (parsed) =>
      runTool(env, operation, parsed),
    );
    byName.set(operation.name, { operation, tool });
  }
  if (byName.size === 0) return; // no tool offered at all: the SDK answers "method not found"
  server.server.setRequestHandler('tools/call', async (request) => {
    const name = request.params.name;
    const registered = byName.get(name);
    if (!registered) {
      if (knownTools.has(name)) return jsonResult({ error: 'tool not offered on this connection', tool: name });
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
    }
    const caller = boundedCaller(currentCaller(env.fallbackCaller));
    if (caller.tier !== 'trusted' && !QUARANTINE_ALLOWED.has(name)) {
      return jsonResult(await guarded(env, { op: name, namespace: '*' }, async () => ({})));
    }
    const { operation, tool } = registered;
    const validated = await parseInput(operation, request.params.arguments ?? {});
    if ('issues' in validated) {
      audit(env, caller, name, rawNamespace(request.params.arguments), false, 'invalid arguments');
      return validationErrorResult(name, validated.issues);
    }
    const result = await checkedOutput(tool, name, await runTool(env, operation, validated.value), env.warn);
    return server.server.projectCallToolResult(result, tool.outputSchemaJson);
  });
}
