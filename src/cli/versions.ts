/**
 * What `rollback` and `diff` answer for an agent or a version that is not there, in the same
 * words as `history`: an unknown agent names the closest ids, an unknown version names the
 * versions the agent has.
 */
import type { OperationContext } from '../core/context.js';
import { BourdonError } from '../core/errors.js';
import { assertAgentExists } from './suggest.js';

/** "versions 1–4 and 6", "version 2": the versions kept, as ranges. */
function versionRanges(numbers: readonly number[]): string {
  const sorted = [...new Set(numbers)].sort((a, b) => a - b);
  const ranges: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    ranges.push(j === i ? `${sorted[i]}` : `${sorted[i]}–${sorted[j]}`);
    i = j + 1;
  }
  const words = ranges.length > 1 ? `${ranges.slice(0, -1).join(', ')} and ${ranges[ranges.length - 1]}` : ranges[0];
  return `${sorted.length === 1 ? 'version' : 'versions'} ${words}`;
}

/**
 * Throws (exit 1) when `agentId` has no recorded versions (naming the closest agent ids when
 * there is no such agent; `nothing` says what that means for the command) or lacks one of
 * `wanted`, naming the versions it has.
 */
export function assertVersionsExist(
  ctx: OperationContext,
  agentId: string,
  held: readonly number[],
  wanted: readonly number[],
  nothing: string,
): void {
  if (held.length === 0) {
    assertAgentExists(ctx, agentId);
    throw new BourdonError(
      `${agentId} has no recorded versions yet (the first write records them)${nothing}`,
      'not_found',
    );
  }
  const missing = wanted.find((version) => !held.includes(version));
  if (missing === undefined) return;
  throw new BourdonError(
    `${agentId} has no version ${missing}; it has ${versionRanges(held)} (\`bourdon history ${agentId}\`)`,
    'not_found',
  );
}
