/**
 * src/core/operations — the fifteen operations and the three resources, the contract both
 * adapters derive from. operation.ts says what an operation is (name, description, zod input
 * with the engine's lax coercions, namespace, handler) and holds the shared argument shapes;
 * inputs.ts holds the read schemas and the input types their handlers take; invoke.ts calls an
 * operation through its declaration; read-operations.ts and write-operations.ts declare the fifteen; reads.ts, notes.ts,
 * workstreams.ts, export.ts and recognition.ts implement the reads, each output a named type;
 * the writes and version tools are implemented in ../writes. This folder imports the core
 * root, store, trust, writes and federation, never admin and never an adapter (no oclif, no
 * MCP SDK): see docs/architecture.md and test/architecture.test.ts.
 */

/** Every Bourdon operation: the engine's fifteen in the order it lists its tools, then search_memory. */
import type { AnyOperation } from './operation.js';
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
  searchMemoryOperation,
} from './read-operations.js';
import {
  commitToFederationOperation,
  explainMemoryChangeOperation,
  listMemoryVersionsOperation,
  rollbackAgentMemoryOperation,
} from './write-operations.js';

export const OPERATIONS: readonly AnyOperation[] = [
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
  // Not an engine tool: listed after the engine's fifteen.
  searchMemoryOperation,
];

/** The names of every operation (the MCP tool names). */
export const OPERATION_NAMES: ReadonlySet<string> = new Set(OPERATIONS.map((operation) => operation.name));
