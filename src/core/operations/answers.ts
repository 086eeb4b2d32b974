/**
 * What each tool answers, declared once with zod: the MCP `outputSchema` hosts see in
 * tools/list, the shape every result's `structuredContent` is validated against, the shape a
 * peer's answer is parsed with before anything merges it, and (inferred) the TypeScript types
 * of the read answers. Built on first use, as the input schemas are (bench/README.md).
 *
 * The reads' rows are strict (a key no answer carries is dropped when a peer's answer is
 * parsed, and hosts see `additionalProperties: false`); the write and history answers, which
 * no peer ever sends, declare their identifying fields and let the rest through.
 *
 * A refusal (an `error` envelope: a denial, a bad access_level, an unknown version) is answered
 * with `isError: true` and its own envelope as `structuredContent`; every output schema is the
 * union of the answer and `refusal()`, so a client that validates error results too accepts it.
 */
import * as z from 'zod';
import { entityMatchRow, peerReportFields, sessionRefRow, unreachablePeerRow } from '../rows.js';
import { lazy } from '../lazy.js';

const texts = () => z.array(z.string());
const nullableText = () => z.string().nullable().default(null);

/** Any refusal: the engine's `{"error": …}` envelope, with whatever it echoes beside it. */
export const refusal = lazy(() => z.looseObject({ error: z.string() }));

/** The access arguments a read answer echoes: the level as asked (or defaulted), and include_private. */
const accessEcho = () => ({ access_level: z.string(), include_private: z.boolean() });

/** Peers that did not answer, listed when some did not (federated answers only). */
const reachability = () => ({
  peers_unreachable: z.array(unreachablePeerRow()).optional(),
  peers_without_tool: z.array(z.string()).optional(),
});

/** What every paged listing answers besides its rows (read-common.ts `PagedListing`). */
const pagedListing = () => ({
  since: z.string().nullable(),
  agent: z.string().nullable(),
  ...accessEcho(),
  limit: z.number().int().nullable(),
  cursor: z.string().nullable(),
});
const pageEnd = () => ({ next_cursor: z.string().nullable(), has_more: z.boolean(), ...reachability() });

export const listAgentsAnswer = lazy(() => z.object({ agents: texts(), ...reachability() }));

export const findEntityAnswer = lazy(() =>
  z.object({ name: z.string(), ...accessEcho(), matches: z.array(entityMatchRow()), ...reachability() }),
);

export const queryAgentMemoryAnswer = lazy(() =>
  z.object({ agent: z.string(), topic: z.string(), ...accessEcho(), matches: z.array(entityMatchRow()) }),
);

export const crossAgentSummaryAnswer = lazy(() =>
  z.object({
    project: z.string(),
    agents: texts(),
    recent_sessions: z.array(sessionRefRow()),
    entities: z.array(entityMatchRow()),
    ...reachability(),
  }),
);

export const listRecentWorkAnswer = lazy(() =>
  z.object({ ...pagedListing(), summary: z.boolean(), sessions: z.array(sessionRefRow()), ...pageEnd() }),
);

/** A recognised entity as the answer lists it. */
export const recognisedEntityRow = lazy(() =>
  z.object({ name: z.string(), type: nullableText(), source_agents: texts().default([]) }),
);
export type RecognisedEntity = z.output<ReturnType<typeof recognisedEntityRow>>;

export const recognitionAnswer = lazy(() =>
  z.object({
    prompt: z.string(),
    ...accessEcho(),
    recognition: z.string(),
    matched_entities: z.array(recognisedEntityRow()),
    recognition_latency_us: z.number(),
    hydration_scheduled: z.boolean(),
    prompt_context: z.string(),
    ...peerReportFields(),
  }),
);

const counts = () => z.record(z.string(), z.number().int());
const repoIdentity = () =>
  z.object({ name: z.string().nullable(), root: z.string().nullable(), remote: z.string().nullable() });
