/**
 * Bourdon's library API: the same core operations and servers the CLI uses, for programs.
 *
 *   import { LibraryStore, createContext, findEntity, createMcpServer, runStdio } from 'bourdon';
 */
export {
  LibraryStore,
  libraryPaths,
  parseManifest,
  MAX_MANIFEST_BYTES,
  type AgentRecord,
  type LibrarySnapshot,
} from './core/store/library.js';
export { createContext, agentsInScope, machineName, type OperationContext, type Env } from './core/context.js';
export { runWithCaller, currentCaller, OPERATOR, UNKNOWN_CALLER, type Caller, type Tier } from './core/trust/caller.js';
export { FederationRegistry, hashToken, newToken, type MemberView, type IssuedToken } from './core/trust/registry.js';
export { BourdonError, UsageError, AccessDeniedError } from './core/errors.js';
export { isValidAgentId, AGENT_ID_PATTERN } from './core/store/ids.js';
export { redactText, REDACTED } from './core/trust/redaction.js';
export { parseCalendarDay } from './core/store/dates.js';
export { configPaths, defaultLibraryRoot } from './core/store/config.js';
export { appendAudit, readAudit, type AuditRecord } from './core/trust/audit.js';
export {
  loadPeersFile,
  parsePeersFile,
  normalisePeerUrl,
  selectPeers,
  type PeerConfig,
} from './core/federation/peers-config.js';
export type { PeerFanout, PeerAnswer } from './core/peers.js';

// The 15 operations, `(context, args) → output`, exactly what the MCP tools answer.
export {
  queryAgentMemory,
  findEntity,
  getCrossAgentSummary,
  listAgents,
  type QueryAgentMemoryOutput,
  type FindEntityOutput,
  type CrossAgentSummaryOutput,
  type ListAgentsOutput,
} from './core/operations/reads.js';
export { listRecentWork, type ListRecentWorkOutput } from './core/operations/recent-work.js';
export {
  prepareRecognitionContext,
  getDeeperContext,
  type RecognitionOutput,
  type DeeperContextOutput,
} from './core/operations/prompt-reads.js';
export { compileCodexTurn, type CompileTurnOutput } from './core/operations/codex-turn/compile.js';
export type { AnyAnswer } from './core/payload.js';
export { exportAgents, type ExportAgentsOutput } from './core/operations/export.js';
export { commitToFederation, type CommitOutput } from './core/writes/commit.js';
export { listNotes, type ListNotesOutput } from './core/operations/notes.js';
export { listWorkstreams, type ListWorkstreamsOutput } from './core/operations/workstreams.js';
export {
  listMemoryVersions,
  explainMemoryChange,
  rollbackAgentMemory,
  type ListVersionsOutput,
  type ExplainOutput,
  type RollbackOutput,
} from './core/writes/versions.js';
export { stageCommit, listStaged, promoteStaged, rejectStaged } from './core/writes/staging.js';

// Servers and clients.
export { createMcpServer, SERVER_NAME, SERVER_VERSION, type McpServerOptions } from './mcp/server.js';
export { runStdio } from './mcp/stdio.js';
export { runHttpServer, BindRefusedError, type HttpServerOptions, type HttpServerHandle } from './mcp/http.js';
export { McpPeerFanout } from './mcp/peer-client.js';
export { checkPeer } from './mcp/peer-check.js';

// The declarations the MCP tools and CLI commands derive from (ALL_TOOLS: the earlier name).
export { OPERATIONS, OPERATIONS as ALL_TOOLS, OPERATION_NAMES } from './core/operations/catalog.js';
export { defineOperation, type Operation, type OperationInput } from './core/operations/operation.js';
export { failed, type Failure, type Failed } from './core/payload.js';
