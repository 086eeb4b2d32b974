/**
 * The MCP memory server's knowledge graph (JSONL: `{"type":"entity","name","entityType",
 * "observations"}` and `{"type":"relation",…}` lines) read as entities, with the engine's privacy
 * rules: person types and any observation that looks like a credential make an entity private.
 * Shared by the claude-code participant (`~/claude-memory/memory.jsonl`) and mcp-memory.
 */
import { jsonValueOf } from './line-streams.js';
import type { SourceReader } from './source-reader.js';
import { cut } from './markdown.js';
import type { Entity } from './manifest-shape.js';
import { isPersonType } from './rows.js';

/** What replaces an observation that looks like a credential, in the engine's words. */
const GRAPH_REDACTED = '[redacted -- contains credential-like content]';
const SUMMARY_CHARS = 500;
/** How many observations the summary is made of (non-strings count toward it). */
const SUMMARY_OBSERVATIONS = 2;

/** The engine's credential patterns for graph observations (README, "Knowledge graph"). */
const GRAPH_CREDENTIAL =
  /\b(?:api[_-]?key|api[_-]?token|service[_-]?role|access[_-]?token|stripe[\s_-]*(?:key|secret|token)|keystore|private[_-]?key|ssh[_-]?key|password|bearer\s+token|(?:sk|pk)_(?:live|test)_\w+|appl_\w+|hf_\w{10,})\b|\.env\b/i;

function graphLooksLikeCredential(text: string): boolean {
  return GRAPH_CREDENTIAL.test(text);
}

/** The type after its last `/` (`entity/person` → `person`); undefined when absent or empty. */
function entityType(value: unknown): string | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  const text = typeof value === 'string' ? value : String(value);
  const last = text.slice(text.lastIndexOf('/') + 1);
  return last || undefined;
}

/** One graph line as an entity, or null when it is not an entity line with a non-empty name. */
export function graphEntity(line: string): Entity | null {
  return line.trim() ? graphEntityOf(jsonValueOf(line)) : null;
}

/** One graph record (a line's JSON) as an entity, or null when it is not an entity with a non-empty name. */
function graphEntityOf(record: unknown): Entity | null {
  if (record === undefined || record === null || typeof record !== 'object' || Array.isArray(record)) return null;
  const fields = record as Record<string, unknown>;
  if (fields.type !== 'entity' || typeof fields.name !== 'string' || fields.name === '') return null;
  const name = fields.name;
  const type = entityType(fields.entityType);
  const observations = Array.isArray(fields.observations) ? fields.observations : [];
  const parts: string[] = [];
  for (const observation of observations.slice(0, SUMMARY_OBSERVATIONS)) {
    if (typeof observation !== 'string') continue;
    parts.push(graphLooksLikeCredential(observation) ? GRAPH_REDACTED : observation);
  }
  const secret = observations.some((o) => typeof o === 'string' && graphLooksLikeCredential(o));
  const entity: Entity = { name };
  if (type) entity.type = type;
  // Cut, then stripped, as the engine's graph reader does (blank observations leave no summary).
  const summary = cut(parts.join(' | '), SUMMARY_CHARS);
  if (summary) entity.summary = summary;
  if (type && type !== name.toLowerCase()) entity.tags = [type];
  if (secret || (type && isPersonType(type))) entity.visibility = 'private';
  return entity;
}

/**
 * Most entities taken from one graph file: the last ones, the newest (the server writes entities
 * in the order they were created). Bounds the memory a 100 MB graph takes, streamed line by line,
 * and leaves room in the manifest for the participant's other sources.
 */
export const MAX_GRAPH_ENTITIES = 5_000;

/** The entities of a graph file, in file order: the newest MAX_GRAPH_ENTITIES, the rest named in a warning. */
export function readGraph(reader: SourceReader, file: string): Entity[] {
  let entities: Entity[] = [];
  let seen = 0;
  for (const { value } of reader.jsonRecords(file, { accept: (line) => line.trim() !== '' })) {
    const entity = graphEntityOf(value);
    if (!entity) continue;
    seen += 1;
    entities.push(entity);
    if (entities.length >= 2 * MAX_GRAPH_ENTITIES) entities = entities.slice(-MAX_GRAPH_ENTITIES);
  }
  if (seen > MAX_GRAPH_ENTITIES) {
    entities = entities.slice(-MAX_GRAPH_ENTITIES);
    reader.warn(
      `${file}: ${seen} entities; the newest ${MAX_GRAPH_ENTITIES} are exported, ${seen - MAX_GRAPH_ENTITIES} left out`,
    );
  }
  return entities;
}
