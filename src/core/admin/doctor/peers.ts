/**
 * Doctor's peer checks: the peers file, the token variables this shell sets, and (unless
 * offline) whether each peer answers, through the probe the command supplies.
 */
import fs from 'node:fs';
import { describeError } from '../../errors.js';
import type { Env } from '../../store/config.js';
import { loadPeersFile, peerTokenSet, type PeerConfig } from '../../federation/peers-config.js';
import { check, plural, type CheckResult } from './check.js';

export interface PeerProbe {
  reachable: boolean;
  latency_ms: number | null;
  error: string | null;
  /** What was left out of its answer as not fitting; the peer still answered. */
  left_out?: string | null;
}

export async function peersChecks(
  file: string,
  env: Env,
  probe: ((peer: PeerConfig) => Promise<PeerProbe>) | undefined,
): Promise<CheckResult[]> {
  if (!fs.existsSync(file)) return [check('peers', 'peers', 'info', `no peers file (${file}): local only`)];
  let peers: PeerConfig[];
  try {
    peers = loadPeersFile(file);
  } catch (error) {
    return [
      check('peers', 'peers', 'fail', describeError(error), ['`serve --federate` refuses to start until it is fixed']),
    ];
  }
  if (peers.length === 0) return [check('peers', 'peers', 'info', `${file} lists no peers`)];
  const unset = peers.filter((peer) => !peerTokenSet(peer, env));
  const out: CheckResult[] = [];
  out.push(
    unset.length
      ? check(
          'peers',
          'peers',
          'warn',
          `${plural(peers.length, 'peer')}; ${plural(unset.length, 'token variable')} not set in this shell`,
          unset.map((peer) => `${peer.name}: $${peer.token_env} is not set`),
        )
      : check('peers', 'peers', 'ok', `${plural(peers.length, 'peer')} in ${file}`),
  );
  if (!probe) {
    out.push(check('reachability', 'reachability', 'info', 'not checked (--offline)'));
    return out;
  }
  const results = await Promise.all(peers.map(async (peer) => ({ peer, result: await probe(peer) })));
  const down = results.filter(({ result }) => !result.reachable);
  const details = results.map(({ peer, result }) =>
    result.reachable
      ? `${peer.name}: reachable in ${result.latency_ms ?? '?'} ms${result.left_out ? `; ${result.left_out}` : ''}`
      : `${peer.name}: unreachable (${result.error ?? 'no answer'})`,
  );
  out.push(
    down.length
      ? check(
          'reachability',
          'reachability',
          'fail',
          `${down.length} of ${plural(peers.length, 'peer')} unreachable`,
          details,
        )
      : check('reachability', 'reachability', 'ok', `every peer answered`, details),
  );
  return out;
}
