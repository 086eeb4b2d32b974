import { BaseCommand, NO_LIBRARY_FLAGS } from '../../cli/base-command.js';
import { table } from '../../cli/output.js';
import { wideFlag } from '../../cli/flags.js';
import { configPaths } from '../../core/store/config.js';
import { readPeersForEdit } from '../../core/federation/peers-config.js';
import type { PeerConfig } from '../../core/federation/peers-config.js';

export default class PeersList extends BaseCommand {
  static override baseFlags = NO_LIBRARY_FLAGS;
  static override summary = 'List the configured peers.';
  static override description =
    "Reads ~/.bourdon/peers.yaml (BOURDON_HOME): each peer's name, MCP endpoint and the variable its token is read from (never the token). A file that does not parse is an error here too, as it is for `serve --federate`. See `bourdon help peers`.";
  static override examples = ['<%= config.bin %> peers list', '<%= config.bin %> peers list --json'];

  static override flags = { ...wideFlag };

  async run(): Promise<{ path: string; peers: PeerConfig[] }> {
    await this.parse(PeersList);
    const file = configPaths(process.env).peers;
    const peers = readPeersForEdit(file);
    return this.emit({ path: file, peers }, () =>
      peers.length
        ? table(
            ['NAME', 'URL', 'TOKEN FROM'],
            peers.map((peer) => [peer.name, peer.url, `$${peer.token_env}`]),
            { flex: [1] },
          )
        : `No peers (${file}). Add one with \`bourdon peers add <name> <url>\`.`,
    );
  }
}
