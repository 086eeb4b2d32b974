import { BaseCommand } from '../cli/base-command.js';
import { oclifArgs, oclifFlags } from '../cli/flags.js';
import { wrap } from '../cli/output.js';
import { recognizeCommand, recognizePayload } from '../cli/read-commands.js';
import { prepareRecognitionContextOperation } from '../core/operations/read-operations.js';
import { failed } from '../core/payload.js';
import type { RecognitionAnswer } from '../core/operations/prompt-reads.js';

export default class Recognize extends BaseCommand {
  static override summary = 'Which known entities a prompt mentions.';
  static override description = `The recognition an agent gets at the start of a turn: a one-line recognition and the context block. Default access: team. Tool: ${prepareRecognitionContextOperation.name}.`;
  static override examples = ['<%= config.bin %> recognize "can we keep working on the sync engine?"'];
  static override args = oclifArgs(recognizeCommand.args);
  static override flags = oclifFlags(recognizeCommand.flags);

  async run(): Promise<RecognitionAnswer> {
    const { args, flags } = await this.parse(Recognize);
    const payload = await recognizePayload(this.open, args, flags);
    if (failed(payload)) return this.failOnPayloadError(payload);
    return this.emit(payload, () => wrap(payload.prompt_context || 'Nothing recognised.'));
  }
}
