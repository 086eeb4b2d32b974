/**
 * A peer's answer, parsed through the answer model (answers.ts) before anything merges or shows
 * it. A peer is another machine, not a trusted one: an answer that does not fit is that peer's
 * error, one line naming the field, never a crash further on (a number where a name is
 * expected, an object where a type is). Parsing keeps only the keys the model declares, so
 * nothing a peer invents (an extra key nested 100,000 deep) is passed on, and fills in what the
 * engine answers for an absent optional key (an empty list, null).
 */
import * as z from 'zod';
import { lazy } from '../lazy.js';
import type { AnyAnswer } from '../payload.js';
import { fieldPath } from '../store/model.js';
import {
  crossAgentSummaryAnswer,
  exportAgentsAnswer,
  findEntityAnswer,
  listAgentsAnswer,
  listNotesAnswer,
  listRecentWorkAnswer,
  listWorkstreamsAnswer,
  recognitionAnswer,
  searchMemoryAnswer,
} from './answers.js';

/** The tools this server asks its peers, with the answer each must fit. */
const PEER_TOOLS: Record<string, () => z.ZodType<AnyAnswer>> = {
  list_agents: listAgentsAnswer,
  find_entity: findEntityAnswer,
  list_recent_work: listRecentWorkAnswer,
  get_cross_agent_summary: crossAgentSummaryAnswer,
  prepare_recognition_context: recognitionAnswer,
  list_notes: listNotesAnswer,
  list_workstreams: listWorkstreamsAnswer,
  export_agents: exportAgentsAnswer,
  search_memory: searchMemoryAnswer,
};

/** The answer of a tool this server does not model for peers: any object, as it came. */
const anyObject = lazy(() => z.looseObject({}));

/**
 * A peer's answer to `tool` as the model reads it, or the one line saying what does not fit
 * (a refusal, `{"error": …}`, is the peer's error too). A tool this server never asks a peer
 * passes as it came.
 */
export function readPeerAnswer(tool: string, raw: unknown): { payload: AnyAnswer } | { error: string } {
  const schema = PEER_TOOLS[tool];
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { error: `answered ${tool} with a non-object` };
  if ('error' in raw && typeof raw.error === 'string') return { error: `refused ${tool}: ${raw.error.slice(0, 200)}` };
  const parsed = (schema ? schema() : anyObject()).safeParse(raw);
  if (parsed.success) return { payload: parsed.data };
  const issue = parsed.error.issues[0];
  return {
    error: `answer to ${tool} does not fit at ${fieldPath(issue.path) || '(the answer)'}: ${issue.message.slice(0, 100)}`,
  };
}
