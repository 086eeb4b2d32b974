import { Args } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { accessFlags } from '../cli/flags.js';
import { renderMatches } from '../cli/render.js';
import { findPayload } from '../cli/read-commands.js';
import type { EntityMatch } from '../core/operations/queries.js';

export default class Find extends BaseCommand {
  static override summary = 'Who knows about X.';
  static override description =
    'Entities whose name or alias matches <name>, case-insensitively, across every agent. Tool: find_entity.';
  static override examples = [
    '<%= config.bin %> find Bourdon',
    '<%= config.bin %> find "l6 store" --access-level team --json',
  ];
  static override args = { name: Args.string({ description: 'Entity name or alias.', required: true }) };
  static override flags = { ...accessFlags };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Find);
    const payload = await findPayload(this.open, args, flags);
    this.failOnPayloadError(payload);
    this.emit(payload, () => renderMatches(payload.matches as EntityMatch[], `No agent knows about "${args.name}".`));
  }
}
