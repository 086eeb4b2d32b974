import { Args } from '@oclif/core';
import { BaseCommand, NO_LIBRARY_FLAGS } from '../../cli/base-command.js';
import { configPaths } from '../../core/store/config.js';
import { BourdonError } from '../../core/errors.js';
import { editPeersFile } from '../../core/federation/peers-config.js';

export default class PeersRemove extends BaseCommand {
  static override baseFlags = NO_LIBRARY_FLAGS;
  static override summary = 'Remove a peer.';
  static override description =
    'Deletes the peer from ~/.bourdon/peers.yaml. Servers started with --federate read the file at start: restart them to stop asking it. Its token variable is left as it is.';
  static override examples = ['<%= config.bin %> peers remove laptop'];
  static override args = { name: Args.string({ description: 'Peer name.', required: true }) };

  async run(): Promise<{ removed: string; path: string }> {
    const { args } = await this.parse(PeersRemove);
    const file = configPaths(process.env).peers;
    editPeersFile(file, (peers) => {
      const index = peers.findIndex((peer) => peer.name === args.name);
      if (index < 0) throw new BourdonError(`no peer named ${JSON.stringify(args.name)}`, 'not_found');
      peers.splice(index, 1);
    });
    return this.emit({ removed: args.name, path: file }, () => `removed peer ${args.name}`);
  }
}