const stage1 = () => z.enum(['available', 'degraded', 'unknown']);
const turnItem = () =>
  z.object({
    rank: z.number().int(),
    score: z.number(),
    kind: z.enum(['project', 'preference', 'handoff', 'entity', 'session', 'thread']),
    name: z.string(),
    summary: z.string(),
    reason: z.string(),
    source: z.string(),
    source_agents: texts(),
    evidence: texts(),
  });

/** The codex-turn-brief/v1 brief (codex-turn/compile.ts CompileTurnOutput), as hosts see it in tools/list. */
export const compileTurnAnswer = lazy(() =>
  z.object({
    schema_version: z.string().describe('codex-turn-brief/v1'),
    prompt: z.string(),
    cwd: z.string().nullable(),
    repo: repoIdentity(),
    health: z.object({ native_stage1: stage1(), strategy: z.string() }),
    routing: z.object({
      mode: z.enum(['inject', 'observe']),
      primary_surface: z.string(),
      surfaces: texts(),
      confidence: z.enum(['high', 'medium', 'low', 'none']),
      reason: z.string(),
      suppressed_surfaces: texts(),
      next_action: z.string(),
    }),
    items: z.array(turnItem()),
    delivery: z.object({
      explicit_text: z.string().describe('Prepend this before the Codex turn.'),
      mcp_payload: z.object({
        schema_version: z.string(),
        strategy: z.string(),
        native_stage1: stage1(),
        repo: repoIdentity(),
        items: z.array(turnItem()),
        prompt_context: z.string(),
      }),
      memory_md_block: z.string(),
      fallback_block: z.string(),
      repo_overlay_block: z.string(),
    }),
    trace: z.object({
      routing_decision: z.object({ primary_surface: z.string(), confidence: z.string(), reason: z.string() }),
      surface_health: z.object({
        native_stage1: stage1(),
        repo_identity: z.enum(['available', 'missing']),
        candidate_count: z.number().int(),
      }),
      source_mix: z.object({ candidates: counts(), selected: counts(), ignored: counts() }),
      selected_items: z.array(
        z.object({
          name: z.string(),
          kind: z.string(),
          score: z.number(),
          dominant_components: texts(),
          reason: z.string(),
        }),
      ),
    }),
    diagnostics: z.object({
      scoring_components: z.record(z.string(), z.record(z.string(), z.number())),
      candidate_count: z.number().int(),
      delivery: z.literal('all'),
      max_items: z.number().int(),
      max_chars: z.number().int(),
      stage1_jobs: z.object({ total: z.number().int(), by_status: counts(), error_classes: counts() }),
      exhausted_paths: texts(),
    }),
  }),
);

export const deeperContextAnswer = lazy(() =>
  z.object({ prompt: z.string(), ...accessEcho(), context: z.string(), context_chars: z.number().int() }),
);

/** One agent in the `bourdon.agents/v1` envelope. */
export const exportedAgentRow = lazy(() =>
  z.object({
    id: z.string(),
    type: nullableText(),
    instance: nullableText(),
    role_narrative: nullableText(),
    last_updated: nullableText(),
    capability_count: z.number().int().nullable().default(null),
    session_count: z.number().int().nullable().default(null),
    freshest_session_date: nullableText(),
    recent_activity: z
      .array(
        z.object({
          date: z.string(),
          project_focus: texts().default([]),
          key_actions: texts().default([]),
          visibility: z.string(),
        }),
      )
      .default([]),
    parse_error: nullableText(),
    source: z.string(),
    source_kind: z.string(),
  }),
);
export type ExportedAgent = z.output<ReturnType<typeof exportedAgentRow>>;

/** A peer's envelope without `generated_from` (where its library lives: never used here) still fits. */
export const exportAgentsAnswer = lazy(() =>
  z.object({
    schema: z.string(),
    machine: z.string(),
    generated_from: z.string().default(''),
    agents: z.array(exportedAgentRow()),
  }),
);

/** A note as list_notes answers it (text and title redacted). */
export const noteRefRow = lazy(() =>
  z.object({
    agent: z.string(),
    date: z.string(),
    title: nullableText(),
    text: z.string(),
    tags: texts().default([]),
    project_focus: texts().default([]),
  }),
);
export type NoteRef = z.output<ReturnType<typeof noteRefRow>>;

