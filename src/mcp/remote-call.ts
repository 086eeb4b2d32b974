/**
 * Calling another Bourdon server (a peer; the Python engine's or ours), said once: the cap on
 * what is read of its answer, the reading of that answer through the answer model, the
 * failure classes a person acts on (DNS, refused, TLS, timeout, the token) and the token mask
 * every reported error passes through.
 */
import type { PeerConfig } from '../core/federation/peers-config.js';
import { describeError } from '../core/errors.js';
import type { AnyAnswer } from '../core/payload.js';
import { readPeerAnswer } from '../core/operations/peer-answers.js';

/**
 * Largest answer read from a peer, counted as it arrives (after any decompression): 2 MiB,
 * twice the request body this server accepts. Our own answers to a peer stay far below it
 * (at most 100 sessions, notes or workstreams, or one name's matches); a 60 MB answer is cut
 * off at 2 MiB, not buffered whole and parsed.
 */
export const MAX_PEER_RESPONSE_BYTES = 2 * 1024 * 1024;

/** Thrown (and reported as the peer's error) when a peer's answer passes the cap. */
class PeerAnswerTooLarge extends Error {
  constructor(limit: number) {
    super(`peer answer over ${limit} bytes; ignored`);
  }
}

/**
 * A fetch whose response body fails as soon as more than `limit` bytes have arrived: a
 * declared Content-Length over the limit fails at once, and a body without one is counted
 * chunk by chunk, so the event loop is free between chunks and the budget timer can fire.
 * Cancelling the body closes the connection: nothing past the limit is kept.
 */
export function cappedFetch(limit: number, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    const declared = Number(response.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > limit) {
      await response.body?.cancel().catch(() => {});
      throw new PeerAnswerTooLarge(limit);
    }
    if (!response.body) return response;
    let seen = 0;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > limit) controller.error(new PeerAnswerTooLarge(limit));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/**
 * The payload of a peer's tool result, read as the engine's own peer client reads it (the
 * first text item, JSON) and parsed through the answer model (readPeerAnswer): an answer that
 * does not fit, a refusal or an error result is thrown as the peer's error, one line.
 */
export function answerPayload(tool: string, result: { content?: unknown; isError?: unknown }): AnyAnswer {
  const first: unknown = Array.isArray(result.content) ? result.content[0] : undefined;
  const text = first && typeof first === 'object' && 'text' in first ? first.text : undefined;
  if (typeof text !== 'string') throw new Error(`peer answered ${tool} without a text result`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error(`peer answered ${tool} with text that is not JSON`);
  }
  const read = readPeerAnswer(tool, raw);
  if ('error' in read) throw new Error(read.error);
  if (result.isError) throw new Error(`peer answered ${tool} with an error result`);
  return read.payload;
}

/** Strips anything token-like from an error before it is reported. */
export function safeMessage(error: unknown): string {
  return maskTokens(describeError(error)).slice(0, 200);
}

/**
 * Text with anything token-like masked: the token itself when the caller knows it, every
 * `bdn_…` token, a Bearer header's value. The one mask of the bridge and the peer client.
 */
export function maskTokens(text: string, token?: string): string {
  const masked = token ? text.split(token).join('[token]') : text;
  return masked.replace(/bdn_[0-9a-f]+/gi, '[token]').replace(/Bearer\s+\S+/gi, 'Bearer [token]');
}

/** The codes of a failed TLS handshake (Node's and OpenSSL's), as fetch reports them. */
const TLS_CODES = /^(CERT_|ERR_TLS_|ERR_SSL_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_|EPROTO$)/;

/** Every error in a cause chain (fetch hides the system error two causes down). */
function causes(error: unknown): (Error & { code?: unknown; status?: unknown })[] {
  const chain: (Error & { code?: unknown })[] = [];
  for (let at = error, depth = 0; at instanceof Error && depth < 6; at = at.cause, depth++) {
    chain.push(at);
    // Both addresses of a host failing (IPv4 and IPv6) come as one AggregateError.
    if (at instanceof AggregateError) chain.push(...at.errors.filter((e): e is Error => e instanceof Error));
  }
  return chain;
}

/**
 * Why a peer could not be reached, in words a person acts on: what failed (DNS, a refused
 * connection, TLS, a timeout, the token) and what to do, instead of the SDK's own text
 * ("Version negotiation probe failed: fetch failed").
 */
export function peerFailure(error: unknown, peer: PeerConfig, budgetMs: number): string {
  const chain = causes(error);
  const code = chain.map((e) => e.code).find((c): c is string => typeof c === 'string');
  const text = chain.map((e) => e.message).join(' ');
  const status =
    /\b(401|403)\b/.exec(text)?.[1] ?? chain.map((e) => e.status ?? e.code).find((c) => c === 401 || c === 403);
  let where: string;
  try {
    const url = new URL(peer.url);
    where = url.host;
  } catch {
    where = peer.url;
  }
  const remove = `or \`bourdon peers remove ${peer.name}\``;
  if (status !== undefined)
    return `the peer refused the token (HTTP ${status}): check that ${peer.token_env} holds a member token ${peer.name} issued (\`bourdon agent add\` there)`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `DNS: ${where.replace(/:\d+$/, '')} does not resolve; check the URL in peers.yaml (is the machine on this network?), ${remove}`;
  if (code === 'ECONNREFUSED')
    return `connection refused at ${where}: nothing listens there; start \`bourdon serve --transport http\` on that machine, ${remove}`;
  if (code !== undefined && TLS_CODES.test(code))
    return `TLS failed (${code}): the certificate of ${where} is not trusted here; fix it on that machine, ${remove}`;
  if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' || /no answer within/.test(text))
    return `timeout: no answer from ${where} within ${budgetMs} ms; is the machine up? ${remove.replace(/^or /, 'Else ')}`;
  if (/\bbad port\b/.test(text))
    return `fetch refuses port ${where.replace(/^.*:/, '')} (a port reserved for other protocols); serve the peer on another port, ${remove}`;
  if (code === 'ECONNRESET' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH')
    return `the network dropped the connection to ${where} (${code}); try again, ${remove}`;
  return safeMessage(error);
}
