/**
 * The read commands' payloads, once: how each command's arguments and flags become its
 * operation's input, and which operation answers. The oclif commands (src/commands) and the
 * fast path (fast-path.ts, which answers `--json` reads without loading oclif) both call
 * these, so the two cannot drift. No oclif import here: the fast path's bundle must not pull it.
 *
 * READ_COMMANDS declares each read command once (command-spec.ts): its arguments, its flags
 * with their parse rules and its payload function. The oclif command derives its args and
 * flags from it (flags.ts) and the fast path parses argv with it.
 */
import fs from 'node:fs';
import { UsageError } from '../core/errors.js';
import { failed, payloadJson } from '../core/payload.js';
import { createContext, type OperationContext } from '../core/context.js';
import { LibraryStore, type Warn } from '../core/store/library.js';
import { PartialLibraryStore, type LibraryView } from '../core/store/partial-store.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../core/operations/inputs.js';
import { configPaths, defaultLibraryRoot, parsedLibraryCachePath } from '../core/store/config.js';
import { decodeCursor } from '../core/store/cursor.js';
import { parseSince, resolveCutoff } from '../core/store/dates.js';
import { WORKSTREAM_STATUSES } from '../core/operations/workstreams.js';
import {
  exportAgentsOperation,
  findEntityOperation,
  getCrossAgentSummaryOperation,
  getDeeperContextOperation,
  listAgentsOperation,
  listNotesOperation,
  listRecentWorkOperation,
  listWorkstreamsOperation,
  prepareRecognitionContextOperation,
  queryAgentMemoryOperation,
} from '../core/operations/read-operations.js';
import { explainMemoryChangeOperation, listMemoryVersionsOperation } from '../core/operations/write-operations.js';
import { DEFAULT_VERSION_LIMIT, MAX_VERSION_LIMIT } from '../core/writes/versions.js';
import { invoke } from '../core/operations/invoke.js';
import { followPages, type PageEnvelope } from '../core/operations/follow-pages.js';
import { parseNoteId, showNote } from '../core/operations/notes.js';
import { parseVersion } from './input.js';
import { assertAgentExists } from './suggest.js';
import { searchCommand } from './search-command.js';
import {
  ACCESS_FLAGS,
  accessArgs,
  defineReadCommand,
  SINCE_FORMS,
  type AnyReadCommand,
  type FlagSpecs,
  type OpenLibrary,
} from './command-spec.js';

export type { OpenLibrary };

/** The library root: --library wins over BOURDON_LIBRARY; an empty variable counts as unset. */
export function libraryRoot(flag: string | undefined): string {
  return flag && flag.length > 0 ? flag : defaultLibraryRoot(process.env);
}

/** Opens the library for reading; a missing library is a clear error (exit 1). */
export function openLibrary(
  libraryFlag: string | undefined,
  warn: Warn,
  view?: LibraryView,
  overrides: Partial<OperationContext> = {},
): OperationContext {
  const root = libraryRoot(libraryFlag);
  const options = { warn, cachePath: parsedLibraryCachePath(root) };
  const store = view === undefined ? new LibraryStore(root, options) : new PartialLibraryStore(root, view, options);
  store.assertExists();
  // A folder without agents/ answers every question with nothing; say so rather than look empty.
  if (!fs.existsSync(store.paths.agents))
    warn(`${root} has no agents/ folder, so it holds no manifests yet (\`bourdon init\` sets up a library)`);
  return createContext(store, { warn, ...overrides });
}

/** A payload as `--json` prints it. */
export function jsonText(payload: unknown): string {
  return payloadJson(payload, 2) + '\n';
}

/**
 * Runs a paged operation: one page, or with `all` every page merged into one payload
 * (core/operations/follow-pages.ts). The first page that errs is the answer.
 */
async function pages<O extends PageEnvelope>(
  field: string,
  all: boolean,
  fetch: (cursor: string | undefined) => Promise<O>,
  cursor?: string,
): Promise<O> {
  return all ? followPages(field, fetch, { cursor }) : fetch(cursor);
}

