/**
 * Recognition (tool prepare_recognition_context): which known entities a prompt mentions.
 * Entities are merged across agents by lower-cased name; a name or alias matches when its
 * alphanumeric tokens appear contiguously in the prompt's tokens, so "bourdonish" never
 * matches "Bourdon". Token indexes are per agent (see indexes.ts).
 */
import { canSee, type AccessLevel } from '../trust/access.js';
import { agentIndex, tokenize } from '../store/indexes.js';
import type { AgentRecord } from '../store/library.js';
import { redactText } from '../trust/redaction.js';
import { peerAgentFilter } from '../federation/federation.js';

/** Bounds the work per prompt: a name or alias of more words than this is not recognised. */
const MAX_PHRASE_TOKENS = 32;

export interface MergedEntity {
  name: string;
  type: string | null;
  source_agents: string[];
  summary: string | null;
  tags: string[];
  valid_to: string | null;
}

/**
 * Merged entities the prompt mentions, in merged-view order: the order in which each merged
 * name first appears among visible entities, agents in id order and entities in file order.
 * A merged entity answers to the phrases (name and aliases) of every agent's entity of that
 * name, so an alias known to one agent recognises what another agent calls it.
 */
export function recognise(agents: readonly AgentRecord[], level: AccessLevel, prompt: string): MergedEntity[] {
  const tokens = tokenize(prompt);
  const longest = Math.min(MAX_PHRASE_TOKENS, Math.max(0, ...agents.map((agent) => agentIndex(agent).longestPhrase)));
  // Every run of up to `longest` contiguous prompt tokens, looked up as a phrase in each agent.
  const grams = new Set<string>();
  for (const [i, first] of tokens.entries()) {
    let gram = '';
    for (let n = 0; n < longest && i + n < tokens.length; n++) {
      gram = n === 0 ? first : `${gram} ${tokens[i + n]}`;
      grams.add(gram);
    }
  }
  const matchedKeys = new Set<string>();
  for (const agent of agents) {
    const index = agentIndex(agent);
    for (const gram of grams) {
      for (const position of index.spelled(gram)) {
        if (canSee(level, agent.entities[position]!.visibility)) matchedKeys.add(index.foldedName(position));
      }
    }
  }
  if (matchedKeys.size === 0) return [];
  const merged: { order: [number, number]; entity: MergedEntity }[] = [];
  for (const key of matchedKeys) {
    let target: MergedEntity | null = null;
    let order: [number, number] = [0, 0];
    // Sets beside the lists: a manifest may hold an entity with tens of thousands of tags.
    const sources = new Set<string>();
    const tags = new Set<string>();
    agents.forEach((agent, agentPosition) => {
      for (const position of agentIndex(agent).named(key)) {
        const entity = agent.entities[position]!;
        if (!canSee(level, entity.visibility)) continue;
        if (!target) {
          target = { name: entity.name, type: entity.type, source_agents: [], summary: null, tags: [], valid_to: null };
          order = [agentPosition, position];
        }
        if (!sources.has(agent.id)) {
          sources.add(agent.id);
          target.source_agents.push(agent.id);
        }
        if (target.summary === null && entity.summary) target.summary = entity.summary;
        if (target.valid_to === null && entity.valid_to) target.valid_to = entity.valid_to;
        for (const tag of entity.tags) {
          if (tags.has(tag)) continue;
          tags.add(tag);
          target.tags.push(tag);
        }
      }
    });
    if (target) merged.push({ order, entity: target });
  }
  return merged.sort((a, b) => a.order[0] - b.order[0] || a.order[1] - b.order[1]).map(({ entity }) => entity);
}

/**
 * Whether the prompt mentions a name as recognition requires of a local entity's name: its
 * alphanumeric tokens (at most MAX_PHRASE_TOKENS) appear contiguously among the prompt's. For
 * names a peer says it matched, which this machine cannot check against the peer's aliases.
 */
export function mentions(prompt: string): (name: string) => boolean {
  const spaced = ` ${tokenize(prompt).join(' ')} `;
  return (name) => {
    const tokens = tokenize(name);
    return tokens.length > 0 && tokens.length <= MAX_PHRASE_TOKENS && spaced.includes(` ${tokens.join(' ')} `);
  };
}

const ARCHIVE_TAGS = new Set(['archived', 'canceled', 'cancelled']);

function archivedSuffix(entity: MergedEntity, today: string): string {
  if (entity.tags.some((tag) => ARCHIVE_TAGS.has(tag.toLowerCase()))) return ' (archived)';
  if (entity.valid_to && entity.valid_to.slice(0, 10) < today) return ` (archived ${entity.valid_to})`;
  return '';
}

export function recognitionLine(matched: readonly MergedEntity[], today: string): string {
  const [first, second] = matched;
  if (first === undefined) return '';
  if (second === undefined) {
    const suffix = archivedSuffix(first, today);
    return first.type ? `Oh -- ${first.name}, the ${first.type}${suffix}.` : `Oh -- ${first.name}${suffix}.`;
  }
  if (matched.length === 2) return `You're asking about ${first.name} and ${second.name} -- I have both.`;
  const names = matched.map((entity) => entity.name);
  return `You're asking about ${names.slice(0, -1).join(', ')}, and ${names[names.length - 1]} -- I have all of those.`;
}

const PROMPT_CONTEXT_CAP = 240;

/**
 * Where an entity came from when only peers know it: `[peer:laptop] ` (each peer once), the
 * first thing on its context line, so nothing a peer sent reads as this machine's knowledge.
 * Empty when any local agent knows it (the name, type and summary are then the local ones).
 */
function peerProvenance(entity: MergedEntity): string {
  const peers = new Set<string>();
  for (const agent of entity.source_agents) {
    const tagged = peerAgentFilter(agent);
    if (!tagged) return '';
    peers.add(`peer:${tagged.peer}`);
  }
  return peers.size ? `[${[...peers].join(', ')}] ` : '';
}

export function promptContext(recognition: string, matched: readonly MergedEntity[]): string {
  if (matched.length === 0) return '';
  const lines = ['Bourdon recognition context', `Immediate recognition: ${recognition}`, 'Matched entities:'];
  for (const entity of matched) {
    let line = `- ${peerProvenance(entity)}${entity.name}`;
    if (entity.type) line += ` (${entity.type})`;
    line += ` via ${entity.source_agents.join(', ')}`;
    if (entity.summary) line += `: ${redactText(entity.summary, PROMPT_CONTEXT_CAP)}`;
    lines.push(line);
  }
  lines.push('Use this as timing-layer context, not as a final answer.');
  return lines.join('\n');
}
