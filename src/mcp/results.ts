/**
 * The shape of every tool result this server answers, said once:
 * - the first text item is the engine's JSON, byte for byte (a Python peer reads
 *   `json.loads(content[0].text)`; the conformance suite proves the text unchanged);
 * - `structuredContent` is the same payload, for hosts that read the declared outputSchema;
 * - what the caller should also know (an ignored `since`, an agent that is not in the library)
 *   is a second text item, so the first stays the engine's;
 * - a refusal (an `{"error": …}` envelope) is `isError: true`: hosts and models see a failure,
 *   not an empty success.
 * And the SDK's own output check, which our tools/call handler would otherwise skip: the
 * structured content of a non-error result must validate against the tool's registered
 * outputSchema, or the call answers the SDK's "Output validation error" instead.
 */
import type { CallToolResult, RegisteredTool } from '@modelcontextprotocol/server';
import { failed, payloadJson } from '../core/payload.js';
import { describeIssues } from '../core/operations/operation.js';

/** A tool result for a payload; `notices` (if any) become the second text item. */
export function jsonResult(payload: Record<string, unknown>, notices: readonly string[] = []): CallToolResult {
  const content: CallToolResult['content'] = [{ type: 'text', text: payloadJson(payload) }];
  if (notices.length) content.push({ type: 'text', text: notices.join('\n') });
  const result: CallToolResult = { content, structuredContent: payload };
  if (failed(payload)) result.isError = true;
  return result;
}

/** An error result with no payload (a thrown failure, a validator's refusal): text only, as the SDK answers them. */
export function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * The SDK's output validation (`McpServer.validateToolOutput`, private to it), with the tool's
 * registered schema: a non-error result must carry structured content that the schema accepts.
 * A result that does not is a bug of this server; it is reported, not sent.
 */
export async function checkedOutput(
  tool: RegisteredTool,
  name: string,
  result: CallToolResult,
  warn: (message: string) => void,
): Promise<CallToolResult> {
  if (!tool.outputSchema || result.isError) return result;
  let problem: string | null = null;
  if (result.structuredContent === undefined)
    problem = `Output validation error: Tool ${name} has an output schema but no structured content was provided`;
  else {
    const checked = await tool.outputSchema['~standard'].validate(result.structuredContent);
    if (checked.issues?.length)
      problem = `Output validation error: Invalid structured content for tool ${name}: ${describeIssues(checked.issues)}`;
  }
  if (problem === null) return result;
  warn(problem);
  return errorResult(problem);
}
