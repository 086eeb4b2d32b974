/**
 * What every call of one MCP server shares (who calls when no identity is set, how its
 * operation context is built, where its audit lines go) and the audit line itself, written
 * once per call by the registration (./register.ts).
 */
import { appendAudit, auditRecord, type AuditDecision } from '../core/trust/audit.js';
import type { Caller } from '../core/trust/caller.js';
import type { OperationContext } from '../core/context.js';
import { describeError } from '../core/errors.js';

export interface CallEnvironment {
  /** Who calls when no identity was set for this request (operator on stdio, unknown on HTTP). */
  fallbackCaller: Caller;
  /** Builds the operation context for a caller. */
  contextFor: (caller: Caller) => OperationContext;
  /** Where audit lines go; null disables the trail (library use without a config dir). */
  auditPath: string | null;
  warn: (message: string) => void;
}

/** When each audit failure was last reported: a full disk warns once a minute, not per call. */
const auditWarnedAt = new Map<string, number>();
const AUDIT_WARN_INTERVAL_MS = 60_000;

/** Writes an audit line; a failure is reported on stderr and never fails the call. */
export function audit(
  env: CallEnvironment,
  caller: Caller,
  op: string,
  namespace: string,
  outcome: boolean | AuditDecision,
  detail?: string,
): void {
  if (!env.auditPath) return;
  try {
    appendAudit(env.auditPath, auditRecord(caller.agent_id, op, namespace, outcome, detail));
  } catch (error) {
    const message = `audit log not written (${describeError(error)})`;
    const now = Date.now();
    if (now - (auditWarnedAt.get(message) ?? -Infinity) < AUDIT_WARN_INTERVAL_MS) return;
    if (auditWarnedAt.size > 100) auditWarnedAt.clear();
    auditWarnedAt.set(message, now);
    env.warn(message);
  }
}
