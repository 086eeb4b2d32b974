/**
 * commit_to_federation (spec §5.10): one operation, two destinations. A trusted caller's
 * commit is merged into the live store as a new version; any other caller's is staged for an
 * operator's review (the MCP guard has already refused namespaces other than the caller's own).
 * Either way the secret values in what it brings are redacted first (trust/redaction.ts): a
 * commit is where text from an agent enters the library.
 */
import type { OperationContext } from '../context.js';
import { redactSecretsIn } from '../trust/redaction.js';
import type { DenialPayload, OneOf } from '../payload.js';
import { stageCommit, type StagedCommit } from './staging.js';
import type { CommitInput } from './inputs.js';
import { commitLive, type CommitFailure, type CommitSummary } from './writes.js';

/** A live write's summary, a staged write's receipt, a refusal, or a denial (another's namespace). */
export type CommitOutput = OneOf<CommitSummary | StagedCommit | CommitFailure | DenialPayload>;

export async function commitToFederation(ctx: OperationContext, input: CommitInput): Promise<CommitOutput> {
  const args: CommitInput = {
    ...input,
    instance: redactSecretsIn(input.instance),
    role_narrative: redactSecretsIn(input.role_narrative),
    entities: redactSecretsIn(input.entities),
    sessions: redactSecretsIn(input.sessions),
    notes: redactSecretsIn(input.notes),
  };
  if (ctx.caller.tier !== 'trusted') return stageCommit(ctx, args);
  return commitLive(ctx, args, { op: 'commit', actor: ctx.caller.agent_id, ceiling: ctx.caller.ceiling });
}
