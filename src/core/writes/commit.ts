/**
 * commit_to_federation (spec §5.10): one operation, two destinations. A trusted caller's
 * commit is merged into the live store as a new version; any other caller's is staged for an
 * operator's review (the MCP guard has already refused namespaces other than the caller's own).
 */
import type { OperationContext } from '../context.js';
import type { DenialPayload, OneOf } from '../payload.js';
import { stageCommit, type StagedCommit } from './staging.js';
import type { CommitInput } from './inputs.js';
import { commitLive, type CommitFailure, type CommitSummary } from './writes.js';

/** A live write's summary, a staged write's receipt, a refusal, or a denial (another's namespace). */
export type CommitOutput = OneOf<CommitSummary | StagedCommit | CommitFailure | DenialPayload>;

export async function commitToFederation(ctx: OperationContext, args: CommitInput): Promise<CommitOutput> {
  if (ctx.caller.tier !== 'trusted') return stageCommit(ctx, args);
  return commitLive(ctx, args, { op: 'commit', actor: ctx.caller.agent_id, ceiling: ctx.caller.ceiling });
}
