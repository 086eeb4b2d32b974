/**
 * Recognition (tool prepare_recognition_context): which known entities a prompt mentions.
 * Entities are merged across agents by lower-cased name; a name or alias matches when its
 * alphanumeric tokens appear contiguously in the prompt's tokens, so "bourdonish" never
 * matches "Bourdon". The token index is built once per library snapshot and access level.
 */
import { canSee, type AccessLevel } from './access.js';
import { foldKey } from './manifest.js';
import type { AgentRecord } from './library.js';
import { redactText } from './redaction.js';

export interface MergedEntity {
  name: string;
  type: string | null;
  source_agents: string[];
  summary: string | null;
  tags: string[];
  valid_to: string | null;
}

interface RecognitionIndex {
  entities: MergedEntity[];
  /** First token → (entity position, token sequence) pairs to try at that prompt position. */
  byFirstToken: Map<string, { position: number; tokens: string[] }[]>;
}

export function tokenize(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

export function buildRecognitionIndex(agents: readonly AgentRecord[], level: AccessLevel): RecognitionIndex {
  const merged = new Map<string, MergedEntity & { phrases: Set<string> }>();
  for (const agent of agents) {
    for (const entity of agent.entities) {
      if (!canSee(level, entity.visibility)) continue;
      const key = foldKey(entity.name);
      let target = merged.get(key);
      if (!target) {
        target = {
          name: entity.name,
          type: entity.type,
          source_agents: [],
          summary: null,
          tags: [],
          valid_to: null,
          phrases: new Set(),
        };
        merged.set(key, target);
      }
      if (!target.source_agents.includes(agent.id)) target.source_agents.push(agent.id);
      if (target.summary === null && entity.summary) target.summary = entity.summary;
      if (target.valid_to === null && entity.valid_to) target.valid_to = entity.valid_to;
      for (const tag of entity.tags) if (!target.tags.includes(tag)) target.tags.push(tag);
      for (const phrase of [entity.name, ...entity.aliases]) {
        const tokens = tokenize(phrase);
        if (tokens.length) target.phrases.add(tokens.join(' '));
      }
    }
  }
  const entities: MergedEntity[] = [];
  const byFirstToken: RecognitionIndex['byFirstToken'] = new Map();
  for (const { phrases, ...entity } of merged.values()) {
    const position = entities.push(entity) - 1;
    for (const phrase of phrases) {
      const tokens = phrase.split(' ');
      const bucket = byFirstToken.get(tokens[0]);
      if (bucket) bucket.push({ position, tokens });
      else byFirstToken.set(tokens[0], [{ position, tokens }]);
    }
  }
  return { entities, byFirstToken };
}

/** Merged entities the prompt mentions, in merged-view order (agent id, then file order). */
export function recognise(index: RecognitionIndex, prompt: string): MergedEntity[] {
  const tokens = tokenize(prompt);
  const hit = new Set<number>();
  for (let i = 0; i < tokens.length; i++) {
    const candidates = index.byFirstToken.get(tokens[i]);
    if (!candidates) continue;
    for (const { position, tokens: phrase } of candidates) {
      if (hit.has(position) || i + phrase.length > tokens.length) continue;
      let same = true;
      for (let j = 1; j < phrase.length; j++) {
        if (tokens[i + j] !== phrase[j]) {
          same = false;
          break;
        }
      }
      if (same) hit.add(position);
    }
  }
  return [...hit].sort((a, b) => a - b).map((position) => index.entities[position]);
}

const ARCHIVE_TAGS = new Set(['archived', 'canceled', 'cancelled']);

export function archivedSuffix(entity: MergedEntity, today: string): string {
  if (entity.tags.some((tag) => ARCHIVE_TAGS.has(tag.toLowerCase()))) return ' (archived)';
  if (entity.valid_to && entity.valid_to.slice(0, 10) < today) return ` (archived ${entity.valid_to})`;
  return '';
}

export function recognitionLine(matched: readonly MergedEntity[], today: string): string {
  if (matched.length === 0) return '';
  if (matched.length === 1) {
    const [entity] = matched;
    const suffix = archivedSuffix(entity, today);
    return entity.type ? `Oh -- ${entity.name}, the ${entity.type}${suffix}.` : `Oh -- ${entity.name}${suffix}.`;
  }
  if (matched.length === 2) return `You're asking about ${matched[0].name} and ${matched[1].name} -- I have both.`;
  const names = matched.map((entity) => entity.name);
  return `You're asking about ${names.slice(0, -1).join(', ')}, and ${names[names.length - 1]} -- I have all of those.`;
}

export const PROMPT_CONTEXT_CAP = 240;

export function promptContext(recognition: string, matched: readonly MergedEntity[]): string {
  if (matched.length === 0) return '';
  const lines = ['Bourdon recognition context', `Immediate recognition: ${recognition}`, 'Matched entities:'];
  for (const entity of matched) {
    let line = `- ${entity.name}`;
    if (entity.type) line += ` (${entity.type})`;
    line += ` via ${entity.source_agents.join(', ')}`;
    if (entity.summary) line += `: ${redactText(entity.summary, PROMPT_CONTEXT_CAP)}`;
    lines.push(line);
  }
  lines.push('Use this as timing-layer context, not as a final answer.');
  return lines.join('\n');
}
