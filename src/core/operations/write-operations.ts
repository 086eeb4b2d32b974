/**
 * The four write and history operations, declared (operation.ts): commit_to_federation and the
 * version tools, with their handlers in writes/commit.ts and writes/versions.ts. The MCP tool and
 * the CLI command both derive from these declarations.
 */
import * as z from 'zod';
import { commitToFederation } from '../writes/commit.js';
import { explainMemoryChange, listMemoryVersions, rollbackAgentMemory } from '../writes/versions.js';
import { agentIdNamespace, defineOperation, optionalInteger, optionalText, requiredInteger } from './operation.js';

const rows = (what: string) => z.array(z.record(z.string(), z.unknown())).nullable().default(null).describe(what);

export const commitToFederationOperation = defineOperation({
  name: 'commit_to_federation',
  description:
    "Write to an agent's manifest in the library: merge (default) or replace its entities, sessions and notes. Entities dedupe by lower-cased name, sessions by (date, cwd), notes by (date, text); list fields are unioned. agent_type is required for a new manifest. Answers the write summary with the new version. Quarantined members may write only their own id, and their writes are staged for an operator's review.",
  input: () =>
    z.object({
      agent_id: z.string().describe('The agent id: ^[a-z0-9][a-z0-9_-]*$, at most 64 characters.'),
      agent_type: optionalText().describe(
        'L5 agent type (code-assistant, note-capture, local-swarm, customer-support, research-assistant, creative-collaborator, project-manager, tutor, other).',
      ),
      instance: optionalText(),
      role_narrative: optionalText(),
      entities: rows(
        'Entity rows: name (required), type, aliases, summary, last_touched, valid_from, valid_to, tags, visibility.',
      ),
      sessions: rows('Session rows: date (required), cwd, project_focus, key_actions, files_touched, visibility.'),
      notes: rows(
        'Note rows: date (required; a day or an ISO datetime), text (required), title, tags, project_focus, visibility.',
      ),
      mode: z.string().optional().default('merge').describe("'merge' or 'replace'."),
    }),
  namespace: agentIdNamespace,
  run: (ctx, input) => commitToFederation(ctx, input),
});

export const listMemoryVersionsOperation = defineOperation({
  name: 'list_memory_versions',
  description:
    "The versions of an agent's manifest, newest first: every write this server or CLI made, plus edits other tools made in between (op external). Each with its time, op, actor, hash, size, row counts and whether it is the current one.",
  input: () =>
    z.object({
      agent_id: z.string(),
      limit: optionalInteger('How many versions, newest first (default 20, at most 1000).'),
    }),
  namespace: agentIdNamespace,
  run: listMemoryVersions,
});

export const explainMemoryChangeOperation = defineOperation({
  name: 'explain_memory_change',
  description:
    "What changed in an agent's manifest between two versions (default: the version before): entities, sessions and notes added, removed or changed, field by field, redacted. Never returns the raw file.",
  input: () =>
    z.object({
      agent_id: z.string(),
      version: requiredInteger(),
      against: optionalInteger('The version to compare with (default: the one before `version`).'),
    }),
  namespace: agentIdNamespace,
  run: explainMemoryChange,
});

export const rollbackAgentMemoryOperation = defineOperation({
  name: 'rollback_agent_memory',
  description:
    "Restore an agent's manifest to an earlier version, byte for byte, recorded as a new version (op rollback). Trusted callers only; audited before it happens and refused when the audit record cannot be written.",
  input: () =>
    z.object({
      agent_id: z.string(),
      version: requiredInteger(),
      reason: optionalText().describe('Why: kept in the audit log.'),
    }),
  namespace: agentIdNamespace,
  run: rollbackAgentMemory,
});
