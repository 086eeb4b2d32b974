/**
 * "Did you mean …?": the closest command id by edit distance for a mistyped command, and the
 * closest agent ids for an agent id that names no manifest.
 */
import type { OperationContext } from '../core/context.js';
import { BourdonError } from '../core/errors.js';
import { editDistance, unknownAgentMessage } from '../core/store/suggest.js';

export { editDistance };

interface Suggestion {
  /** The command id (words joined by ':'). */
  id: string;
  /** The words typed after the mistyped command, kept as they were. */
  rest: string[];
}

/**
 * The command the user most likely meant by `typed` (words joined by ':', as oclif passes an
 * unknown id), or null when nothing is close: at most 1 edit for short words, 2 for longer,
 * or a unique-enough prefix of 3 letters or more ("work" → workstreams).
 */
export function closestCommand(typed: string, ids: readonly string[]): Suggestion | null {
  const words = typed.split(':');
  let best: { id: string; distance: number; used: number } | null = null;
  for (const id of ids) {
    const used = Math.min(id.split(':').length, words.length);
    const candidate = words.slice(0, used).join(':');
    let distance = editDistance(candidate.toLowerCase(), id);
    if (candidate.length >= 3 && id.startsWith(candidate.toLowerCase())) distance = Math.min(distance, 1);
    const allowed = candidate.length <= 4 ? 1 : 2;
    if (distance > allowed) continue;
    if (!best || distance < best.distance || (distance === best.distance && used > best.used))
      best = { id, distance, used };
  }
  return best ? { id: best.id, rest: words.slice(best.used) } : null;
}

/**
 * An agent id that names no manifest in the library is an error (exit 1) naming the closest
 * ids, rather than an empty answer that looks like "knows nothing". Peer ids pass.
 */
export function assertAgentExists(ctx: OperationContext, agentId: string): void {
  const message = unknownAgentMessage(agentId, ctx.store.snapshot().byId.keys());
  if (message) throw new BourdonError(message, 'not_found');
}
