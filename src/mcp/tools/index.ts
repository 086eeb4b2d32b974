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
] as unknown as readonly ToolDefinition[];

export const TOOL_NAMES: ReadonlySet<string> = new Set(ALL_TOOLS.map((tool) => tool.name));
