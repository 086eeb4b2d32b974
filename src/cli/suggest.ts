/**
 * "Did you mean …?": the closest command id by edit distance for a mistyped command, and the
 * closest agent ids for an agent id that names no manifest.
 */
import type { OperationContext } from '../core/context.js';
import { BourdonError } from '../core/errors.js';

/** Edit distance where swapping two neighbouring letters counts once ("agnets" → "agents"). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

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
  if (agentId.startsWith('peer:')) return;
  const ids = [...ctx.store.snapshot().byId.keys()];
  if (ids.includes(agentId)) return;
  const close = ids
    .map((id) => ({ id, distance: editDistance(agentId, id) }))
    .filter((entry) => entry.distance <= Math.max(2, Math.floor(agentId.length / 3)))
    .sort((a, b) => a.distance - b.distance || a.id.localeCompare(b.id))
    .slice(0, 3)
    .map((entry) => entry.id);
  const hint = close.length ? `; did you mean ${close.join(', ')}?` : '; `bourdon agents` lists them';
  throw new BourdonError(`no agent "${agentId}" in this library${hint}`, 'not_found');
}