// ---------------------------------------------------------------------------------------
// The payload of each read command, from its parsed arguments and flags.

interface LibraryFlags {
  library?: string;
}
interface AccessFlags extends LibraryFlags {
  'access-level'?: string;
  'include-private'?: boolean;
}
interface PageFlags extends AccessFlags {
  since?: string;
  agent?: string;
  limit?: number;
  cursor?: string;
  all?: boolean;
}

/** `agents --json`: the agent list, or with --export the redacted export envelope (local part). */
export async function agentsPayload(open: OpenLibrary, flags: LibraryFlags & { export?: boolean }) {
  // The list is ids only: which agents there are, not what they hold.
  return flags.export ? exportPayload(open, flags) : invoke(listAgentsOperation, open(flags.library, 'ids'), {});
}

/** The redacted export envelope (local part), which the human `agents` listing also shows. */
export async function exportPayload(open: OpenLibrary, flags: LibraryFlags) {
  return invoke(exportAgentsOperation, open(flags.library), {});
}

export async function findPayload(open: OpenLibrary, args: { name: string }, flags: AccessFlags) {
  return invoke(findEntityOperation, open(flags.library, { entity: args.name }), {
    name: args.name,
    ...accessArgs(flags),
  });
}

export async function queryPayload(open: OpenLibrary, args: { agent: string; topic: string }, flags: AccessFlags) {
  // Every agent is in the lookup snapshot (with only the entities the topic names), so the
  // existence check costs no extra read.
  const ctx = open(flags.library, { entity: args.topic });
  assertAgentExists(ctx, args.agent);
  return invoke(queryAgentMemoryOperation, ctx, { agent: args.agent, topic: args.topic, ...accessArgs(flags) });
}

/**
 * The first day `recent` can show, so the library is read only from that month on: the window
 * as the operation resolves it (the same rule a moment earlier, so never a later day), or null
 * (every session) when the cursor cannot be read and the operation will say so.
 */
function recentWindowStart(flags: PageFlags): string | null {
  const saved = flags.cursor ? decodeCursor(flags.cursor) : null;
  if (flags.cursor && !saved) return null;
  return resolveCutoff(flags.since ?? null, saved?.cutoff ?? null, new Date(), () => {});
}

export async function recentPayload(open: OpenLibrary, flags: PageFlags & { summary?: boolean }) {
  const ctx = open(flags.library, { sessionsSince: recentWindowStart(flags) });
  if (flags.agent) assertAgentExists(ctx, flags.agent);
  const input = {
    since: flags.since,
    agent: flags.agent,
    limit: flags.limit,
    summary: flags.summary,
    ...accessArgs(flags),
  };
  return pages(
    'sessions',
    Boolean(flags.all),
    (cursor) => invoke(listRecentWorkOperation, ctx, { ...input, cursor }),
    flags.cursor,
  );
}

export async function summaryPayload(open: OpenLibrary, args: { project: string }, flags: AccessFlags) {
  return invoke(getCrossAgentSummaryOperation, open(flags.library), { project: args.project, ...accessArgs(flags) });
}

export async function listNotesPayload(open: OpenLibrary, flags: PageFlags & { tag?: string; project?: string }) {
  const ctx = open(flags.library);
  if (flags.agent) assertAgentExists(ctx, flags.agent);
  const input = {
    since: flags.since,
    agent: flags.agent,
    tag: flags.tag,
    project: flags.project,
    limit: flags.limit,
    ...accessArgs(flags),
  };
  return pages(
    'notes',
    Boolean(flags.all),
    (cursor) => invoke(listNotesOperation, ctx, { ...input, cursor }),
    flags.cursor,
  );
}

