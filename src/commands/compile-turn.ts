import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { compileCodexTurn } from '../core/reads.js';

export default class CompileTurn extends BaseCommand {
  static override summary = 'Codex turn brief (deferred).';
  static override description = 'The turn compiler is environment-bound and ships later; this prints the deferred payload. Tool: compile_codex_turn.';
  static override args = { prompt: Args.string({ description: 'The prompt text.', required: true }) };
  static override flags = {
    cwd: Flags.string({ description: 'Working directory of the turn.' }),
    'max-items': Flags.integer({ default: 6 }),
    'max-chars': Flags.integer({ default: 1800 }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(CompileTurn);
    const payload = await compileCodexTurn(this.openContext(flags.library), {
      prompt: args.prompt,
      cwd: flags.cwd,
      max_items: flags['max-items'],
      max_chars: flags['max-chars'],
    });
    this.emit(payload, () => `deferred: ${payload.reason as string}`);
  }
}
