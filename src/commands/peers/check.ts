import { Flags } from '@oclif/core';
import { BaseCommand, NO_LIBRARY_FLAGS } from '../../cli/base-command.js';
import { colors, styled, table, wrap } from '../../cli/output.js';
import { wideFlag } from '../../cli/flags.js';
import { configPaths } from '../../core/store/config.js';
import { readPeersForEdit } from '../../core/federation/peers-config.js';
import type { PeerCheck } from '../../mcp/peer-check.js';

export default class PeersCheck extends BaseCommand {
  static override baseFlags = NO_LIBRARY_FLAGS;
  static override summary = 'Call every peer and report reachability, latency, protocol era and agent count.';
  static override description =
    'Connects to each peer in ~/.bourdon/peers.yaml with its token (from its BOURDON_PEER_* variable), negotiates the protocol era as a server would, and calls list_agents. Shows a progress line on a terminal. Exits 1 when any peer is unreachable. `bourdon doctor` runs the same check among others.';
  static override examples = ['<%= config.bin %> peers check', '<%= config.bin %> peers check --json'];
  static override flags = {
    timeout: Flags.integer({ description: 'Budget per peer, in milliseconds.', default: 5000 }),
    ...wideFlag,
  };

  async run(): Promise<{ peers: PeerCheck[] }> {
    const { flags } = await this.parse(PeersCheck);
    const peers = readPeersForEdit(configPaths(process.env).peers);
    const { checkPeer } = await import('../../mcp/peer-check.js');
    const spinner =
      !this.jsonEnabled() && process.stderr.isTTY && peers.length
        ? this.startProgress(`checking ${peers.length} peer(s)…`)
        : null;
    const results = await Promise.all(peers.map((peer) => checkPeer(peer, process.env, flags.timeout)));
    spinner?.();
    const c = colors();
    const payload = this.emit({ peers: results }, () =>
      results.length
        ? table(
            ['PEER', 'STATUS', 'LATENCY', 'PROTOCOL', 'AGENTS', 'NOTE'],
            results.map((r) => [
              r.name,
              r.reachable ? styled('reachable', c.green) : styled('unreachable', c.red),
              r.latency_ms === null ? '-' : `${r.latency_ms} ms`,
              r.protocol_version ? `${r.protocol_era} ${r.protocol_version}` : '-',
              r.agent_count === null ? '-' : String(r.agent_count),
              r.error ?? '',
            ]),
            { flex: [5] },
          ) + failures(results)
        : 'No peers configured.',
    );
    if (results.some((r) => !r.reachable)) this.exitAfter(payload, 1);
    return payload;
  }
}

/** Each failure whole under the table (the NOTE column is cut to fit): what failed, what to do. */
function failures(results: readonly { name: string; reachable: boolean; error: string | null }[]): string {
  const failed = results.filter((r) => !r.reachable && r.error);
  return failed.length ? '\n\n' + failed.map((r) => wrap(`${r.name}: ${r.error}`)).join('\n') : '';
}
