/**
 * Registration with the cross-cutting concerns applied once, for every tool and resource:
 * the caller's identity, the tier check, the audit line, and the JSON-in-TextContent result
 * shape a Python peer reads (`json.loads(content[0].text)`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { ProtocolError, ProtocolErrorCode, type CallToolResult, type McpServer } from '@modelcontextprotocol/server';
import { appendAudit, auditRecord } from '../core/trust/audit.js';
import { boundedCaller, currentCaller, type Caller } from '../core/trust/caller.js';
import type { OperationContext } from '../core/context.js';
import { describeError } from '../core/errors.js';
import { authorize, denialPayload, QUARANTINE_ALLOWED } from '../core/trust/policy.js';
import type { ToolDefinition } from './tools/common.js';

export interface CallEnvironment {
  /** Who calls when no identity was set for this request (operator on stdio, unknown on HTTP). */
  fallbackCaller: Caller;
  /** Builds the operation context for a caller. */
  contextFor: (caller: Caller) => OperationContext;
  /** Where audit lines go; null disables the trail (library use without a config dir). */
  auditPath: string | null;
  warn: (message: string) => void;
}

export function jsonResult(payload: unknown, isError = false): CallToolResult {
  const result: CallToolResult = { content: [{ type: 'text', text: JSON.stringify(payload) }] };
  if (isError) result.isError = true;
  return result;
}

/** When each audit failure was last reported: a full disk warns once a minute, not per call. */
const auditWarnedAt = new Map<string, number>();
const AUDIT_WARN_INTERVAL_MS = 60_000;

/** Writes an audit line; a failure is reported on stderr and never fails the call. */
export function audit(
  env: CallEnvironment,
  caller: Caller,
  op: string,
  namespace: string,
  allowed: boolean,
  detail?: string,
): void {
  if (!env.auditPath) return;
  try {
    appendAudit(env.auditPath, auditRecord(caller.agent_id, op, namespace, allowed, detail));
  } catch (error) {
    const message = `audit log not written (${describeError(error)})`;
    const now = Date.now();
    if (now - (auditWarnedAt.get(message) ?? -Infinity) < AUDIT_WARN_INTERVAL_MS) return;
    if (auditWarnedAt.size > 100) auditWarnedAt.clear();
    auditWarnedAt.set(message, now);
    env.warn(message);
  }
}

/** Set by the tools/call wrapper, so it knows whether the tool's handler reached the guard. */
const guardMarks = new AsyncLocalStorage<{ guarded: boolean }>();

/**
 * Runs an operation as the current caller: decide, audit, then run. Returns the payload, or
 * the denial payload when the caller may not make this call.
 */
export async function guarded<T>(
  env: CallEnvironment,
  op: string,
  namespace: string,
  denialExtras: Record<string, unknown> | undefined,
  run: (ctx: OperationContext) => Promise<T>,
): Promise<T | Record<string, unknown>> {
  const caller = boundedCaller(currentCaller(env.fallbackCaller));
  const mark = guardMarks.getStore();
  if (mark) mark.guarded = true;
  const decision = authorize(caller, op, namespace);
  audit(env, caller, op, namespace, decision.allowed, decision.detail);
  if (!decision.allowed) return { ...denialPayload(caller, op, decision.detail ?? 'denied'), ...denialExtras };
  return run(env.contextFor(caller));
}

export function registerTool(server: McpServer, env: CallEnvironment, tool: ToolDefinition): void {
  server.registerTool(tool.name, { description: tool.description, inputSchema: tool.schema }, async (args) => {
    try {
      const namespace = tool.namespace ? tool.namespace(args) : '*';
      return jsonResult(await guarded(env, tool.name, namespace, tool.denialExtras, (ctx) => tool.run(ctx, args)));
    } catch (error) {
      env.warn(`${tool.name} failed: ${describeError(error)}`);
      return jsonResult({ error: describeError(error) }, true);
    }
  });
}

type ToolsCallHandler = (
  request: { params: { name: string; arguments?: unknown } },
  ctx: unknown,
) => Promise<CallToolResult>;

/** The namespace an unvalidated call names, for the audit line of a call that never ran. */
function rawNamespace(args: unknown): string {
  if (!args || typeof args !== 'object') return '*';
  const record = args as Record<string, unknown>;
  for (const key of ['agent_id', 'agent']) {
    if (typeof record[key] === 'string') return record[key] as string;
  }
  return '*';
}

/**
 * Wraps the SDK's tools/call handler, after every registerTool:
 * - unknown tool names fail as the MCP tools specification has it (-32602 "Unknown tool: X"),
 *   and a Bourdon tool this connection does not offer is refused as a result, not hidden
 *   behind a protocol error, so the caller learns why;
 * - a tool the caller's tier may not call is refused (and audited) before its arguments are
 *   even validated, so a quarantined caller learns nothing from the validator either;
 * - a call whose arguments fail validation never reaches the guard, so it is audited here as
 *   a refusal ("invalid arguments"): every call leaves an audit line.
 */
export function installToolsCallGuard(
  server: McpServer,
  knownTools: ReadonlySet<string>,
  offered: ReadonlySet<string>,
  env?: CallEnvironment,
): void {
  const low = server.server as unknown as {
    _getRequestHandler(method: string): ToolsCallHandler | undefined;
    setRequestHandler(method: string, handler: ToolsCallHandler): void;
  };
  const inner = low._getRequestHandler('tools/call');
  if (!inner) return; // no tool offered at all: the SDK answers "method not found"
  low.setRequestHandler('tools/call', async (request, ctx) => {
    const name = request.params.name;
    if (!offered.has(name)) {
      if (knownTools.has(name)) return jsonResult({ error: 'tool not offered on this connection', tool: name });
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
    }
    if (!env) return inner(request, ctx);
    const caller = boundedCaller(currentCaller(env.fallbackCaller));
    if (caller.tier !== 'trusted' && !QUARANTINE_ALLOWED.has(name)) {
      return jsonResult(await guarded(env, name, '*', undefined, async () => ({})));
    }
    const mark = { guarded: false };
    const result = await guardMarks.run(mark, () => inner(request, ctx));
    if (!mark.guarded) audit(env, caller, name, rawNamespace(request.params.arguments), false, 'invalid arguments');
    return result;
  });
}
