/**
 * Who may call what (spec §4). Trusted callers may do everything. Quarantined members may
 * call a fixed set of read tools plus commit, each limited to their granted namespaces, and
 * may write only under their own id (to staging). Denials are payloads, not exceptions.
 */
import { markDenied, type DenialPayload } from '../payload.js';
import { maskConfiguredTokens } from './audit.js';
import type { Caller } from './caller.js';

export const QUARANTINE_ALLOWED = new Set([
  'query_agent_memory',
  'find_entity',
  'list_recent_work',
  'list_agents',
  'export_agents',
  'list_notes',
  'list_workstreams',
  'search_memory',
  'commit_to_federation',
  'resource:agents',
  'resource:agent-memory',
  'resource:entity',
]);

interface Decision {
  allowed: boolean;
  namespace: string;
  detail?: string;
}

export function authorize(caller: Caller, op: string, namespace: string): Decision {
  if (caller.tier === 'trusted') return { allowed: true, namespace };
  if (!QUARANTINE_ALLOWED.has(op)) {
    return { allowed: false, namespace, detail: `tier '${caller.tier}' may not call this tool` };
  }
  if (op === 'commit_to_federation') {
    // Allowed, and the write goes to staging: the audit line says so, as the engine's does.
    if (namespace === caller.agent_id) return { allowed: true, namespace, detail: 'staged' };
    return {
      allowed: false,
      namespace,
      detail: `quarantined members may only write their own namespace ('${caller.agent_id}')`,
    };
  }
  if (namespace !== '*' && !caller.grants.includes(namespace)) {
    return { allowed: false, namespace, detail: `namespace '${namespace}' not granted` };
  }
  return { allowed: true, namespace };
}

/** The denial payload every tool and resource answers with. */
export function denialPayload(caller: Caller, op: string, detail: string): DenialPayload {
  // The detail can quote an argument: a token pasted into one is masked, never echoed.
  const payload = {
    error: 'access denied',
    op,
    agent: caller.agent_id,
    tier: caller.tier,
    detail: maskConfiguredTokens(detail),
  };
  markDenied(payload);
  return payload;
}
