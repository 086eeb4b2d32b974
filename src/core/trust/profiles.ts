/**
 * Connection profiles: which tools one MCP connection offers (`bourdon serve --tools`).
 *
 * - `read`: every tool that only reads, history included (list_memory_versions and
 *   explain_memory_change read the version archive and change nothing);
 * - `write`: the read tools plus commit_to_federation — a host that records its own work
 *   but can never roll another agent's memory back;
 * - `all` (default): everything, rollback_agent_memory included.
 *
 * A profile narrows what a connection offers; it never widens what a caller may do: tier
 * and grant checks (policy.ts) still apply to every offered tool. Tools a profile leaves
 * out are absent from tools/list and refused by name as a tool result. Resources are reads
 * and are offered in every profile.
 */
import { UsageError } from '../errors.js';

export const TOOL_PROFILES = ['read', 'write', 'all'] as const;
export type ToolProfile = (typeof TOOL_PROFILES)[number];
export const DEFAULT_TOOL_PROFILE: ToolProfile = 'all';

/** The read tools, in the Python server's order. */
export const READ_TOOLS: readonly string[] = [
  'query_agent_memory',
  'list_recent_work',
  'find_entity',
  'get_cross_agent_summary',
  'prepare_recognition_context',
  'compile_codex_turn',
  'get_deeper_context',
  'list_agents',
  'export_agents',
  'list_notes',
  'list_workstreams',
  'list_memory_versions',
  'explain_memory_change',
  'search_memory',
];

/** The read tools plus the one write a working agent needs: committing its own memory. */
export const WRITE_TOOLS: readonly string[] = [...READ_TOOLS, 'commit_to_federation'];

function isToolProfile(value: unknown): value is ToolProfile {
  return typeof value === 'string' && (TOOL_PROFILES as readonly string[]).includes(value);
}

export function parseToolProfile(value: string): ToolProfile {
  if (!isToolProfile(value))
    throw new UsageError(`unknown tool profile ${JSON.stringify(value)} (use read, write or all)`);
  return value;
}

/** The tool names a profile offers, or null for `all` (every tool the server has). */
export function profileTools(profile: ToolProfile): readonly string[] | null {
  if (profile === 'read') return READ_TOOLS;
  if (profile === 'write') return WRITE_TOOLS;
  return null;
}

/** The filter for createMcpServer / the bridge; undefined for `all` (no filtering). */
export function profileFilter(profile: ToolProfile): ((name: string) => boolean) | undefined {
  const tools = profileTools(profile);
  if (!tools) return undefined;
  const offered = new Set(tools);
  return (name) => offered.has(name);
}
