/**
 * The read operations' input schemas, each built by a function (a one-shot CLI call builds only
 * the one it validates with), and the input types their handlers take: exactly what the schema
 * produces (`z.output`), defaults filled in, so a handler cannot ask for a field the schema
 * never gives it. read-operations.ts pairs each schema with its handler.
 */
import * as z from 'zod';
import { integerWithDefault, laxFlag, optionalInteger, optionalText } from '../lax-input.js';
import { accessShape, federationHop } from './operation.js';

/** A page's size when a call does not say, and the most one page holds (every paged tool). */
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/**
 * Any integer is taken and clamped into 1 to MAX_PAGE_SIZE, as the engine does: hosts are told
 * exactly that (a `maximum` in the schema would have a validating client refuse what the server
 * answers).
 */
const pageLimit = () =>
  optionalInteger(
    `Page size (default ${DEFAULT_PAGE_SIZE}); a value below 1 is read as 1 and one above ${MAX_PAGE_SIZE} as ${MAX_PAGE_SIZE}.`,
  );
/** The cursor argument of every paged tool. */
const pageCursor = () =>
  optionalText().describe(
    'The next_cursor of the previous page, to read the page after it; leave it out for the first.',
  );
/** An agent id argument: which agent a call reads. */
const agentId = (what: string) => z.string().describe(`${what}: an agent id, as list_agents gives it.`);
/** An optional agent filter. */
const agentFilter = (what: string) =>
  optionalText().describe(`Only this agent's ${what} (an id, as list_agents gives it); leave it out for every agent.`);
const sinceDay = () => optionalText().describe('YYYY-MM-DD or an ISO datetime; its calendar day as written.');

export const queryAgentMemoryInput = () =>
  z.object({
    agent: agentId('The agent whose memory is read'),
    topic: z
      .string()
      .describe('What to look up: an entity name or alias, matched case-insensitively as find_entity does.'),
    ...accessShape('public'),
  });
export type QueryAgentMemoryInput = z.output<ReturnType<typeof queryAgentMemoryInput>>;

export const listRecentWorkInput = () =>
  z.object({
    since: sinceDay(),
    agent: agentFilter('sessions'),
    ...accessShape('public'),
    limit: pageLimit(),
    cursor: pageCursor(),
    summary: laxFlag(false, 'Drop key_actions and files_touched.'),
    federation_hop: federationHop(),
  });
export type ListRecentWorkInput = z.output<ReturnType<typeof listRecentWorkInput>>;

export const findEntityInput = () =>
  z.object({
    name: z.string().describe('The name or alias to look for, case-insensitive, across every agent.'),
    ...accessShape('public'),
    federation_hop: federationHop(),
  });
export type FindEntityInput = z.output<ReturnType<typeof findEntityInput>>;

export const crossAgentSummaryInput = () =>
  z.object({
    project: z
      .string()
      .describe(
        'The project: entities named so (or aliased) and sessions whose project_focus names it, case-insensitive.',
      ),
    ...accessShape('public'),
    federation_hop: federationHop(),
  });
export type CrossAgentSummaryInput = z.output<ReturnType<typeof crossAgentSummaryInput>>;

export const recognitionInput = () =>
  z.object({
    prompt: z.string().describe("The user's prompt: the text searched for the names and aliases of known entities."),
    ...accessShape('team'),
    federation_hop: federationHop(),
  });
export type RecognitionInput = z.output<ReturnType<typeof recognitionInput>>;

export const compileTurnInput = () =>
  z.object({
    // The engine reads a null prompt as an empty one (an empty brief, not an error).
    prompt: z.string().nullable().describe("The user's prompt for this turn (null reads as empty: an empty brief)."),
    cwd: optionalText().describe("The folder the turn runs in: its repository's name and remote feed the brief."),
    // Any text passes the validator; one not in the enum is refused with the engine's error.
    access_level: z
      .string()
      .optional()
      .default('team')
      .meta({ enum: ['public', 'team', 'private'], description: 'The most private rows the brief may use.' }),
    max_items: integerWithDefault(6).meta({
      minimum: 1,
      maximum: 20,
      description: 'How many items the brief holds, 1 to 20 (default 6); outside that the call is refused.',
    }),
    max_chars: integerWithDefault(1800).meta({
      minimum: 400,
      maximum: 6000,
      description:
        "The brief text's length in characters, 400 to 6000 (default 1800); outside that the call is refused.",
    }),
  });
export type CompileTurnInput = z.output<ReturnType<typeof compileTurnInput>>;

export const deeperContextInput = () =>
  z.object({ prompt: z.string().describe('The prompt to find longer context for.'), ...accessShape('team') });
export type DeeperContextInput = z.output<ReturnType<typeof deeperContextInput>>;

export const listAgentsInput = () => z.object({ federation_hop: federationHop() });
export type ListAgentsInput = z.output<ReturnType<typeof listAgentsInput>>;

export const exportAgentsInput = () => z.object({});

export const listNotesInput = () =>
  z.object({
    since: sinceDay(),
    agent: agentFilter('notes'),
    tag: optionalText().describe('Only notes with this tag (case-insensitive).'),
    project: optionalText().describe('Only notes whose project_focus names this project (case-insensitive).'),
    ...accessShape('public'),
    limit: pageLimit(),
    cursor: pageCursor(),
    federation_hop: federationHop(),
  });
export type ListNotesInput = z.output<ReturnType<typeof listNotesInput>>;

export const listWorkstreamsInput = () =>
  z.object({
    since: optionalText().describe('Only workstreams active on or after this day (YYYY-MM-DD or an ISO datetime).'),
    agent: agentFilter('workstreams'),
    status: optionalText().describe('active, idle or archived.'),
    ...accessShape('public'),
    limit: pageLimit(),
    cursor: pageCursor(),
    federation_hop: federationHop(),
  });
export type ListWorkstreamsInput = z.output<ReturnType<typeof listWorkstreamsInput>>;

export const searchMemoryInput = () =>
  z.object({
    query: z
      .string()
      .describe(
        'Words to look for in names, aliases, tags, summaries, session actions, folders, files and notes. Typos, accents and case are forgiven.',
      ),
    kind: optionalText().describe(
      'Only results of these kinds: entity, session, note or workstream (comma-separated).',
    ),
    agent: optionalText().describe('Only rows of this agent.'),
    since: optionalText().describe(
      'Only sessions, notes and workstreams dated on or after this day (YYYY-MM-DD or an ISO datetime); entities carry no date and are left out.',
    ),
    ...accessShape('public'),
    limit: pageLimit(),
    federation_hop: federationHop(),
  });
export type SearchMemoryInput = z.output<ReturnType<typeof searchMemoryInput>>;
