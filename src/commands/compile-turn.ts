import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { renderTurnBrief } from '../cli/render.js';
import { invoke } from '../core/operations/invoke.js';
import { compileCodexTurnOperation } from '../core/operations/read-operations.js';
import { environmentClock } from '../core/store/dates.js';
import type { CompileTurnOutput } from '../core/operations/codex-turn/compile.js';

export default class CompileTurn extends BaseCommand {
  static override summary = 'The recognition brief Codex gets before a turn.';
  static override description = `A small ranked brief for one Codex turn, compiled from the prompt, the git repository at the turn's folder (name, root, origin remote), Codex's own thread metadata ($CODEX_HOME or ~/.codex, state_5.sqlite, read-only) and the library. Prints the anchors; --json prints the whole brief with every delivery form (explicit text, MCP payload, MEMORY.md block, fallback block, repo overlay). Default access: team. SOURCE_DATE_EPOCH freezes the day recency is measured from. Tool: ${compileCodexTurnOperation.name}.`;
  static override examples = [
    '<%= config.bin %> compile-turn "fix the flaky sync test" --cwd ~/src/app',
    '<%= config.bin %> compile-turn "ship 2.4" --max-items 3 --json',
  ];
  static override args = { prompt: Args.string({ description: 'The prompt text.', required: true }) };
  static override flags = {
    cwd: Flags.string({ description: 'Folder of the turn (default: this one; "" for none).' }),
    'access-level': Flags.string({ description: 'public, team or private (default team).', default: 'team' }),
    'max-items': Flags.integer({ description: 'Anchors in the brief, 1 to 20.', default: 6 }),
    'max-chars': Flags.integer({ description: 'Length of the explicit text Codex gets, 400 to 6000.', default: 1800 }),
  };

  async run(): Promise<CompileTurnOutput> {
    const { args, flags } = await this.parse(CompileTurn);
    const ctx = this.openContext(flags.library, { now: environmentClock(process.env) });
    const payload = await invoke(compileCodexTurnOperation, ctx, {
      prompt: args.prompt,
      cwd: flags.cwd ?? null,
      access_level: flags['access-level'],
      max_items: flags['max-items'],
      max_chars: flags['max-chars'],
    });
    return this.emit(payload, () => renderTurnBrief(payload));
  }
}
