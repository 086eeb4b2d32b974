import { BaseCommand } from '../cli/base-command.js';
import { colors, relativeDay, styled, table } from '../cli/output.js';
import { oclifFlags } from '../cli/flags.js';
import { configPaths } from '../core/store/config.js';
import type { ExportAgentsOutput, ExportedAgent } from '../core/operations/export.js';
import { agentsCommand, agentsPayload, exportPayload } from '../cli/read-commands.js';
import { exportAgentsOperation } from '../core/operations/read-operations.js';
import type { ListAgentsOutput } from '../core/operations/reads.js';
import type { ExportSource, FederatedExport } from '../core/federation/federation.js';

export default class Agents extends BaseCommand {
  static override summary = 'List the agents in the library.';
  static override description = `Lists every agent whose manifest is in the library, by last session, newest first (agents without a session after them, then unreadable manifests; ties by id). With --export, prints the redacted bourdon.agents/v1 envelope (tool ${exportAgentsOperation.name}): private sessions are never included.`;
  static override examples = ['<%= config.bin %> agents', '<%= config.bin %> agents --export --json > agents.json'];
  static override flags = oclifFlags(agentsCommand.flags);

  private federate(local: ExportAgentsOutput): Promise<FederatedExport<ExportAgentsOutput>> {
    return federatedExport(local, this.startProgress('asking peers…'));
  }

  async run(): Promise<ListAgentsOutput | ExportAgentsOutput | FederatedExport<ExportAgentsOutput>> {
    const { flags } = await this.parse(Agents);
    if (this.jsonEnabled() && !flags.export) return agentsPayload(this.open, flags);
    // The human listing uses the export view: it carries type, sessions and freshness.
    const envelope = await exportPayload(this.open, flags);
    if (!flags.federated) return this.emit(envelope, () => renderAgents(envelope.agents));
    const federated = await this.federate(envelope);
    // Peers' rows are listed as they sent them (bounded and re-tagged, not re-validated); each
    // peer that did not answer is one line under the table, as --json lists it in `sources`.
    return this.emit(federated, () =>
      [renderAgents(federated.agents as ExportedAgent[]), ...failedPeers(federated.sources)].join('\n'),
    );
  }
}

async function federatedExport(
  local: ExportAgentsOutput,
  stopProgress: () => void,
): Promise<FederatedExport<ExportAgentsOutput>> {
  const [{ loadPeersFile }, { McpPeerFanout }, { mergeExports }] = await Promise.all([
    import('../core/federation/peers-config.js'),
    import('../mcp/peer-client.js'),
    import('../core/federation/federation.js'),
  ]);
  const fanout = new McpPeerFanout(loadPeersFile(configPaths(process.env).peers), process.env);
  try {
    return mergeExports(local, await fanout.call('export_agents', {}));
  } finally {
    stopProgress();
    await fanout.close();
  }
}

/**
 * The listing's one order: by last session, newest first; agents without a session after
 * them, then unreadable manifests; ties by id. (The envelope keeps the engine's order.)
 */
export function listingOrder(a: ExportedAgent, b: ExportedAgent): number {
  const rank = (agent: ExportedAgent) => (agent.parse_error ? 2 : agent.freshest_session_date ? 0 : 1);
  const day = (agent: ExportedAgent) => agent.freshest_session_date ?? '';
  return (
    rank(a) - rank(b) || (day(a) < day(b) ? 1 : day(a) > day(b) ? -1 : 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

function renderAgents(agents: readonly ExportedAgent[]): string {
  const c = colors();
  if (agents.length === 0) return 'No agents in this library yet.';
  const rows = [...agents]
    .sort(listingOrder)
    .map((agent) =>
      agent.parse_error
        ? [styled(agent.id, c.red), styled('unreadable', c.red), '-', '-', styled(firstLine(agent.parse_error), c.red)]
        : [
            agent.id,
            agent.type ?? '-',
            String(agent.session_count ?? 0),
            relativeDay(agent.freshest_session_date),
            agent.role_narrative ?? '',
          ],
    );
  return table(['AGENT', 'TYPE', 'SESSIONS', 'LAST SESSION', 'ROLE'], rows, { flex: [4] });
}

/** One line per peer that did not answer: `peer <name> did not answer: <why>`. */
function failedPeers(sources: readonly ExportSource[]): string[] {
  const c = colors();
  return sources
    .filter((source) => !source.reachable)
    .map((source) => c.yellow(`peer ${source.name} did not answer: ${firstLine(source.error ?? 'unreachable')}`));
}

/** A parse error's first line, whole ("bad indentation … (1:9)"), without the YAML code frame. */
function firstLine(reason: string): string {
  return reason.split('\n')[0]!.trim();
}
