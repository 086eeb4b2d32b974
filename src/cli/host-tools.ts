/**
 * The tools an MCP host is offered by the server it starts (`bourdon mcp-config`, `bourdon
 * init`), and how the host shows them: titles, which run without asking, which reach peers.
 */
import { OPERATIONS } from '../core/operations/catalog.js';
import { DEFAULT_TOOL_PROFILE, parseToolProfile, profileFilter } from '../core/trust/profiles.js';
import type { ServerTarget } from './host-targets.js';

/** What decides the tools a host is offered: how it reaches the server, and the --tools profile. */
type ServerOffer = Pick<ServerTarget, 'transport' | 'tools'>;

/** One tool as a host shows it (tools/list): its title, and the hints that decide whether it asks first. */
export interface HostTool {
  name: string;
  title: string;
  /** readOnlyHint: hosts that honour it run the tool without a confirmation prompt. */
  read_only: boolean;
  /** destructiveHint: hosts warn before it. */
  destructive: boolean;
  /** openWorldHint: it also asks the configured peers, on other machines. */
  open_world: boolean;
}

/**
 * The tools a host is offered by the server it starts (the target's --tools profile; every
 * tool without one), in the engine's order, with what tools/list tells the host about each.
 */
export function hostTools(target: ServerOffer): HostTool[] {
  const offered = profileFilter(parseToolProfile(target.tools ?? DEFAULT_TOOL_PROFILE));
  return OPERATIONS.filter((operation) => !offered || offered(operation.name)).map((operation) => ({
    name: operation.name,
    title: operation.title,
    read_only: operation.annotations.readOnlyHint,
    destructive: operation.annotations.destructiveHint,
    open_world: operation.annotations.openWorldHint,
  }));
}

/**
 * What the host will show, for people (docs/mcp-hosts.md): each tool under its title, which
 * run without asking (read-only) and which ask first, and which reach other machines.
 */
export function describeHostTools(target: ServerOffer): string[] {
  const tools = hostTools(target);
  const titled = (list: HostTool[]) => list.map((tool) => `"${tool.title}" (${tool.name})`).join(', ');
  const reads = tools.filter((tool) => tool.read_only);
  const writes = tools.filter((tool) => !tool.read_only);
  const lines = [
    `What the host shows: ${tools.length} tools, each under its title.`,
    `Read-only, so hosts that honour readOnlyHint run them without asking (${reads.length}): ${titled(reads)}.`,
  ];
  if (writes.length)
    lines.push(
      `Writes, which hosts ask you to confirm: ${writes
        .map((tool) =>
          tool.destructive
            ? `"${tool.title}" (${tool.name}; marked destructive: a replace drops rows, so hosts warn)`
            : `"${tool.title}" (${tool.name}; writes a new version, every earlier one kept)`,
        )
        .join(', ')}.`,
    );
  const open = tools.filter((tool) => tool.open_world).map((tool) => tool.name);
  if (open.length) lines.push(`${open.join(', ')} also ask your configured peers on other machines (openWorldHint).`);
  if (target.transport === 'http')
    lines.push(
      "Over HTTP the host is offered what the running server offers (its own --tools), narrowed by --tools here for Claude Desktop's bridge: at most the tools above.",
    );
  return lines;
}
