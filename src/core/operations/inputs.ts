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

/** Shown to hosts as 1 to MAX_PAGE_SIZE; the validator still takes any integer, which the engine clamps into that range. */
const pageLimit = () =>
  optionalInteger(`Page size, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE}).`).meta({
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
  });
const sinceDay = () => optionalText().describe('YYYY-MM-DD or an ISO datetime; its calendar day as written.');

export const queryAgentMemoryInput = () => z.object({ agent: z.string(), topic: z.string(), ...accessShape('public') });
export type QueryAgentMemoryInput = z.output<ReturnType<typeof queryAgentMemoryInput>>;

export const listRecentWorkInput = () =>
  z.object({
    since: sinceDay(),
    agent: optionalText(),
    ...accessShape('public'),
    limit: pageLimit(),
    cursor: optionalText(),
    summary: laxFlag(false, 'Drop key_actions and files_touched.'),
    federation_hop: federationHop(),
  });
export type ListRecentWorkInput = z.output<ReturnType<typeof listRecentWorkInput>>;

export const findEntityInput = () =>
  z.object({ name: z.string(), ...accessShape('public'), federation_hop: federationHop() });
export type FindEntityInput = z.output<ReturnType<typeof findEntityInput>>;

export const crossAgentSummaryInput = () =>
  z.object({ project: z.string(), ...accessShape('public'), federation_hop: federationHop() });
export type CrossAgentSummaryInput = z.output<ReturnType<typeof crossAgentSummaryInput>>;

export const recognitionInput = () =>
  z.object({ prompt: z.string(), ...accessShape('team'), federation_hop: federationHop() });
export type RecognitionInput = z.output<ReturnType<typeof recognitionInput>>;

export const compileTurnInput = () =>
  z.object({
    // The engine reads a null prompt as an empty one (an empty brief, not an error).
    prompt: z.string().nullable(),
    cwd: optionalText(),
    access_level: z.string().optional().default('team'),
    max_items: integerWithDefault(6),
    max_chars: integerWithDefault(1800),
  });
export type CompileTurnInput = z.output<ReturnType<typeof compileTurnInput>>;

export const deeperContextInput = () => z.object({ prompt: z.string(), ...accessShape('team') });
export type DeeperContextInput = z.output<ReturnType<typeof deeperContextInput>>;

export const listAgentsInput = () => z.object({ federation_hop: federationHop() });
export type ListAgentsInput = z.output<ReturnType<typeof listAgentsInput>>;

export const exportAgentsInput = () => z.object({});

export const listNotesInput = () =>
  z.object({
    since: sinceDay(),
    agent: optionalText(),
    tag: optionalText().describe('Only notes with this tag (case-insensitive).'),
    project: optionalText().describe('Only notes whose project_focus names this project (case-insensitive).'),
    ...accessShape('public'),
    limit: pageLimit(),
    cursor: optionalText(),
    federation_hop: federationHop(),
  });
export type ListNotesInput = z.output<ReturnType<typeof listNotesInput>>;

export const listWorkstreamsInput = () =>
  z.object({
    since: optionalText().describe('Only workstreams active on or after this day (YYYY-MM-DD or an ISO datetime).'),
    agent: optionalText(),
    status: optionalText().describe('active, idle or archived.'),
    ...accessShape('public'),
    limit: pageLimit(),
    cursor: optionalText(),
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
