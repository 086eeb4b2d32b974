/**
 * createMcpServer: one MCP server over one library. Cheap to build (the store and its parsed
 * manifests are shared), so HTTP builds one per request and stdio one per connection.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { OPERATOR, type Caller } from '../core/trust/caller.js';
import { configPaths } from '../core/store/config.js';
import { preciseNow } from '../core/store/dates.js';
import { packageInfo } from '../core/admin/version.js';
import type { Env, OperationContext } from '../core/context.js';
import { stderrWarn, type LibraryStore, type Warn } from '../core/store/library.js';
import type { PeerFanout } from '../core/peers.js';
import type { CallEnvironment } from './call-environment.js';
import { registerTools } from './register.js';
import { registerResources } from './resources.js';
import { OPERATIONS, OPERATION_NAMES } from '../core/operations/catalog.js';
import { peersAwayFromSlot } from './http/admission.js';

export const SERVER_NAME = 'bourdon-l6';
/** The installed package's version (package.json is the one place it is written). */
export const SERVER_VERSION = packageInfo().version;

export interface McpServerOptions {
  env?: Env;
  now?: () => Date;
  warn?: Warn;
  peers?: PeerFanout | null;
  /** Audit log path; default from BOURDON_AUDIT_PATH / BOURDON_HOME; null turns the trail off. */
  auditPath?: string | null;
  /** Caller when no identity is set for a request: operator (stdio) unless told otherwise. */
  fallbackCaller?: Caller;
  /** Which tools this connection offers (spec: connection profiles). Default: all. */
  toolFilter?: (name: string) => boolean;
}

export function createMcpServer(store: LibraryStore, options: McpServerOptions = {}): McpServer {
  const env = options.env ?? process.env;
  const warn = options.warn ?? stderrWarn;
  // Over HTTP a call waiting on its peers gives its admission slot back meanwhile
  // (./http/admission.ts); elsewhere (stdio, no slot) the wrapper just calls through.
  const peers = options.peers ? peersAwayFromSlot(options.peers) : null;
  const callEnv: CallEnvironment = {
    fallbackCaller: options.fallbackCaller ?? OPERATOR,
    auditPath: options.auditPath === undefined ? configPaths(env).audit : options.auditPath,
    warn,
    contextFor: (caller): OperationContext => ({
      store,
      caller,
      env,
      now: options.now ?? preciseNow,
      warn,
      peers,
      // Operations that audit on their own (rollback) write where this server's trail goes.
      config:
        typeof options.auditPath === 'string' ? { ...configPaths(env), audit: options.auditPath } : configPaths(env),
    }),
  };
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      instructions:
        'Bourdon federates the memory of AI coding agents. Call prepare_recognition_context at the start of a turn; use find_entity, list_recent_work and get_cross_agent_summary for cross-agent questions.',
    },
  );
  const filter = options.toolFilter;
  const offered = filter ? OPERATIONS.filter((operation) => filter(operation.name)) : OPERATIONS;
  registerTools(server, callEnv, offered, OPERATION_NAMES);
  registerResources(server, callEnv);
  return server;
}
