/**
 * The eleven read operations, declared (operation.ts): name, description and input schema as
 * the Python engine lists its tools (the schemas in inputs.ts), and the handler in reads.ts, notes.ts, workstreams.ts or
 * export.ts. The MCP tool and the CLI command both derive from these declarations.
 */
import { exportAgents } from './export.js';
import { listNotes } from './notes.js';
import { findEntity, getCrossAgentSummary, listAgents, queryAgentMemory } from './reads.js';
import { listRecentWork } from './recent-work.js';
import { getDeeperContext, prepareRecognitionContext } from './prompt-reads.js';
import { compileCodexTurn } from './codex-turn/compile.js';
import { listWorkstreams } from './workstreams.js';
import { searchMemory } from './search-memory.js';
import {
  compileTurnInput,
  crossAgentSummaryInput,
  deeperContextInput,
  exportAgentsInput,
  findEntityInput,
  listAgentsInput,
  listNotesInput,
  listRecentWorkInput,
  listWorkstreamsInput,
  queryAgentMemoryInput,
  recognitionInput,
  searchMemoryInput,
} from './inputs.js';
import {
  compileTurnAnswer,
  crossAgentSummaryAnswer,
  deeperContextAnswer,
  exportAgentsAnswer,
  findEntityAnswer,
  listAgentsAnswer,
  listNotesAnswer,
  listRecentWorkAnswer,
  listWorkstreamsAnswer,
  queryAgentMemoryAnswer,
  recognitionAnswer,
  searchMemoryAnswer,
} from './answers.js';
import { agentFilterNamespace, defineOperation, FEDERATED_READ, LOCAL_READ } from './operation.js';

export const queryAgentMemoryOperation = defineOperation({
  name: 'query_agent_memory',
  title: 'What one agent knows about a topic',
  annotations: LOCAL_READ,
  output: queryAgentMemoryAnswer,
  description: 'What one agent knows about a topic: the entity matches for `topic` that list `agent`.',
  input: queryAgentMemoryInput,
  namespace: (input) => input.agent,
  run: queryAgentMemory,
});

export const listRecentWorkOperation = defineOperation({
  name: 'list_recent_work',
  title: 'Recent work sessions',
  annotations: FEDERATED_READ,
  output: listRecentWorkAnswer,
  description:
    'What happened recently: sessions since a day (default: the last 14 days), newest first, paged with cursors.',
  input: listRecentWorkInput,
  namespace: agentFilterNamespace,
  denialExtras: { sessions: [], next_cursor: null, has_more: false },
  run: listRecentWork,
});

export const findEntityOperation = defineOperation({
  name: 'find_entity',
  title: 'Find who knows about a name',
  annotations: FEDERATED_READ,
  output: findEntityAnswer,
  description: 'Who knows about X: entities whose name or alias matches, case-insensitively, across every agent.',
  input: findEntityInput,
  run: findEntity,
});

export const getCrossAgentSummaryOperation = defineOperation({
  name: 'get_cross_agent_summary',
  title: 'Everything on one project',
  annotations: FEDERATED_READ,
  output: crossAgentSummaryAnswer,
  description: 'Everything every agent has on a project: its entity matches and the sessions that focused on it.',
  input: crossAgentSummaryInput,
  run: getCrossAgentSummary,
});

export const prepareRecognitionContextOperation = defineOperation({
  name: 'prepare_recognition_context',
  title: 'Recognise what a prompt mentions',
  annotations: FEDERATED_READ,
  output: recognitionAnswer,
  description:
    'Call at the start of a turn: which known entities the prompt mentions, a one-line recognition and a short context block.',
  input: recognitionInput,
  run: prepareRecognitionContext,
});

export const compileCodexTurnOperation = defineOperation({
  name: 'compile_codex_turn',
  title: 'Codex turn brief',
  annotations: LOCAL_READ,
  output: compileTurnAnswer,
  description:
    'Call before a Codex turn: a small ranked recognition brief (codex-turn-brief/v1) compiled from the prompt, the repository at `cwd`, Codex thread metadata and the library, in every delivery form (explicit text, MCP payload, MEMORY.md block, fallback block, repo overlay).',
  input: compileTurnInput,
  run: compileCodexTurn,
});

export const getDeeperContextOperation = defineOperation({
  name: 'get_deeper_context',
  title: 'Deeper context for a prompt',
  annotations: LOCAL_READ,
  output: deeperContextAnswer,
  description: 'Longer context from an L2 retriever. None is configured here, so the context is empty.',
  input: deeperContextInput,
  run: getDeeperContext,
});

export const listAgentsOperation = defineOperation({
  name: 'list_agents',
  title: 'List agents',
  annotations: FEDERATED_READ,
  output: listAgentsAnswer,
  description: 'The ids of every agent in the library (and on peers), sorted.',
  input: listAgentsInput,
  run: listAgents,
});

export const exportAgentsOperation = defineOperation({
  name: 'export_agents',
  title: "This machine's agents, summarised",
  annotations: LOCAL_READ,
  output: exportAgentsAnswer,
  description:
    "Reads only, writes nothing: every agent in this machine's library summarised as a bourdon.agents/v1 envelope (type, counts, newest session, recent public and team activity, redacted; never private sessions, never peers' agents). `generated_from` is the library's agents folder on this machine (empty for a caller capped below private: remote or quarantined).",
  input: exportAgentsInput,
  run: (ctx) => exportAgents(ctx),
});

export const listNotesOperation = defineOperation({
  name: 'list_notes',
  title: 'Notes agents left',
  annotations: FEDERATED_READ,
  output: listNotesAnswer,
  description:
    'Notes agents left, newest first: since a day (default: the last 14 days), filtered by agent, tag or project, paged with cursors. Note texts are redacted.',
  input: listNotesInput,
  namespace: agentFilterNamespace,
  denialExtras: { notes: [], next_cursor: null, has_more: false },
  run: listNotes,
});

export const listWorkstreamsOperation = defineOperation({
  name: 'list_workstreams',
  title: 'Workstreams in flight',
  annotations: FEDERATED_READ,
  output: listWorkstreamsAnswer,
  description:
    'What is in flight: every project named in sessions and notes, across agents, with its agents, counts, first and last activity, status (active within 14 days, idle, or archived) and newest actions. Sorted by last activity, paged with cursors.',
  input: listWorkstreamsInput,
  namespace: agentFilterNamespace,
  denialExtras: { workstreams: [], next_cursor: null, has_more: false },
  run: listWorkstreams,
});

export const searchMemoryOperation = defineOperation({
  name: 'search_memory',
  title: 'Search everything agents remember',
  annotations: FEDERATED_READ,
  output: searchMemoryAnswer,
  description:
    'Search everything agents remember when you do not know the exact name: entities (name, aliases, tags, summary), sessions (key actions, project, folder, files), notes and workstreams. Ranked best first, exact names first; forgives typos, accents and case. Each result has its kind, a score, the fields that matched and a snippet with the matching words in **bold**. Use find_entity when you know the exact name.',
  input: searchMemoryInput,
  namespace: agentFilterNamespace,
  denialExtras: { results: [], truncated: false },
  run: searchMemory,
});
