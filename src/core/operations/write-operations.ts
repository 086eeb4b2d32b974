/**
 * The four write and history operations, declared (operation.ts): commit_to_federation and the
 * version tools, with their handlers in writes/commit.ts and writes/versions.ts. The MCP tool and
 * the CLI command both derive from these declarations.
 */
import { commitToFederation } from '../writes/commit.js';
import { commitInput, explainInput, listVersionsInput, rollbackInput } from '../writes/inputs.js';
import { explainMemoryChange, listMemoryVersions, rollbackAgentMemory } from '../writes/versions.js';
import { commitAnswer, explainAnswer, listVersionsAnswer, rollbackAnswer } from './answers.js';
import { agentIdNamespace, defineOperation, LOCAL_READ, type ToolHints } from './operation.js';

/**
 * A commit may replace an agent's rows (mode replace): destructive. A repeated merge writes
 * nothing new, but a repeated replace or a commit with a fresh clock does: not idempotent.
 */
const COMMIT_HINTS: ToolHints = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
};

/** A rollback writes a new version and keeps every earlier one: nothing is lost. */
const ROLLBACK_HINTS: ToolHints = { ...COMMIT_HINTS, destructiveHint: false };

export const commitToFederationOperation = defineOperation({
  name: 'commit_to_federation',
  title: "Write to an agent's memory",
  annotations: COMMIT_HINTS,
  output: commitAnswer,
  description:
    "Write to an agent's manifest in the library: merge (default) or replace its entities, sessions and notes. Entities dedupe by lower-cased name, sessions by (date, cwd), notes by (date, text); list fields are unioned. agent_type is required for a new manifest. Answers the write summary with the new version. Quarantined members may write only their own id, and their writes are staged for an operator's review.",
  input: commitInput,
  namespace: agentIdNamespace,
  run: commitToFederation,
});

export const listMemoryVersionsOperation = defineOperation({
  name: 'list_memory_versions',
  title: "Versions of an agent's memory",
  annotations: LOCAL_READ,
  output: listVersionsAnswer,
  description:
    "The versions of an agent's manifest, newest first: every write this server or CLI made, plus edits other tools made in between (op external). Each with its time, op, actor, hash, size, row counts and whether it is the current one.",
  input: listVersionsInput,
  namespace: agentIdNamespace,
  run: listMemoryVersions,
});

export const explainMemoryChangeOperation = defineOperation({
  name: 'explain_memory_change',
  title: 'What changed between two versions',
  annotations: LOCAL_READ,
  output: explainAnswer,
  description:
    "What changed in an agent's manifest between two versions (default: the version before): entities, sessions and notes added, removed or changed, field by field, redacted. Never returns the raw file.",
  input: explainInput,
  namespace: agentIdNamespace,
  run: explainMemoryChange,
});

export const rollbackAgentMemoryOperation = defineOperation({
  name: 'rollback_agent_memory',
  title: 'Restore an earlier version',
  annotations: ROLLBACK_HINTS,
  output: rollbackAnswer,
  description:
    "Restore an agent's manifest to an earlier version, byte for byte, recorded as a new version (op rollback). Trusted callers only; audited before it happens and refused when the audit record cannot be written.",
  input: rollbackInput,
  namespace: agentIdNamespace,
  auditsItself: true,
  run: rollbackAgentMemory,
});
