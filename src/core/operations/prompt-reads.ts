/**
 * The read operations that take a prompt (spec §5): prepare_recognition_context (which known
 * entities the prompt mentions, here and at hop 0 on peers within a per-turn budget),
 * get_deeper_context and compile_codex_turn (both answered as the engine answers them without
 * their back ends). The matching itself is recognition.ts.
 */
import { agentsInScope, type OperationContext } from '../context.js';
import { localDay } from '../store/dates.js';
import { answered, peerReport, tagAgent } from '../federation/federation.js';
import type { PeerAnswer } from '../peers.js';
import type { Failed, OneOf } from '../payload.js';
import { promptContext, recognise, recognitionLine, type MergedEntity } from './recognition.js';
import { access, askPeers, peerAccessArgs } from './read-common.js';
import type { Answer, deeperContextAnswer, RecognisedEntity, recognitionAnswer } from './answers.js';
import type { CompileTurnInput, DeeperContextInput, RecognitionInput } from './inputs.js';

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
  if (answers) mergePeerRecognition(matched, answers);
  const recognition = recognitionLine(matched, localDay(ctx.now()));
  const latency = Number((process.hrtime.bigint() - started) / 1000n);
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

/** Peers' matched entities folded in by lower-cased name; their agents tagged. */
function mergePeerRecognition(matched: MergedEntity[], answers: readonly PeerAnswer[]): void {
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

export type CompileTurnOutput = { _status: 'deferred'; schema_version: string; reason: string };

export async function compileCodexTurn(_ctx: OperationContext, _args: CompileTurnInput): Promise<CompileTurnOutput> {
  return {
    _status: 'deferred',
    schema_version: 'codex-turn-brief/v1',
    reason:
      'the Codex turn compiler reads environment-bound local state (the Codex session store) and is not part of this server yet; use prepare_recognition_context for per-turn context',
  };
}
