import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { parseVersion } from '../cli/input.js';
import { colors } from '../cli/output.js';
import { configPaths } from '../core/store/config.js';
import { BourdonError } from '../core/errors.js';
import type { Payload } from '../core/operations/reads.js';
import { listMemoryVersions, rollbackAgentMemory, type VersionView } from '../core/writes/versions.js';

export default class Rollback extends BaseCommand {
  static override summary = "Restore an agent's manifest to an earlier version.";
  static override description =
    'Writes the archived bytes of <version> back to agents/<agent_id>.l5.yaml, byte for byte, as a new version (op rollback): nothing is lost, and the rollback itself can be rolled back. It is written to the audit log before it happens, and refused when that record cannot be written. Asks for confirmation on a terminal; elsewhere it needs --yes. Tool: rollback_agent_memory.';
  static override examples = [
    '<%= config.bin %> rollback codex 3 --reason "bad import"',
    '<%= config.bin %> rollback codex 3 --yes --json',
  ];
  static override args = {
    agent_id: Args.string({ description: 'Agent id.', required: true }),
    version: Args.string({ description: 'Version to restore (see `bourdon history`).', required: true }),
  };
  static override flags = {
    reason: Flags.string({ description: 'Why (kept in the audit log).' }),
    yes: Flags.boolean({ char: 'y', description: 'Do not ask for confirmation.', default: false }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Rollback);
    const version = parseVersion(args.version);
    const ctx = this.openContext(flags.library, { config: configPaths(process.env) });
    const listing = await listMemoryVersions(ctx, { agent_id: args.agent_id, limit: 1000 });
    this.failOnPayloadError(listing);
    const target = (listing.versions as VersionView[]).find((v) => v.version === version);
    if (target && !flags.yes) await this.confirm(args.agent_id, target);
    // An unknown version falls through to the operation, which answers the error payload.
    const payload: Payload = await rollbackAgentMemory(ctx, {
      agent_id: args.agent_id,
      version,
      reason: flags.reason ?? null,
    });
    this.failOnPayloadError(payload);
    const c = colors();
    this.emit(
      payload,
      () =>
        `${c.green('restored')} ${args.agent_id} to version ${version}, recorded as ${c.bold(`version ${String(payload.version)}`)} ${c.dim(`(sha256 ${String(payload.sha256).slice(0, 12)})`)}`,
    );
  }

  private async confirm(agentId: string, target: VersionView): Promise<void> {
    if (!process.stdin.isTTY || !process.stderr.isTTY) {
      throw new BourdonError('refusing to roll back without --yes when not on a terminal; nothing was changed');
    }
    const { confirm } = await import('@inquirer/prompts');
    const when = target.ts.replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
    const rows = `${target.entities ?? '?'} entities, ${target.sessions ?? '?'} sessions, ${target.notes ?? '?'} notes`;
    const ok = await confirm(
      {
        message: `Restore ${agentId} to version ${target.version} (${target.op} at ${when}, ${rows})?`,
        default: false,
      },
      { output: process.stderr },
    );
    if (!ok) throw new BourdonError('rollback cancelled; nothing was changed');
  }
}