export const listNotesAnswer = lazy(() =>
  z.object({
    ...pagedListing(),
    tag: z.string().nullable(),
    project: z.string().nullable(),
    notes: z.array(noteRefRow()),
    ...pageEnd(),
  }),
);

export const WORKSTREAM_STATUSES = ['active', 'idle', 'archived'] as const;

/** One project in flight, as list_workstreams answers it. */
export const workstreamRow = lazy(() =>
  z.object({
    name: z.string(),
    agents: texts().default([]),
    session_count: z.number().int(),
    note_count: z.number().int(),
    first_activity: z.string(),
    last_activity: z.string(),
    status: z.enum(WORKSTREAM_STATUSES),
    recent_actions: texts().default([]),
  }),
);
export type Workstream = z.output<ReturnType<typeof workstreamRow>>;

export const listWorkstreamsAnswer = lazy(() =>
  z.object({
    ...pagedListing(),
    status: z.string().nullable(),
    workstreams: z.array(workstreamRow()),
    ...pageEnd(),
  }),
);

export const SEARCH_RESULT_KINDS = ['entity', 'session', 'note', 'workstream'] as const;

/** What every search result carries: its kind, its score (higher is better), the fields that matched and a marked snippet. */
const searchResultBase = () => ({
  score: z.number(),
  matched: texts(),
  snippet: z.string(),
});

/** One search_memory result, by kind (the fields the judged queries read: docs/cli.md, `search`). */
export const searchResultRow = lazy(() =>
  z.discriminatedUnion('kind', [
    z.object({
      kind: z.literal('entity'),
      name: z.string(),
      agents: texts(),
      types: texts().default([]),
      tags: texts().default([]),
      superseded: z.boolean().default(false),
      ...searchResultBase(),
    }),
    z.object({
      kind: z.literal('session'),
      agent: z.string(),
      date: z.string(),
      cwd: nullableText(),
      project_focus: texts().default([]),
      key_actions: texts().default([]),
      ...searchResultBase(),
    }),
    z.object({
      kind: z.literal('note'),
      agent: z.string(),
      id: nullableText(),
      date: z.string(),
      title: nullableText(),
      tags: texts().default([]),
      project_focus: texts().default([]),
      ...searchResultBase(),
    }),
    z.object({
      kind: z.literal('workstream'),
      name: z.string(),
      agents: texts(),
      last_activity: nullableText(),
      ...searchResultBase(),
    }),
  ]),
);
export type SearchResult = z.output<ReturnType<typeof searchResultRow>>;

export const searchMemoryAnswer = lazy(() =>
  z.object({
    query: z.string(),
    ...accessEcho(),
    results: z.array(searchResultRow()),
    truncated: z.boolean(),
    ...reachability(),
  }),
);

export const commitAnswer = lazy(() =>
  z.union([
    z.looseObject({ agent_id: z.string(), path: z.string(), mode: z.string(), version: z.number().int() }),
    z.looseObject({ staged: z.literal(true), agent_id: z.string(), path: z.string(), note: z.string() }),
  ]),
);

export const listVersionsAnswer = lazy(() =>
  z.looseObject({ agent_id: z.string(), versions: z.array(z.looseObject({ version: z.number().int() })) }),
);

export const explainAnswer = lazy(() =>
  z.looseObject({
    agent_id: z.string(),
    version: z.number().int(),
    against: z.number().int().nullable(),
    summary: z.string(),
  }),
);

export const rollbackAnswer = lazy(() =>
  z.looseObject({
    agent_id: z.string(),
    restored_version: z.number().int(),
    version: z.number().int(),
    sha256: z.string(),
    reason: z.string().nullable(),
  }),
);

/** The TypeScript type of an answer declared here (`Answer<typeof findEntityAnswer>`). */
export type Answer<S extends () => z.ZodType> = z.output<ReturnType<S>>;
