import { Args, Flags } from '@oclif/core';
import { BaseCommand, NO_LIBRARY_FLAGS } from '../../cli/base-command.js';
import { configPaths } from '../../core/store/config.js';
import { BourdonError } from '../../core/errors.js';
import {
  checkPeerName,
  checkPeerTokenEnv,
  DEFAULT_TOKEN_ENV,
  editPeersFile,
  normalisePeerUrl,
  peerTokenSet,
} from '../../core/federation/peers-config.js';
import type { PeerConfig } from '../../core/federation/peers-config.js';
import { cliWarn } from '../../cli/width.js';

export default class PeersAdd extends BaseCommand {
  static override baseFlags = NO_LIBRARY_FLAGS;
  static override summary = 'Add a peer: another machine’s Bourdon server.';
  static override description =
    'Writes the peer to ~/.bourdon/peers.yaml (read by `bourdon serve --federate`). The URL must be https unless the host is loopback, and may not carry credentials, a query or a fragment; `/mcp` is appended when missing. The bearer token is never stored: it is read at call time from the variable named by --token-env.';
  static override examples = [
    '<%= config.bin %> peers add laptop https://laptop.tailnet.example:7500 --token-env BOURDON_PEER_LAPTOP',
    '<%= config.bin %> peers add local http://127.0.0.1:7501',
  ];
  static override args = {
    name: Args.string({ description: 'Peer name (used in provenance tags: peer:<name>:<agent>).', required: true }),
    url: Args.string({ description: 'The peer server’s MCP endpoint.', required: true }),
  };
  static override flags = {
    'token-env': Flags.string({
      description: 'BOURDON_PEER_* variable holding the bearer token.',
      default: DEFAULT_TOKEN_ENV,
    }),
  };

  async run(): Promise<{ added: PeerConfig; path: string }> {
    const { args, flags } = await this.parse(PeersAdd);
    const peer = {
      name: checkPeerName(args.name),
      url: normalisePeerUrl(args.url),
      token_env: checkPeerTokenEnv(flags['token-env']),
    };
    const file = configPaths(process.env).peers;
    editPeersFile(file, (peers) => {
      if (peers.some((existing) => existing.name === peer.name)) {
        throw new BourdonError(`peer ${JSON.stringify(peer.name)} already exists; remove it first`, 'conflict');
      }
      peers.push(peer);
    });
    // Said now, as doctor says it: else the first sign is a federated query with no peer rows.
    if (!peerTokenSet(peer, process.env))
      cliWarn(
        `$${peer.token_env} is not set in this shell: export the token ${peer.name} issued before \`bourdon serve --federate\``,
      );
    return this.emit(
      { added: peer, path: file },
      () => `added peer ${peer.name} → ${peer.url} (token from $${peer.token_env})`,
    );
  }
}
