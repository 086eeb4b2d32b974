import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { invoke } from '../core/operations/invoke.js';
import { compileCodexTurnOperation } from '../core/operations/read-operations.js';

export default class CompileTurn extends BaseCommand {
  static override summary = "Deferred: prints the engine's 'deferred' answer for a Codex turn brief.";
  static override description = `The brief Codex would get for a turn (the repository, the workstream, what other agents did). The turn compiler is environment-bound (live cwd, git remote) and ships later; until then this prints the deferred payload, so scripts can already call it. Tool: ${compileCodexTurnOperation.name}.`;
  static override examples = [
    '<%= config.bin %> compile-turn "fix the flaky sync test" --cwd ~/src/app',
    '<%= config.bin %> compile-turn "ship 2.4" --json',
  ];
  static override args = { prompt: Args.string({ description: 'The prompt text.', required: true }) };
  static override flags = {
    cwd: Flags.string({ description: 'Working directory of the turn.' }),
    'max-items': Flags.integer({ default: 6 }),
    'max-chars': Flags.integer({ default: 1800 }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(CompileTurn);
    const payload = await invoke(compileCodexTurnOperation, this.openContext(flags.library), {
      prompt: args.prompt,
      cwd: flags.cwd,
      max_items: flags['max-items'],
      max_chars: flags['max-chars'],
    });
    this.emit(payload, () => payload.delivery.explicit_text);
  }
}
