/**
 * A peer's answer, read through the answer model (answers.ts) before anything merges or shows
 * it. A peer is another machine, not a trusted one, and is read as a manifest is (the store's
 * lenient reader): a value that does not fit (a number where a name is expected, an object
 * where a type is) is left out at the smallest level — a list item, else the field, else the
 * row holding it — and the rest is used; only an answer with nothing to read (not an object,
 * a refusal, its list missing) is that peer's error, one line naming the field. As the engine's
 * peer client reads them, `find_entity` and `list_agents` may answer their list alone, and a
 * `find_entity` answer needs nothing but its `matches` (the echoed name and level are not
 * read). Parsing keeps only the keys the model declares, so nothing a peer invents (an extra
 * key nested 100,000 deep) is passed on, and fills in what the engine answers for an absent
 * optional key (an empty list, null).
 */
import * as z from 'zod';
import { lazy } from '../lazy.js';
import type { AnyAnswer } from '../payload.js';
import { readLeniently } from '../store/lenient-reader.js';
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

/** find_entity as a peer is read: only `matches` is needed (the engine's peer client reads nothing else). */
const peerFindEntityAnswer = lazy(() =>
  findEntityAnswer().partial({ name: true, access_level: true, include_private: true }),
);

/** The tools this server asks its peers, with the answer each must fit. */
const PEER_TOOLS: Record<string, () => z.ZodType<AnyAnswer>> = {
  list_agents: listAgentsAnswer,
  find_entity: peerFindEntityAnswer,
  list_recent_work: listRecentWorkAnswer,
  get_cross_agent_summary: crossAgentSummaryAnswer,
  prepare_recognition_context: recognitionAnswer,
  list_notes: listNotesAnswer,
  list_workstreams: listWorkstreamsAnswer,
  export_agents: exportAgentsAnswer,
  search_memory: searchMemoryAnswer,
};

/** Tools whose answer may be its list alone, and the field that list is (the engine's peer client). */
const BARE_LISTS: Record<string, string> = { find_entity: 'matches', list_agents: 'agents' };

/** The answer of a tool this server does not model for peers: any object, as it came. */
const anyObject = lazy(() => z.looseObject({}));

/** What reading a peer's answer gives: the payload, and a line saying what was left out (null when nothing). */
export type PeerRead = { payload: AnyAnswer; leftOut: string | null } | { error: string };

/**
 * A peer's answer to `tool` as the model reads it, or the one line saying why nothing of it can
 * be read (a refusal, `{"error": …}`, is the peer's error too). A tool this server never asks a
 * peer passes as it came.
 */
export function readPeerAnswer(tool: string, raw: unknown): PeerRead {
  const schema = PEER_TOOLS[tool];
  const bare = BARE_LISTS[tool];
  const answer: unknown = bare && Array.isArray(raw) ? { [bare]: raw } : raw;
  if (!answer || typeof answer !== 'object' || Array.isArray(answer))
    return { error: `answered ${tool} with a non-object` };
  if ('error' in answer && typeof answer.error === 'string')
    return { error: `refused ${tool}: ${answer.error.slice(0, 200)}` };
  const { value, misfits } = readLeniently(schema ? schema() : anyObject(), answer as Record<string, unknown>);
  const [first] = misfits;
  if (value === null)
    return {
      error: `answer to ${tool} does not fit at ${first?.field || '(the answer)'}: ${(first?.reason ?? 'unknown').slice(0, 100)}`,
    };
  if (!first) return { payload: value, leftOut: null };
  const values = misfits.length === 1 ? 'a value' : `${misfits.length} values`;
  return {
    payload: value,
    leftOut: `left out ${values} of its ${tool} answer that ${misfits.length === 1 ? 'does' : 'do'} not fit (${first.field}: ${first.reason.slice(0, 100)})`,
  };
}
