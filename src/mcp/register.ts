/**
 * Registration with the cross-cutting concerns applied once, for every tool and resource:
 * the caller's identity, the tier check, the audit line, and the JSON-in-TextContent result
 * shape a Python peer reads (`json.loads(content[0].text)`).
 */
import { ProtocolError, ProtocolErrorCode, type CallToolResult, type McpServer } from '@modelcontextprotocol/server';
import { appendAudit, auditRecord } from '../core/audit.js';
import { currentCaller, type Caller } from '../core/caller.js';
import type { OperationContext } from '../core/context.js';
import { describeError } from '../core/errors.js';
import { authorize, denialPayload } from '../core/policy.js';
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

/** Writes an audit line; a failure is reported on stderr and never fails the call. */
export function audit(env: CallEnvironment, caller: Caller, op: string, namespace: string, allowed: boolean, detail?: string): void {
  if (!env.auditPath) return;
  try {
    appendAudit(env.auditPath, auditRecord(caller.agent_id, op, namespace, allowed, detail));
  } catch (error) {
    env.warn(`audit log not written (${describeError(error)})`);
  }
}

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
  const caller = currentCaller(env.fallbackCaller);
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

type ToolsCallHandler = (request: { params: { name: string } }, ctx: unknown) => Promise<CallToolResult>;

/**
 * Unknown tool names fail as the MCP tools specification has it (-32602 "Unknown tool: X"),
 * and a Bourdon tool this connection does not offer is refused as a result, not hidden
 * behind a protocol error, so the caller learns why. Installed after every registerTool.
 */
export function installToolsCallGuard(server: McpServer, knownTools: ReadonlySet<string>, offered: ReadonlySet<string>): void {
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
    return inner(request, ctx);
  });
}
