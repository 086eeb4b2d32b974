/**
 * Bourdon's library API: the same core operations and servers the CLI uses, for programs.
 *
 *   import { L6Store, createContext, findEntity, createL6Server, runStdio } from 'bourdon';
 */
export {
  L6Store,
  libraryPaths,
  parseManifest,
  MAX_MANIFEST_BYTES,
  type AgentRecord,
  type LibrarySnapshot,
} from './core/library.js';
export { createContext, agentsInScope, machineName, type OperationContext, type Env } from './core/context.js';
export { runWithCaller, currentCaller, OPERATOR, UNKNOWN_CALLER, type Caller, type Tier } from './core/caller.js';
export { FederationRegistry, hashToken, newToken, type MemberView, type IssuedToken } from './core/registry.js';
export { BourdonError, UsageError, AccessDeniedError } from './core/errors.js';
export { isValidAgentId, AGENT_ID_PATTERN } from './core/ids.js';
export { redactText, REDACTED } from './core/redaction.js';
export { parseCalendarDay } from './core/dates.js';
export { configPaths, defaultLibraryRoot } from './core/config.js';
export { appendAudit, readAudit, type AuditRecord } from './core/audit.js';
export { loadPeersFile, parsePeersFile, normalisePeerUrl, selectPeers, type PeerConfig } from './core/peers-config.js';
export type { PeerFanout, PeerAnswer } from './core/peers.js';

// The 15 operations, `(context, args) → payload`, exactly what the MCP tools answer.
export {
  queryAgentMemory,
  listRecentWork,
  findEntity,
  getCrossAgentSummary,
  prepareRecognitionContext,
  compileCodexTurn,
  getDeeperContext,
  listAgents,
  type Payload,
} from './core/reads.js';
export { exportAgents } from './core/export.js';
export { commitToFederation } from './core/commit.js';
export { listNotes } from './core/notes.js';
export { listWorkstreams } from './core/workstreams.js';
export { listMemoryVersions, explainMemoryChange, rollbackAgentMemory } from './core/versions.js';
export { stageCommit, listStaged, promoteStaged, rejectStaged } from './core/staging.js';

// Servers and clients.
export { createL6Server, SERVER_NAME, SERVER_VERSION, type L6ServerOptions } from './mcp/server.js';
export { runStdio } from './mcp/stdio.js';
export { runHttpServer, BindRefusedError, type HttpServerOptions, type HttpServerHandle } from './mcp/http.js';
export { McpPeerFanout, checkPeer } from './mcp/peer-client.js';
export { ALL_TOOLS } from './mcp/tools/index.js';
