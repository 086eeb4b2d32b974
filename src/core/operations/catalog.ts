/** Every Bourdon operation, in the order the Python engine lists its tools. */
import type { Operation } from './operation.js';
import {
  compileCodexTurnOperation,
  exportAgentsOperation,
  findEntityOperation,
  getCrossAgentSummaryOperation,
  getDeeperContextOperation,
  listAgentsOperation,
  listNotesOperation,
  listRecentWorkOperation,
  listWorkstreamsOperation,
  prepareRecognitionContextOperation,
  queryAgentMemoryOperation,
} from './read-operations.js';
import {
  commitToFederationOperation,
  explainMemoryChangeOperation,
  listMemoryVersionsOperation,
  rollbackAgentMemoryOperation,
} from './write-operations.js';

export const OPERATIONS: readonly Operation[] = [
  queryAgentMemoryOperation,
  listRecentWorkOperation,
  findEntityOperation,
  getCrossAgentSummaryOperation,
  prepareRecognitionContextOperation,
  compileCodexTurnOperation,
  getDeeperContextOperation,
  listAgentsOperation,
  exportAgentsOperation,
  commitToFederationOperation,
  listNotesOperation,
  listWorkstreamsOperation,
  listMemoryVersionsOperation,
  explainMemoryChangeOperation,
  rollbackAgentMemoryOperation,
];

/** The names of every operation (the MCP tool names). */
export const OPERATION_NAMES: ReadonlySet<string> = new Set(OPERATIONS.map((operation) => operation.name));
