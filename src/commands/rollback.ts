import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { parseVersion } from '../cli/input.js';
import { colors, plural } from '../cli/output.js';
import { configPaths } from '../core/store/config.js';
import { BourdonError } from '../core/errors.js';
import { failed } from '../core/payload.js';
import { assertVersionsExist } from '../cli/versions.js';
import { inputDescription, invoke } from '../core/operations/invoke.js';
import { listMemoryVersionsOperation, rollbackAgentMemoryOperation } from '../core/operations/write-operations.js';
import type { CappedVersionView, VersionView } from '../core/writes/versions.js';

export default class Rollback extends BaseCommand {
  static override summary = "Restore an agent's manifest to an earlier version.";
  static override description = `Writes the archived bytes of <version> back to agents/<agent_id>.l5.yaml, byte for byte, as a new version (op rollback): nothing is lost, and the rollback itself can be rolled back. It is written to the audit log before it happens, and refused when that record cannot be written. Asks for confirmation on a terminal; elsewhere it needs --yes. Tool: ${rollbackAgentMemoryOperation.name}.`;
  static override examples = [
    '<%= config.bin %> rollback codex 3 --reason "bad import"',
    '<%= config.bin %> rollback codex 3 --yes --json',
  ];
  static override args = {
    agent_id: Args.string({ description: 'Agent id.', required: true }),
    version: Args.string({ description: 'Version to restore (see `bourdon history`).', required: true }),
  };
  static override flags = {
    reason: Flags.string({ description: inputDescription(rollbackAgentMemoryOperation, 'reason') }),
    yes: Flags.boolean({ char: 'y', description: 'Do not ask for confirmation.', default: false }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Rollback);
    const version = parseVersion(args.version);
    const ctx = this.openContext(flags.library, { config: configPaths(process.env) });
    const listing = await invoke(listMemoryVersionsOperation, ctx, { agent_id: args.agent_id, limit: 1000 });
    if (failed(listing)) return this.failOnPayloadError(listing);
    const versions: readonly (VersionView | CappedVersionView)[] = listing.versions;
    // An unknown agent or version is answered as `history` answers it, naming what exists.
    const held = versions.map((v) => v.version);
    assertVersionsExist(ctx, args.agent_id, held, [version], '; nothing to roll back');
    const target = versions.find((v) => v.version === version)!;
    if (!flags.yes) await this.confirm(args.agent_id, target);
    const payload = await invoke(rollbackAgentMemoryOperation, ctx, {
      agent_id: args.agent_id,
      version,
      reason: flags.reason ?? null,
    });
    if (failed(payload)) return this.failOnPayloadError(payload);
    const c = colors();
    const heldBefore = versions.find((v) => v.current)?.version;
    if (payload.version === heldBefore) {
      this.emit(
        payload,
        () =>
          `${c.cyan('unchanged')} ${args.agent_id} already holds the content of version ${version} (version ${payload.version}); nothing written`,
      );
      return;
    }
    this.emit(
      payload,
      () =>
        `${c.green('restored')} ${args.agent_id} to version ${version}, recorded as ${c.bold(`version ${payload.version}`)} ${c.dim(`(sha256 ${payload.sha256.slice(0, 12)})`)}`,
    );
  }

  private async confirm(agentId: string, target: VersionView | CappedVersionView): Promise<void> {
    if (!process.stdin.isTTY || !process.stderr.isTTY) {
      throw new BourdonError(
        'refusing to roll back without --yes when not on a terminal; nothing was changed',
        'usage',
      );
    }
    const { confirm } = await import('@inquirer/prompts');
    const when = target.ts.replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
    const count = (value: number | null, word: string, many?: string) =>
      value === null ? `? ${many ?? `${word}s`}` : plural(value, word, many);
    const rows = `${count(target.entities, 'entity', 'entities')}, ${count(target.sessions, 'session')}, ${count(target.notes, 'note')}`;
    let ok: boolean;
    try {
      ok = await confirm(
        {
          message: `Restore ${agentId} to version ${target.version} (${target.op} at ${when}, ${rows})?`,
          default: false,
        },
        { output: process.stderr },
      );
    } catch (error) {
      // Ctrl-C at the prompt: the conventional 130 (128 + SIGINT), and nothing changed.
      if ((error as Error).name === 'ExitPromptError' || (error as Error).name === 'AbortPromptError')
        throw new BourdonError('rollback cancelled; nothing was changed', 'cancelled');
      throw error;
    }
    if (!ok) throw new BourdonError('rollback cancelled; nothing was changed', 'cancelled');
  }
}
