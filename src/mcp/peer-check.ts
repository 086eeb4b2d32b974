/**
 * One-off health check of a peer (`bourdon peers check`, `doctor`): connect, list its agents,
 * report; a failure in words a person acts on (what failed and what to do) instead of the
 * SDK's own text ("Version negotiation probe failed: fetch failed").
 */
import type { Env } from '../core/context.js';
import type { PeerConfig } from '../core/federation/peers-config.js';
import { MAX_PEER_ERROR_CHARS, PEER_BUDGET_MS } from './peer-client.js';
import { readAnswer } from './remote/answer.js';
import { MAX_PEER_RESPONSE_BYTES } from './remote/capped-fetch.js';
import { remoteClient, withinBudget } from './remote/client.js';
import { RemoteHttpRefusal } from '../core/federation/remote-failure.js';
import { classifySdkFailure, maskedReason } from './remote/failure.js';

export interface PeerCheck {
  name: string;
  url: string;
  reachable: boolean;
  latency_ms: number | null;
  protocol_era: string | null;
  protocol_version: string | null;
  agent_count: number | null;
  error: string | null;
  /** What was left out of its list_agents answer as not fitting (a number for an id), or null. */
  left_out: string | null;
}

export async function checkPeer(
  peer: PeerConfig,
  env: Env = process.env,
  budgetMs = PEER_BUDGET_MS,
): Promise<PeerCheck> {
  const started = Date.now();
  const token = env[peer.token_env];
  // The SDK reports a failed request without its cause: keep the last one fetch threw, and the
  // status of a refusal, so the report can say what failed (DNS, refused, TLS, the token).
  let lastFailure: unknown = null;
  const recording: typeof fetch = async (input, init) => {
    try {
      const response = await fetch(input, init);
      if (response.status === 401 || response.status === 403) lastFailure = new RemoteHttpRefusal(response.status);
      return response;
    } catch (error) {
      lastFailure = error;
      throw error;
    }
  };
  const { client, transport } = remoteClient({
    url: peer.url,
    token,
    clientName: 'bourdon-peer-check',
    maxResponseBytes: MAX_PEER_RESPONSE_BYTES,
    fetch: recording,
  });
  const base = { name: peer.name, url: peer.url };
  try {
    const work = (async () => {
      await client.connect(transport);
      const result = await client.callTool(
        { name: 'list_agents', arguments: { federation_hop: 1 } },
        { timeout: budgetMs },
      );
      const read = readAnswer('list_agents', result);
      const agents = read.payload.agents;
      return { count: Array.isArray(agents) ? agents.length : null, leftOut: read.leftOut };
    })();
    const { count, leftOut } = await withinBudget(work, budgetMs);
    return {
      ...base,
      reachable: true,
      latency_ms: Date.now() - started,
      protocol_era: client.getProtocolEra?.() ?? null,
      protocol_version: client.getNegotiatedProtocolVersion?.() ?? null,
      agent_count: count,
      error: token ? null : `${peer.token_env} is not set`,
      left_out: leftOut,
    };
  } catch (error) {
    return {
      ...base,
      reachable: false,
      latency_ms: null,
      protocol_era: null,
      protocol_version: null,
      agent_count: null,
      error: peerFailure(lastFailure ?? error, peer, budgetMs, token),
      left_out: null,
    };
  } finally {
    await client.close().catch(() => {});
  }
}

/** Why a peer could not be reached: what failed (DNS, a refused connection, TLS, a timeout, the token) and what to do. */
function peerFailure(error: unknown, peer: PeerConfig, budgetMs: number, token: string | undefined): string {
  let host = peer.url;
  let where = peer.url;
  try {
    ({ hostname: host, host: where } = new URL(peer.url));
  } catch {
    // an unparseable URL is named as written
  }
  const remove = `\`bourdon peers remove ${peer.name}\``;
  const timeout = `timeout: no answer from ${where} within ${budgetMs} ms; is the machine up? Else ${remove}`;
  const failure = classifySdkFailure(error, peer.url);
  if (failure.kind === 'http' && (failure.status === 401 || failure.status === 403))
    return `the peer refused the token (HTTP ${failure.status}): check that ${peer.token_env} holds a member token ${peer.name} issued (\`bourdon agent add\` there)`;
  if (failure.kind === 'timeout') return timeout;
  if (failure.kind === 'blocked-port')
    return `fetch refuses port ${failure.port} (a port reserved for other protocols); serve the peer on another port, or ${remove}`;
  if (failure.kind === 'network') {
    switch (failure.cause) {
      case 'dns':
        return `DNS: ${host} does not resolve; check the URL in peers.yaml (is the machine on this network?), or ${remove}`;
      case 'refused':
        return `connection refused at ${where}: nothing listens there; start \`bourdon serve --transport http\` on that machine, or ${remove}`;
      case 'tls':
        return `TLS failed (${failure.code}): the certificate of ${where} is not trusted here; fix it on that machine, or ${remove}`;
      case 'connect-timeout':
        return timeout;
      case 'dropped':
        return `the network dropped the connection to ${where} (${failure.code}); try again, or ${remove}`;
    }
  }
  return maskedReason(error, token).slice(0, MAX_PEER_ERROR_CHARS);
}
