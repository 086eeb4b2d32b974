import { Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { colors, relativeDay, table } from '../cli/output.js';
import { exportAgents } from '../core/export.js';
import type { ExportedAgent } from '../core/export.js';
import { listAgents } from '../core/reads.js';

export default class Agents extends BaseCommand {
  static override summary = 'List the agents in the library.';
  static override description =
    'Lists every agent whose manifest is in the library. With --export, prints the redacted bourdon.agents/v1 envelope (tool export_agents): private sessions are never included.';
  static override examples = ['<%= config.bin %> agents', '<%= config.bin %> agents --export --json > agents.json'];
  static override flags = {
    export: Flags.boolean({ description: 'Print the export envelope (tool export_agents).', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Agents);
    const ctx = this.openContext(flags.library);
    if (this.jsonMode && !flags.export) {
      this.emit(await listAgents(ctx), () => '');
      return;
    }
    // The human listing uses the export view: it carries type, sessions and freshness.
    const envelope = await exportAgents(ctx);
    this.emit(envelope, () => renderAgents(envelope.agents as ExportedAgent[]));
  }
}

function renderAgents(agents: ExportedAgent[]): string {
  const c = colors();
  if (agents.length === 0) return 'No agents in this library yet.';
  const rows = agents.map((agent) =>
    agent.parse_error
      ? [c.red(agent.id), c.red('unreadable'), '-', '-', c.red(agent.parse_error.split(/[\n:]/)[0])]
      : [agent.id, agent.type ?? '-', String(agent.session_count ?? 0), relativeDay(agent.freshest_session_date), agent.role_narrative ?? ''],
  );
  return table(['AGENT', 'TYPE', 'SESSIONS', 'LAST SESSION', 'ROLE'], rows);
}
