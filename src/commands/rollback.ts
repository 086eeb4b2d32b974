import { Args, Flags } from '@oclif/core';
import { confirmChange, prompting, yesFlag } from '../cli/confirm.js';
import { promptMessage } from '../cli/width.js';
import { BaseCommand } from '../cli/base-command.js';
import { parseVersion } from '../cli/input.js';
import { colors, plural } from '../cli/output.js';
import { configPaths } from '../core/store/config.js';
import { failed } from '../core/payload.js';
import { assertVersionsExist } from '../cli/versions.js';
import { inputDescription, invoke } from '../core/operations/invoke.js';
import { listMemoryVersionsOperation, rollbackAgentMemoryOperation } from '../core/operations/write-operations.js';
import type { CappedVersionView, RollbackAnswer, VersionView } from '../core/writes/versions.js';

export default class Rollback extends BaseCommand {
  static override summary = "Restore an agent's manifest to an earlier version.";
  static override description = `Writes the archived bytes of <version> back to agents/<agent_id>.l5.yaml, byte for byte, as a new version (op rollback): nothing is lost, and the rollback itself can be rolled back. It is written to the audit log before it happens, and refused when that record cannot be written. Asks for confirmation on a terminal, then for the reason when --reason was not given (Enter for none); elsewhere it needs --yes. Tool: ${rollbackAgentMemoryOperation.name}.`;
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
    yes: yesFlag('Do not ask for confirmation.'),
  };

  async run(): Promise<RollbackAnswer> {
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
    await confirmChange({
      yes: flags.yes,
      question: rollbackQuestion(args.agent_id, target),
      action: 'roll back',
      what: 'rollback',
    });
    // Asked (on a terminal, after the yes) when --reason was not given: the history records it.
    const reason = flags.reason ?? (flags.yes ? null : await askReason());
    const payload = await invoke(rollbackAgentMemoryOperation, ctx, {
      agent_id: args.agent_id,
      version,
      reason,
    });
    if (failed(payload)) return this.failOnPayloadError(payload);
    const c = colors();
    const heldBefore = versions.find((v) => v.current)?.version;
    if (payload.version === heldBefore) {
      return this.emit(
        payload,
        () =>
          `${c.cyan('unchanged')} ${args.agent_id} already holds the content of version ${version} (version ${payload.version}); nothing written`,
      );
    }
    return this.emit(
      payload,
      () =>
        `${c.green('restored')} ${args.agent_id} to version ${version}, recorded as ${c.bold(`version ${payload.version}`)} ${c.dim(`(sha256 ${payload.sha256.slice(0, 12)})`)}`,
    );
  }
}

/** The reason a rollback is recorded with, asked on a terminal; empty is none. */
async function askReason(): Promise<string | null> {
  const answer = await prompting('rollback', ({ input }, context) =>
    input({ message: promptMessage('Why? (kept in the history and the audit log; Enter for no reason)') }, context),
  );
  return answer.trim() || null;
}

/** "Restore codex to version 3 (commit at 2026-06-01 10:00:00 UTC, 4 entities, 2 sessions, 0 notes)?" */
function rollbackQuestion(agentId: string, target: VersionView | CappedVersionView): string {
  const when = target.ts.replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
  const count = (value: number | null, word: string, many?: string) =>
    value === null ? `? ${many ?? `${word}s`}` : plural(value, word, many);
  const rows = `${count(target.entities, 'entity', 'entities')}, ${count(target.sessions, 'session')}, ${count(target.notes, 'note')}`;
  return `Restore ${agentId} to version ${target.version} (${target.op} at ${when}, ${rows})?`;
}
