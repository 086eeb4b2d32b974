import { Args } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { promoteStaged, type PromoteResult } from '../../core/writes/staging.js';
import type { CommitCounts } from '../../core/writes/writes.js';

export default class StagingPromote extends BaseCommand {
  static override summary = "Merge an agent's staged writes into the live library.";
  static override description =
    'Merges every staged write for <agent> (from any member) into agents/<agent>.l5.yaml through the normal commit path: rows merge as commit_to_federation does, each promotion is recorded as a new version (op promote, actor the member), and the staged file is deleted.';
  static override examples = ['<%= config.bin %> staging promote openclaw'];
  static override args = {
    agent: Args.string({ description: 'Agent id whose staged writes to promote.', required: true }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(StagingPromote);
    const result = await promoteStaged(this.openContext(flags.library), args.agent);
    this.emit(result, () => renderPromoted(result));
  }
}

function count(result: PromoteResult, key: keyof CommitCounts): number {
  return result.promoted.reduce((sum, item) => sum + item.result[key], 0);
}

/** The engine's line, plus the version the promotion became. */
export function renderPromoted(result: PromoteResult): string {
  const versions = result.promoted.map((item) => item.result.version).filter((v) => v !== undefined && v !== null);
  const line =
    `promoted ${result.agent_id}: +${count(result, 'entities_added')} entities (~${count(result, 'entities_updated')} updated), ` +
    `+${count(result, 'sessions_added')} sessions (~${count(result, 'sessions_updated')} updated), +${count(result, 'notes_added')} notes`;
  const from = result.promoted.length > 1 ? ` from ${result.promoted.length} members` : '';
  return versions.length ? `${line}${from}; now version ${versions[versions.length - 1]}` : `${line}${from}`;
}