export async function workstreamsPayload(open: OpenLibrary, flags: PageFlags & { status?: string }) {
  const ctx = open(flags.library);
  if (flags.agent) assertAgentExists(ctx, flags.agent);
  const input = {
    since: flags.since,
    agent: flags.agent,
    status: flags.status,
    limit: flags.limit,
    ...accessArgs(flags),
  };
  return pages(
    'workstreams',
    Boolean(flags.all),
    (cursor) => invoke(listWorkstreamsOperation, ctx, { ...input, cursor }),
    flags.cursor,
  );
}

export async function recognizePayload(open: OpenLibrary, args: { prompt: string }, flags: AccessFlags) {
  return invoke(prepareRecognitionContextOperation, open(flags.library), { prompt: args.prompt, ...accessArgs(flags) });
}

export async function deeperContextPayload(open: OpenLibrary, args: { prompt: string }, flags: AccessFlags) {
  return invoke(getDeeperContextOperation, open(flags.library), { prompt: args.prompt, ...accessArgs(flags) });
}

/**
 * `history`: the versions, newest first. No versions and no manifest is a typo, not an agent
 * without history: an error naming the closest ids.
 */
export async function historyPayload(
  open: OpenLibrary,
  args: { agent_id: string },
  flags: LibraryFlags & { limit?: number },
) {
  // The audit log says why each rollback was made: the listing reads it where it is configured.
  const opened = open(flags.library);
  const ctx = { ...opened, config: opened.config ?? configPaths(opened.env) };
  const payload = await invoke(listMemoryVersionsOperation, ctx, { agent_id: args.agent_id, limit: flags.limit });
  if (!failed(payload) && payload.versions.length === 0) assertAgentExists(ctx, args.agent_id);
  return payload;
}

export async function diffPayload(
  open: OpenLibrary,
  args: { agent_id: string; version: string },
  flags: LibraryFlags & { against?: number },
) {
  const version = parseVersion(args.version);
  return invoke(explainMemoryChangeOperation, open(flags.library), {
    agent_id: args.agent_id,
    version,
    against: flags.against ?? null,
  });
}

// ---------------------------------------------------------------------------------------
// The read commands, each declared once.

const ACCESS = ACCESS_FLAGS;

/** `--wide`: tables show every column in full instead of fitting the terminal. */
export const WIDE = {
  wide: { type: 'boolean', description: 'Show every column in full instead of fitting the terminal width.' },
} as const satisfies FlagSpecs;

const since = (description: string) =>
  ({ type: 'since', description: `${description} ${SINCE_FORMS}.`, helpValue: '<day>', parse: parseSince }) as const;

/** The page size: out-of-range values are usage errors (exit 2), not silently clamped. */
const LIMIT = {
  type: 'integer',
  description: `Page size, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE}).`,
  min: 1,
  max: MAX_PAGE_SIZE,
  helpValue: '<n>',
} as const;
const CURSOR = { type: 'string', description: 'Continue from a previous page (its next_cursor).' } as const;
const ALL = {
  type: 'boolean',
  description: 'Follow cursors and print every page as one.',
  exclusive: ['cursor'],
} as const;

const AGENT_ID = { name: 'agent_id', description: 'Agent id.' } as const;
const PROMPT = { name: 'prompt', description: 'The prompt text.' } as const;

export const agentsCommand = defineReadCommand({
  args: [],
  flags: {
    export: { type: 'boolean', description: `Print the export envelope (tool ${exportAgentsOperation.name}).` },
    federated: {
      type: 'boolean',
      description: 'With --export: also ask every peer in peers.yaml and merge their agents, re-tagged by peer name.',
      dependsOn: ['export'],
    },
    ...WIDE,
  },
  payload: (open, _args, flags) => agentsPayload(open, flags),
});

export const findCommand = defineReadCommand({
  args: [{ name: 'name', description: 'Entity name or alias.' }],
  flags: ACCESS,
  payload: findPayload,
});

export const queryCommand = defineReadCommand({
  args: [
    { name: 'agent', description: 'Agent id.' },
    { name: 'topic', description: 'Entity name or alias.' },
  ],
  flags: ACCESS,
  payload: queryPayload,
});

