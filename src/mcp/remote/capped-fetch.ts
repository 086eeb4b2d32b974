/**
 * What is read of another server's answer, capped as it arrives (after any decompression): a
 * 60 MB answer is cut off at the cap, not buffered whole and parsed.
 */
import { AnswerTooLarge } from '../../core/federation/remote-failure.js';

/**
 * Largest answer read from a peer: 2 MiB, twice the request body this server accepts. Our own
 * answers to a peer stay far below it (at most 100 sessions, notes or workstreams, or one
 * name's matches).
 */
export const MAX_PEER_RESPONSE_BYTES = 2 * 1024 * 1024;

/**
 * Largest answer the bridge relays to its host: a whole library's export (`export_agents`) or
 * a full page of versions is far larger than a peer's fan-out answer, so the cap is wider; it
 * still bounds what a runaway or hostile server can make the bridge hold.
 */
export const MAX_BRIDGED_RESPONSE_BYTES = 64 * 1024 * 1024;

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
      throw new AnswerTooLarge(limit);
    }
    if (!response.body) return response;
    let seen = 0;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > limit) controller.error(new AnswerTooLarge(limit));
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
