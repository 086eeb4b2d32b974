import { BaseCommand } from '../cli/base-command.js';
import { oclifArgs, oclifFlags } from '../cli/flags.js';
import { colors, wrap } from '../cli/output.js';
import { failed } from '../core/payload.js';
import { explainMemoryChangeOperation } from '../core/operations/write-operations.js';
import type { ExplainAnswer } from '../core/writes/versions.js';
import { diffLines } from '../cli/diff-render.js';
import { diffCommand, diffPayload, historyPayload } from '../cli/read-commands.js';
import { assertVersionsExist } from '../cli/versions.js';

export default class Diff extends BaseCommand {
  static override summary = 'What changed between two versions of a manifest.';
  static override description = `Entities, sessions and notes added, removed or changed between <version> and --against (default: the version before it), field by field. Every value is redacted; the raw file is never printed. Tool: ${explainMemoryChangeOperation.name}.`;
  static override examples = ['<%= config.bin %> diff codex 4', '<%= config.bin %> diff codex 4 --against 1 --json'];
  static override args = oclifArgs(diffCommand.args);
  static override flags = oclifFlags(diffCommand.flags);

  async run(): Promise<ExplainAnswer> {
    const { args, flags } = await this.parse(Diff);
    const payload = await diffPayload(this.open, args, flags);
    if (failed(payload)) {
      // An unknown agent or version is answered as `history` and `rollback` answer it.
      const versions = await historyPayload(this.open, { agent_id: args.agent_id }, { ...flags, limit: 1000 });
      if (!failed(versions)) {
        const wanted = [payload.version, payload.against].filter((v): v is number => typeof v === 'number');
        const held = versions.versions.map((v) => v.version);
        assertVersionsExist(this.openContext(flags.library), args.agent_id, held, wanted, '');
      }
      return this.failOnPayloadError(payload);
    }
    return this.emit(payload, () => renderDiff(payload));
  }
}

function renderDiff(payload: ExplainAnswer): string {
  return [colors().bold(wrap(payload.summary)), ...diffLines(payload)].join('\n');
}
