/** Every Bourdon tool, in the order the Python server lists them. */
import type { ToolDefinition } from './common.js';
import { queryAgentMemoryTool } from './query-agent-memory.js';
import { listRecentWorkTool } from './list-recent-work.js';
import { findEntityTool } from './find-entity.js';
import { getCrossAgentSummaryTool } from './get-cross-agent-summary.js';
import { prepareRecognitionContextTool } from './prepare-recognition-context.js';
import { compileCodexTurnTool } from './compile-codex-turn.js';
import { getDeeperContextTool } from './get-deeper-context.js';
import { listAgentsTool } from './list-agents.js';
import { exportAgentsTool } from './export-agents.js';
import { commitToFederationTool } from './commit-to-federation.js';
import { listNotesTool } from './list-notes.js';
import { listWorkstreamsTool } from './list-workstreams.js';
import { listMemoryVersionsTool } from './list-memory-versions.js';
import { explainMemoryChangeTool } from './explain-memory-change.js';
import { rollbackAgentMemoryTool } from './rollback-agent-memory.js';

export const ALL_TOOLS: readonly ToolDefinition[] = [
  queryAgentMemoryTool,
  listRecentWorkTool,
  findEntityTool,
  getCrossAgentSummaryTool,
  prepareRecognitionContextTool,
  compileCodexTurnTool,
  getDeeperContextTool,
  listAgentsTool,
  exportAgentsTool,
  commitToFederationTool,
  listNotesTool,
  listWorkstreamsTool,
  listMemoryVersionsTool,
  explainMemoryChangeTool,
  rollbackAgentMemoryTool,
];

export const TOOL_NAMES: ReadonlySet<string> = new Set(ALL_TOOLS.map((tool) => tool.name));