export const recentCommand = defineReadCommand({
  args: [],
  flags: {
    since: since('First day to include:'),
    agent: { type: 'string', description: 'Only this agent.' },
    limit: LIMIT,
    cursor: CURSOR,
    summary: { type: 'boolean', description: 'Leave out key actions and files.' },
    all: ALL,
    ...ACCESS,
    ...WIDE,
  },
  payload: (open, _args, flags) => recentPayload(open, flags),
});

export const summaryCommand = defineReadCommand({
  args: [{ name: 'project', description: 'Project name.' }],
  flags: ACCESS,
  payload: summaryPayload,
});

export const listNotesCommand = defineReadCommand({
  args: [],
  flags: {
    since: since('First day to include:'),
    agent: { type: 'string', description: 'Only this agent.' },
    tag: { type: 'string', description: 'Only notes with this tag.' },
    project: { type: 'string', description: 'Only notes about this project.' },
    limit: LIMIT,
    cursor: CURSOR,
    all: ALL,
    ...ACCESS,
    ...WIDE,
  },
  payload: (open, _args, flags) => listNotesPayload(open, flags),
});

/** `note show`: one note whole; an id naming no agent here is an error naming the closest ids. */
export const noteShowCommand = defineReadCommand({
  args: [{ name: 'id', description: 'The note id, <agent>:<n> (`bourdon list-notes` shows it).' }],
  flags: ACCESS,
  payload: async (open, args, flags) => {
    const parsed = parseNoteId(args.id);
    if (!parsed) throw new UsageError('a note id is <agent>:<n>, like codex:2 (`bourdon list-notes` shows them)');
    const ctx = open(flags.library);
    assertAgentExists(ctx, parsed.agent);
    return showNote(ctx, { id: args.id, ...accessArgs(flags) });
  },
});

export const workstreamsCommand = defineReadCommand({
  args: [],
  flags: {
    since: since('Only workstreams active on or after this day:'),
    agent: { type: 'string', description: 'Only activity of this agent.' },
    status: { type: 'string', description: 'Only this status.', options: WORKSTREAM_STATUSES },
    limit: LIMIT,
    cursor: CURSOR,
    all: ALL,
    ...ACCESS,
    ...WIDE,
  },
  payload: (open, _args, flags) => workstreamsPayload(open, flags),
});

export const recognizeCommand = defineReadCommand({ args: [PROMPT], flags: ACCESS, payload: recognizePayload });

export const deeperContextCommand = defineReadCommand({
  args: [PROMPT],
  flags: ACCESS,
  payload: deeperContextPayload,
});

export const historyCommand = defineReadCommand({
  args: [AGENT_ID],
  flags: {
    limit: {
      type: 'integer',
      description: `How many versions, 1 to ${MAX_VERSION_LIMIT} (default ${DEFAULT_VERSION_LIMIT}).`,
      min: 1,
      max: MAX_VERSION_LIMIT,
    },
    ...WIDE,
  },
  payload: historyPayload,
});

export const diffCommand = defineReadCommand({
  args: [AGENT_ID, { name: 'version', description: 'Version number (see `bourdon history`).' }],
  flags: { against: { type: 'integer', description: 'Compare with this version (default: the one before).' } },
  payload: diffPayload,
});

/** Every read command, by its id (`note:show` is `bourdon note show`): the fast path's table. */
export const READ_COMMANDS: Readonly<Record<string, AnyReadCommand>> = {
  agents: agentsCommand,
  find: findCommand,
  query: queryCommand,
  recent: recentCommand,
  summary: summaryCommand,
  'list-notes': listNotesCommand,
  'note:show': noteShowCommand,
  workstreams: workstreamsCommand,
  recognize: recognizeCommand,
  'deeper-context': deeperContextCommand,
  history: historyCommand,
  diff: diffCommand,
  search: searchCommand,
};
