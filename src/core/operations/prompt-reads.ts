/**
 * The read operations that take a prompt (spec §5): prepare_recognition_context (which known
 * entities the prompt mentions, here and at hop 0 on peers within a per-turn budget),
 * get_deeper_context (answered as the engine answers it without an L2 retriever). The matching
 * itself is recognition.ts; the Codex turn compiler is codex-turn/ (its README).
 */
import { agentsInScope, type OperationContext } from '../context.js';
import { localDay } from '../store/dates.js';
import { roundTenth } from '../native/python-values.js';
import { answered, peerReport, tagAgent } from '../federation/federation.js';
import type { PeerAnswer } from '../peers.js';
import type { Failed, OneOf } from '../payload.js';
import { mentions, promptContext, recognise, recognitionLine, type MergedEntity } from './recognition.js';
import { access, askPeers, peerAccessArgs } from './read-common.js';
import type { Answer, deeperContextAnswer, RecognisedEntity, recognitionAnswer } from './answers.js';
import type { DeeperContextInput, RecognitionInput } from './inputs.js';

export type { RecognisedEntity };

export type RecognitionAnswer = Answer<typeof recognitionAnswer>;
export type RecognitionOutput = OneOf<RecognitionAnswer | Failed<RecognitionAnswer>>;

export async function prepareRecognitionContext(
  ctx: OperationContext,
  args: RecognitionInput,
): Promise<RecognitionOutput> {
  const started = process.hrtime.bigint();
  const level = access(ctx, args, 'team');
  const base = { prompt: args.prompt, access_level: level.echoed, include_private: args.include_private ?? false };
  if (level.error) {
    return {
      error: level.error,
      ...base,
      recognition: '',
      matched_entities: [],
      recognition_latency_us: 0,
      hydration_scheduled: false,
      prompt_context: '',
    };
  }
  // Copies: the index's entities are shared by every call; peer merging must not touch them.
  const matched = recognise(agentsInScope(ctx), level.effective, args.prompt).map((entity) => ({
    ...entity,
    source_agents: [...entity.source_agents],
  }));
  const answers = await askPeers(
    ctx,
    args,
    'prepare_recognition_context',
    peerAccessArgs(level, { prompt: args.prompt }),
    RECOGNITION_BUDGET_MS,
  );
  if (answers) mergePeerRecognition(matched, answers, args.prompt);
  const recognition = recognitionLine(matched, localDay(ctx.now()));
  // Microseconds to a tenth, as the engine's `round(latency_us, 1)`: a float, not whole microseconds.
  const latency = roundTenth(Number(process.hrtime.bigint() - started) / 1000);
  const payload: RecognitionAnswer = {
    ...base,
    recognition,
    matched_entities: matched.map((entity) => ({
      name: entity.name,
      type: entity.type,
      source_agents: [...entity.source_agents],
    })),
    recognition_latency_us: latency,
    hydration_scheduled: matched.length > 0,
    prompt_context: promptContext(recognition, matched),
  };
  return answers ? { ...payload, ...peerReport(answers) } : payload;
}

/** A peer answers recognition within this budget or not at all: it runs at every turn. */
export const RECOGNITION_BUDGET_MS = 200;

/**
 * Peers' matched entities folded in by lower-cased name; their agents tagged. A peer's entity
 * this machine did not match is kept only when the prompt mentions its name as a local one
 * must be mentioned (`mentions`): a peer cannot add to our context what the prompt never
 * named. (Its strings arrive one line each: boundAnswers.)
 */
function mergePeerRecognition(matched: MergedEntity[], answers: readonly PeerAnswer[], prompt: string): void {
  const mentioned = mentions(prompt);
  const byKey = new Map(matched.map((entity) => [entity.name.toLowerCase(), entity]));
  // The source agents already listed for each merged entity: one lookup per peer agent.
  const listed = new Map<MergedEntity, Set<string>>();
  const seenIn = (entity: MergedEntity): Set<string> => {
    let seen = listed.get(entity);
    if (!seen) listed.set(entity, (seen = new Set(entity.source_agents)));
    return seen;
  };
  for (const { peer, payload } of answered(answers)) {
    const rows = Array.isArray(payload.matched_entities) ? (payload.matched_entities as unknown[]) : [];
    for (const raw of rows) {
      const row = raw as { name?: unknown; type?: unknown; source_agents?: unknown };
      if (!row || typeof row.name !== 'string') continue;
      let target = byKey.get(row.name.toLowerCase());
      if (!target) {
        if (!mentioned(row.name)) continue;
        target = {
          name: row.name,
          type: typeof row.type === 'string' ? row.type : null,
          source_agents: [],
          summary: null,
          tags: [],
          valid_to: null,
        };
        byKey.set(row.name.toLowerCase(), target);
        matched.push(target);
      }
      const agents = Array.isArray(row.source_agents)
        ? row.source_agents.filter((a): a is string => typeof a === 'string')
        : [];
      const seen = seenIn(target);
      for (const agent of agents) {
        const tagged = tagAgent(peer, agent);
        if (seen.has(tagged)) continue;
        seen.add(tagged);
        target.source_agents.push(tagged);
      }
    }
  }
}

/** No L2 retriever ships with this package: the context is empty, never an error. */
export type DeeperContextOutput = Answer<typeof deeperContextAnswer>;

export async function getDeeperContext(ctx: OperationContext, args: DeeperContextInput): Promise<DeeperContextOutput> {
  const level = access(ctx, args, 'team');
  return {
    prompt: args.prompt,
    access_level: level.echoed,
    include_private: args.include_private ?? false,
    context: '',
    context_chars: 0,
  };
}
