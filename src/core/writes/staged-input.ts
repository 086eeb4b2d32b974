/**
 * What a quarantined member's write must satisfy before it is staged: the live write's checks
 * with staging's wording of row problems, no `mode: replace` (promotion always merges), and a
 * known agent type.
 */
import { AGENT_TYPES } from '../store/manifest.js';
import { enumError, precheckCommit, type CommitArgs, type CommitRules, type RowProblem } from './commit-input.js';

/** Staging's wording of row problems: one line per kind, whatever the reason. */
function stagedRowMessage(problem: RowProblem): string {
  if (problem.kind === 'entity') return "each entity needs a non-empty 'name'";
  if (problem.kind === 'session') return "each session needs a non-empty ISO-8601 'date'";
  return "each note needs a non-empty 'text' and a 'date' (YYYY-MM-DD or an ISO datetime)";
}

const STAGING_RULES: CommitRules = {
  rowMessage: stagedRowMessage,
  modeRefusal: (mode) =>
    mode === 'replace'
      ? "mode 'replace' is not available to quarantined members: staged writes are merged when an operator promotes them"
      : null,
};

/** The live write's checks with staging's rules, then the agent type (the live write checks it later). */
export function validateStaged(args: CommitArgs): string | null {
  const problem = precheckCommit(args, STAGING_RULES);
  if (problem) return problem;
  if (args.agent_type && !(AGENT_TYPES as readonly string[]).includes(args.agent_type)) {
    return enumError(args.agent_type);
  }
  return null;
}
