/**
 * The write and history operations' input schemas, each built by a function (a one-shot CLI
 * call builds only the one it validates with), and the input types their handlers take:
 * exactly what the schema produces (`z.output`, defaults filled in). They live here, below
 * `operations`, so the handlers in this part are typed from them; write-operations.ts pairs
 * each schema with its handler.
 */
import * as z from 'zod';
import { optionalInteger, optionalText, requiredInteger } from '../lax-input.js';

const rows = (what: string) => z.array(z.record(z.string(), z.unknown())).nullable().default(null).describe(what);

/** The most versions one list_memory_versions call answers (larger limits are clamped). */
export const MAX_VERSION_LIMIT = 1000;

export const commitInput = () =>
  z.object({
    agent_id: z.string().describe('The agent id: ^[a-z0-9][a-z0-9_-]*$, at most 64 characters.'),
    agent_type: optionalText().describe(
      'L5 agent type (code-assistant, note-capture, local-swarm, customer-support, research-assistant, creative-collaborator, project-manager, tutor, other).',
    ),
    instance: optionalText().describe("Where this agent runs (a host name or URL): the manifest's agent.instance."),
    role_narrative: optionalText().describe(
      "A sentence or two on what this agent does: the manifest's agent.role_narrative.",
    ),
    entities: rows(
      'Entity rows: name (required), type, aliases, summary, last_touched, valid_from, valid_to, tags, visibility.',
    ),
    sessions: rows('Session rows: date (required), cwd, project_focus, key_actions, files_touched, visibility.'),
    notes: rows(
      'Note rows: date (required; a day or an ISO datetime), text (required), title, tags, project_focus, visibility.',
    ),
    mode: z.string().optional().default('merge').describe("'merge' or 'replace'."),
  });
/** commit_to_federation's input, as its handler takes it. */
export type CommitInput = z.output<ReturnType<typeof commitInput>>;
/** commit_to_federation's input as a caller gives it, before the schema fills in defaults. */
export type CommitRequest = z.input<ReturnType<typeof commitInput>>;

type RowKey = 'entities' | 'sessions' | 'notes';

/**
 * A commit as the write path checks it (`precheckCommit`): a request whose rows no schema has
 * checked yet — a CLI input file's, a staged file's on promotion — so a row may be anything.
 */
export type CommitArgs = Omit<CommitRequest, RowKey> & { [K in RowKey]?: unknown[] | null };

export const listVersionsInput = () =>
  z.object({
    agent_id: z.string().describe('The agent whose manifest history is listed: an agent id, as list_agents gives it.'),
    limit: optionalInteger(
      'How many versions, newest first (default 20); a value below 1 is read as 1 and one above 1000 as 1000.',
    ),
  });
export type ListVersionsInput = z.output<ReturnType<typeof listVersionsInput>>;

export const explainInput = () =>
  z.object({
    agent_id: z.string().describe('The agent whose manifest changed: an agent id, as list_agents gives it.'),
    version: requiredInteger().describe('The version to explain, as list_memory_versions numbers it.'),
    against: optionalInteger('The version to compare with (default: the one before `version`).'),
  });
export type ExplainInput = z.output<ReturnType<typeof explainInput>>;

export const rollbackInput = () =>
  z.object({
    agent_id: z.string().describe('The agent whose manifest is rolled back: an agent id, as list_agents gives it.'),
    version: requiredInteger().describe('The version to restore, as list_memory_versions numbers it.'),
    reason: optionalText().describe('Why: kept in the audit log.'),
  });
export type RollbackInput = z.output<ReturnType<typeof rollbackInput>>;
