/**
 * The three MCP resources (spec §5, "Resources"), read at public access.
 */
import { codeOf, describeError } from '../errors.js';
import { coded } from '../payload.js';
import { canSee, policyOf, rowLevel } from '../trust/access.js';
import { agentsInScope, type OperationContext } from '../context.js';
import { invalidAgentIdMessage, isServedAgentId } from '../store/ids.js';
import { isObject, type RawObject } from '../store/manifest.js';
import { servedList } from '../store/model.js';
import { findEntityMatches } from './queries.js';

type RowKind = 'entity' | 'session' | 'note';
const LIST_FIELDS: Record<string, { row: RowKind; fields: readonly string[] }> = {
  known_entities: { row: 'entity', fields: ['aliases', 'tags'] },
  recent_sessions: { row: 'session', fields: ['project_focus', 'key_actions', 'files_touched'] },
  notes: { row: 'note', fields: ['tags', 'project_focus'] },
};

/**
 * A row with its list fields as the tools serve them (model.ts `servedList`: a single value a
 * one-item list, D1; items as text, what does not fit left out), other fields as written; a null
 * list field stays null.
 */
function normaliseRow(row: RawObject, { row: kind, fields }: { row: RowKind; fields: readonly string[] }): RawObject {
  const out: RawObject = {};
  for (const [key, value] of Object.entries(row)) {
    out[key] = fields.includes(key) && value !== null ? servedList(kind, key, value) : value;
  }
  return out;
}

/**
 * A value as written, in the form JSON carries: bytes (`!!binary`) as their UTF-8 text, as the
 * engine's JSON encoder decodes them, and a `!!set` as the list of its members; a PyFloat or
 * PyInt gives its own JSON (python-str.ts).
 */
function asWritten(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  if (value instanceof Set) return [...value].map(asWritten);
  if (Array.isArray(value)) return value.map(asWritten);
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, asWritten(item)]));
  return value;
}

/** A manifest with only the rows visible at `level`; every other field kept as written. */
function manifestAtLevel(doc: RawObject, level: 'public' | 'team' | 'private'): RawObject {
  const out: RawObject = {};
  // Each row at the level its manifest's visibility_policy gives it (D19), as the store reads it.
  const policy = policyOf(doc);
  for (const [key, value] of Object.entries(doc)) {
    const listFields = LIST_FIELDS[key];
    if (listFields) {
      // A row field that is not a list holds no row a query reads: it is not served either
      // (a lone mapping there could carry a private label).
      if (!Array.isArray(value)) continue;
      out[key] = value
        .filter((row) => isObject(row) && canSee(level, rowLevel(row, policy)))
        .map((row) => asWritten(normaliseRow(row as RawObject, listFields)));
    } else {
      out[key] = asWritten(value);
    }
  }
  return out;
}

export async function agentsResource(ctx: OperationContext): Promise<unknown> {
  return agentsInScope(ctx).map((agent) => agent.id);
}

/** Row lists the resource always carries, `[]` when the file has none, as the engine answers. */
const ALWAYS_LISTED = ['known_entities', 'recent_sessions'] as const;

export async function agentMemoryResource(ctx: OperationContext, agentId: string): Promise<unknown> {
  // Any id a manifest may declare is served (`Agent-B`); the id is only looked up, never a path.
  if (!isServedAgentId(agentId)) return { error: invalidAgentIdMessage(agentId) };
  const agent = agentsInScope(ctx).find((record) => record.id === agentId);
  if (!agent) return coded({ error: `agent not found: ${agentId}` }, 'not_found');
  let doc: RawObject;
  try {
    doc = ctx.store.document(agent);
  } catch (error) {
    return coded({ error: describeError(error) }, codeOf(error));
  }
  const manifest = manifestAtLevel(doc, 'public');
  for (const key of ALWAYS_LISTED) if (!Array.isArray(manifest[key])) manifest[key] = [];
  return manifest;
}

export async function entityResource(ctx: OperationContext, name: string): Promise<unknown> {
  return findEntityMatches(agentsInScope(ctx), name, 'public');
}
